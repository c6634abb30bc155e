// A process that starts writing a checkpoint and freezes before step N (argv: URL N), printing `frozen N`: a test kills it there.
import { openPostgresStore } from '../../../src/store/postgres/open-postgres-store.js';

const [url, at] = process.argv.slice(2);
const store = await openPostgresStore({
  url: url!,
  compactMinBytes: Number.MAX_SAFE_INTEGER,
  onCheckpointStep: async (step) => {
    if (step !== Number(at)) return;
    process.stdout.write(`frozen ${step}\n`);
    await new Promise(() => undefined);
  },
});
await store.checkpoint();
process.stdout.write('written\n');
await store.close();
