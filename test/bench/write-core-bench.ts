// Issue 37, in process: what a create costs in ours' core (dist/app.js's handle: key, rate limit, Idempotency-Key,
// validation, views, search words, change feed, the log line written) with no node:http, no socket and no fdatasync,
// against the bare durable append's per-request work (bare-append-core.ts) with its line written the same way; 50
// creates at a time, each written with one write(2), the two alternated; ours starts from the same 10,000 events as
// write-cost-bench.ts (an empty folder made each create about 5 µs cheaper). It shows where the server's gap is: in
// the core, not in node:http or the kernel, which both servers share.
// Run: node --import tsx test/bench/write-core-bench.ts [--quick]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './bench-context.js';
import { createEvent } from './bare-append-core.js';
import { CREATE_BODY, generateData } from './data-generator.js';
import { median } from './load-plan.js';

type AppModule = typeof import('../../src/app.js');

const quick = process.argv.includes('--quick');
const BATCH = 50;
const CREATES = quick ? 10_000 : 40_000;
/** Events in the folder ours starts from: write-cost-bench.ts's. */
const EVENTS = 10_000;
const ROUNDS = quick ? 1 : 3;

if (!fs.existsSync(path.join(ROOT, 'dist/app.js'))) {
  process.stderr.write('write-core-bench: dist/app.js is missing; run make build (make bench does)\n');
  process.exit(2);
}
const { openApp } = (await import(path.join(ROOT, 'dist/app.js'))) as AppModule;
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'campus-events-write-core-'));
const body = Buffer.from(CREATE_BODY);

/** CPU of this process (every thread) per create while `run` makes `count` of them, in microseconds. */
async function cpuPerCreate(count: number, run: (batch: number) => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  for (let made = 0; made < count; made += BATCH) await run(BATCH);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

try {
  const data = await generateData(path.join(workDir, 'ours'), EVENTS);
  const app = await openApp({ dataDir: data.dir, console: false, rateLimit: 1_000_000_000, keyPollMs: 0 }, { unsafeNoSync: true });
  const authorization = `Bearer ${data.secret}`;
  const request = () => ({ method: 'POST', target: '/events', headers: { authorization, 'content-type': 'application/json', 'content-length': String(body.length), host: '127.0.0.1' }, body, bodyTooLarge: false, remoteAddress: '127.0.0.1' });
  const ours = async (batch: number): Promise<void> => {
    const answers = await Promise.all(Array.from({ length: batch }, () => app.handle(request())));
    if (answers.some((answer) => answer.status !== 201)) throw new Error(`ours answered ${answers.find((answer) => answer.status !== 201)!.status}`);
  };
  const fd = fs.openSync(path.join(workDir, 'bare.jsonl'), 'a');
  const bare = async (batch: number): Promise<void> => {
    const lines: string[] = [];
    for (let i = 0; i < batch; i++) {
      const created = createEvent(JSON.parse(body.toString('utf8')) as Record<string, unknown>);
      if (created === undefined) throw new Error('the bare append refused the create body');
      lines.push(created.line);
    }
    await new Promise<void>((resolve, reject) => fs.write(fd, lines.join(''), (error) => (error === null ? resolve() : reject(error))));
  };
  await cpuPerCreate(CREATES / 4, ours);
  await cpuPerCreate(CREATES / 4, bare);
  const oursRuns: number[] = [];
  const bareRuns: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    oursRuns.push(await cpuPerCreate(CREATES, ours));
    bareRuns.push(await cpuPerCreate(CREATES, bare));
  }
  await app.close();
  fs.closeSync(fd);
  const [oursCpu, bareCpu] = [median(oursRuns), median(bareRuns)];
  process.stdout.write(
    `\nA create in process on ${EVENTS.toLocaleString('en-US')} events, no node:http, no fdatasync (issue 37); ${CREATES.toLocaleString('en-US')} creates a round, ${BATCH} at a time, medians of ${ROUNDS} alternated rounds\n` +
      `  bare append's work   ${bareCpu.toFixed(1).padStart(6)} us CPU per create\n` +
      `  ours' core           ${oursCpu.toFixed(1).padStart(6)} us CPU per create (rounds: ${oursRuns.map((each) => each.toFixed(1)).join(', ')})\n` +
      `  bare / ours = ${(bareCpu / oursCpu).toFixed(2)}x\n`,
  );
} finally {
  fs.rmSync(workDir, { recursive: true, force: true });
}
