// Bench-only launcher: startServer from dist/ with the switches `node dist/server.js` does not offer (--no-sync, --no-auth).
// Run: node --import tsx test/bench/bench-server.ts --dist DIST --data-dir DIR [--rate-limit N] [--no-sync] [--no-auth] [--no-search-index]
import path from 'node:path';
import { pathToFileURL } from 'node:url';

type StartServerModule = typeof import('../../src/start-server.js');
type LoggerModule = typeof import('../../src/log/logger.js');

const args = process.argv.slice(2);
const valueOf = (flag: string): string | undefined => {
  const at = args.indexOf(flag);
  return at === -1 ? undefined : args[at + 1];
};
const dataDir = valueOf('--data-dir');
const dist = valueOf('--dist');
if (dataDir === undefined || dist === undefined) {
  process.stderr.write('bench-server: --dist DIST and --data-dir DIR are required\n');
  process.exit(2);
}
const distModule = (file: string): string => pathToFileURL(path.join(dist, file)).href;

const { startServerWith } = (await import(distModule('start-server.js'))) as StartServerModule;
const { createLogger } = (await import(distModule('log/logger.js'))) as LoggerModule;
// The same logger as dist/server.js: info level, JSON lines on stderr.
const logger = createLogger({ level: 'info', write: (text) => process.stderr.write(text) });
// The switches are internal (InternalOptions): not part of the package's API, so the launcher calls startServerWith.
const running = await startServerWith(
  { port: 0, dataDir, rateLimit: Number(valueOf('--rate-limit') ?? 1_000_000_000), logger },
  { unsafeNoSync: args.includes('--no-sync'), unsafeNoAuth: args.includes('--no-auth'), noSearchIndex: args.includes('--no-search-index') },
);
process.on('SIGTERM', () => {
  void running.close().finally(() => {
    logger.flush();
    process.exit(0);
  });
});
process.stdout.write(`listening on ${running.url} (pid ${process.pid})\n`);
