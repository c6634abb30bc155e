// `make bench`, PostgreSQL start-up (API.md §12, "History is bounded"): a throwaway cluster filled with BENCH_PG_WRITES
// writes (default 2,000,000) leaving BENCH_PG_LIVE live events (default 100,000), rows made by the store's own line
// encoder and copied in bulk (psql's COPY); then `node dist/server.js` timed from spawn to its listening line and to a
// first answered request, with its RSS, without a checkpoint (every row replayed: the baseline, measured in the same
// run, on the first BENCH_PG_BASELINE_WRITES writes when set) and from the checkpoint an instance wrote by itself
// (BENCH_PG_RUNS starts). The writes are creates, renames and deletions of events (a deleted event's slot is taken by a
// new one). fsync is off on this cluster (as in the tests): start-up reads, and the figures are of reading.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { loadavg } from 'node:os';
import { connect } from '../../src/store/postgres/client.js';
import { migrateSchema } from '../../src/store/postgres/schema.js';
import { encodeDelete, encodePut } from '../../src/store/records/encode-record.js';
import type { EventRecord } from '../../src/events/event.js';
import { postgresBinDir, postgresMissing, startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { SERVER } from '../helpers/spawn.js';
import { mulberry32 } from '../helpers/random.js';
import { benchEventAt } from './data-generator.js';
import { median } from './load-plan.js';
import { residentMiB } from './server-process.js';

const WRITES = Number(process.env['BENCH_PG_WRITES'] ?? 2_000_000);
const LIVE = Number(process.env['BENCH_PG_LIVE'] ?? 100_000);
const BASELINE_WRITES = Number(process.env['BENCH_PG_BASELINE_WRITES'] ?? WRITES);
const RUNS = Number(process.env['BENCH_PG_RUNS'] ?? 3);
/** The goal of API.md §12: serving within 10 s. */
const GOAL_MS = 10_000;

const missing = postgresMissing();
if (missing !== undefined) {
  process.stdout.write(`postgres start-up bench: skipped (${missing})\n`);
  process.exit(0);
}

const progress = (line: string): void => void process.stderr.write(`  ${line}\n`);

/** psql beside initdb, else on the PATH: its COPY is the fastest way in for millions of rows. */
function psqlPath(): string {
  const beside = path.join(postgresBinDir() ?? '', 'psql');
  return existsSync(beside) ? beside : 'psql';
}

/**
 * Inserts `writes` writes into campus_log through `COPY … FROM STDIN` (psql, fed as CSV): `live` creates, then renames
 * of a random live event (90 %), or the deletion of one and the creation of another in its slot (two writes), so
 * `live` events are left. Returns the rows and bytes inserted.
 */
async function fill(server: PostgresServer, database: string, writes: number, live: number): Promise<{ rows: number; bytes: number; ms: number }> {
  const random = mulberry32(20_260_412);
  const records: EventRecord[] = [];
  const started = performance.now();
  const psql = spawn(psqlPath(), ['-h', '127.0.0.1', '-p', String(server.port), '-U', 'postgres', '-d', database, '-v', 'ON_ERROR_STOP=1', '-q', '-c', 'COPY campus_log (seq, line) FROM STDIN WITH (FORMAT csv)'], { stdio: ['pipe', 'ignore', 'pipe'] });
  let err = '';
  psql.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => psql.on('exit', resolve));
  let bytes = 0;
  let chunk = '';
  const add = async (seq: number, line: string): Promise<void> => {
    bytes += Buffer.byteLength(line);
    // A CSV field in double quotes holds the line whole, its newline included; a quote inside is doubled.
    chunk += `${seq},"${line.replace(/"/g, '""')}"\n`;
    if (chunk.length > 1 << 20) {
      if (!psql.stdin.write(chunk)) await new Promise((resolve) => psql.stdin.once('drain', resolve));
      chunk = '';
    }
    if (seq % 500_000 === 0) progress(`filled ${seq} of ${writes} writes (${Math.round((performance.now() - started) / 1000)} s)`);
  };
  let made = 0;
  for (let seq = 1; seq <= writes; seq++) {
    if (seq <= live) {
      records.push(benchEventAt(made++, random));
      await add(seq, encodePut(seq, records[seq - 1]!));
      continue;
    }
    const slot = Math.floor(random() * live);
    const current = records[slot]!;
    if (random() < 0.9 || seq === writes) {
      records[slot] = { ...current, title: `${current.title.replace(/ \(rev \d+\)$/, '')} (rev ${seq})` };
      await add(seq, encodePut(seq, records[slot]));
    } else {
      await add(seq, encodeDelete(seq, current.id));
      records[slot] = benchEventAt(made++, random);
      await add(++seq, encodePut(seq, records[slot]));
    }
  }
  psql.stdin.end(chunk);
  if ((await exited) !== 0) throw new Error(`psql COPY failed: ${err}`);
  return { rows: writes, bytes, ms: performance.now() - started };
}

/** One start of the server: spawn to listening, to a first answered request, its RSS and CPU then. */
interface Start {
  listeningMs: number;
  servingMs: number;
  rssMiB: number;
  liveEvents: number;
}

/** The admin key of each database: printed by the first start on it, which makes it. */
const keys = new Map<string, string>();

/** Starts `node dist/server.js` on `url`, times it, and stops it (after `whileRunning`, when given). */
async function timeStart(url: string, extraArgs: string[], whileRunning?: () => Promise<void>): Promise<Start> {
  const started = performance.now();
  const child = spawn(process.execPath, [SERVER, '--store', url, '--port', '0', '--console', 'off', '--rate-limit', '1000000', ...extraArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  try {
    const baseUrl = await new Promise<string>((resolve, reject) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        const match = /^listening on (http:\/\/\S+)\n/m.exec(out);
        if (match !== null) resolve(match[1]!);
      });
      void exited.then(() => reject(new Error(`the server exited before listening: ${err}`)));
    });
    const listeningMs = performance.now() - started;
    const made = /"key":"(cek_[A-Za-z0-9_-]+)"/.exec(err)?.[1];
    if (made !== undefined) keys.set(url, made);
    const key = keys.get(url) ?? '';
    const answer = await fetch(`${baseUrl}/events?limit=1`, { headers: { authorization: `Bearer ${key}` } });
    const body = (await answer.json()) as { total?: number };
    if (answer.status !== 200) throw new Error(`GET /events answered ${answer.status}: ${JSON.stringify(body)}`);
    const servingMs = performance.now() - started;
    const rssMiB = residentMiB(child.pid!);
    if (whileRunning !== undefined) await whileRunning();
    return { listeningMs, servingMs, rssMiB, liveEvents: body.total ?? NaN };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const databaseOf = (url: string): string => url.slice(url.lastIndexOf('/') + 1);
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

const pg = await startPostgres();
try {
  const url = await pg.createDatabase('startup');
  const db = await connect(url);
  await migrateSchema(db);
  process.stdout.write(`PostgreSQL start-up: ${WRITES.toLocaleString('en')} writes leaving ${LIVE.toLocaleString('en')} live events (load average ${loadavg()[0]!.toFixed(1)})\n`);
  const filled = await fill(pg, databaseOf(url), WRITES, LIVE);
  process.stdout.write(`  filled ${filled.rows.toLocaleString('en')} rows, ${(filled.bytes / 2 ** 20).toFixed(0)} MiB, in ${seconds(filled.ms)}\n`);

  // The baseline: every row replayed (no checkpoint: the threshold out of reach), on the same rows or the first of them.
  let baselineUrl = url;
  if (BASELINE_WRITES < WRITES) {
    baselineUrl = await pg.createDatabase('startup_baseline');
    const baselineDb = await connect(baselineUrl);
    await migrateSchema(baselineDb);
    await baselineDb.end();
    await fill(pg, databaseOf(baselineUrl), BASELINE_WRITES, LIVE);
  }
  const baseline = await timeStart(baselineUrl, ['--compact-min-bytes', String(Number.MAX_SAFE_INTEGER)]);
  progress(`no checkpoint, ${BASELINE_WRITES} rows replayed: listening ${seconds(baseline.listeningMs)}, serving ${seconds(baseline.servingMs)}, RSS ${baseline.rssMiB.toFixed(0)} MiB`);

  // An instance with the default threshold writes the checkpoint by itself once it has read the log (over 64 MiB, mostly superseded).
  const checkpointStarted = performance.now();
  let written = '';
  await timeStart(url, [], async () => {
    for (;;) {
      const [row] = await db.query<{ seq: number | null; lines: number; bytes: number }>('SELECT seq::float8 AS seq, lines::float8 AS lines, bytes::float8 AS bytes FROM campus_checkpoints ORDER BY seq DESC LIMIT 1');
      if (row?.seq !== null && row?.seq !== undefined) {
        written = `checkpoint at seq ${row.seq}: ${row.lines} lines, ${(row.bytes / 2 ** 20).toFixed(0)} MiB`;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });
  const [rows] = await db.query<{ rows: number; parts: number }>('SELECT (SELECT count(*)::int FROM campus_log) AS rows, (SELECT count(*)::int FROM campus_checkpoint_parts) AS parts');
  progress(`${written} (start, checkpoint and stop: ${seconds(performance.now() - checkpointStarted)}); rows left in campus_log: ${rows!.rows}, parts: ${rows!.parts}`);

  const starts: Start[] = [];
  for (let run = 1; run <= RUNS; run++) {
    const start = await timeStart(url, []);
    if (start.liveEvents !== LIVE) throw new Error(`the start from the checkpoint serves ${start.liveEvents} events, expected ${LIVE}`);
    starts.push(start);
    progress(`from the checkpoint, run ${run}: listening ${seconds(start.listeningMs)}, serving ${seconds(start.servingMs)}, RSS ${start.rssMiB.toFixed(0)} MiB`);
  }
  await db.end();
  const serving = median(starts.map((start) => start.servingMs));
  const listening = median(starts.map((start) => start.listeningMs));
  const rss = median(starts.map((start) => start.rssMiB));
  process.stdout.write(
    [
      `  without a checkpoint (${BASELINE_WRITES.toLocaleString('en')} rows replayed${BASELINE_WRITES < WRITES ? ', fewer rows than the history: the full replay takes too long' : ''}): listening ${seconds(baseline.listeningMs)}, serving ${seconds(baseline.servingMs)}, RSS ${baseline.rssMiB.toFixed(0)} MiB`,
      `  from the checkpoint (median of ${RUNS}): listening ${seconds(listening)}, serving ${seconds(serving)}, RSS ${rss.toFixed(0)} MiB`,
      `  serving: ${(serving / baseline.servingMs).toFixed(3)}× the baseline; goal ≤ ${seconds(GOAL_MS)}: ${serving <= GOAL_MS ? 'PASS' : 'FAIL'} (load average ${loadavg()[0]!.toFixed(1)})`,
    ].join('\n') + '\n',
  );
} finally {
  pg.stop();
}
