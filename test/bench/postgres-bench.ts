// `make bench`, PostgreSQL part (API.md §12): the PostgreSQL store against the file store in one run on this machine.
// Reads by CPU per request (target ≥ 0.9× the file store's), durable writes at 64 clients (≥ 0.5×), and the p99 of a
// write on one instance reaching another's change stream. Skipped (with a line saying so) when no PostgreSQL can start.
import { readFileSync } from 'node:fs';
import { tempDir } from '../helpers/harness.js';
import { postgresMissing, startPostgres } from '../helpers/postgres-server.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { newEvent } from '../helpers/instances.js';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 3);

const missing = postgresMissing();
if (missing !== undefined) {
  process.stdout.write(`postgres bench: skipped (${missing})\n`);
  process.exit(0);
}

/** CPU time (user + system) of a process so far, in ms, from /proc. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

function call(server: SpawnedServer, key: string, method: string, target: string, body?: unknown): Promise<Response> {
  return fetch(`${server.url}${target}`, { method, headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

/** `clients` loops sending `request(n)` for SECONDS: requests per second and the server's CPU ms per request. */
async function load(server: SpawnedServer, clients: number, request: (n: number) => Promise<Response>): Promise<{ perSecond: number; cpuPerRequest: number }> {
  let done = 0;
  let n = 0;
  const cpuBefore = cpuMs(server.child.pid!);
  const start = performance.now();
  const deadline = start + SECONDS * 1000;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (performance.now() < deadline) {
      const answer = await request(n++);
      await answer.arrayBuffer();
      if (answer.status >= 300) throw new Error(`${answer.status} from ${server.url}: the bench measures successful requests only`);
      done++;
    }
  }));
  const seconds = (performance.now() - start) / 1000;
  return { perSecond: done / seconds, cpuPerRequest: (cpuMs(server.child.pid!) - cpuBefore) / done };
}

// fsync on, synchronous_commit on: PostgreSQL's commits are as durable as the file store's fdatasync.
const pg = await startPostgres({ fsync: true });
const { dir, remove } = tempDir();
const servers: SpawnedServer[] = [];
try {
  const url = await pg.createDatabase('bench');
  const args = ['--port', '0', '--rate-limit', '1000000000', '--console', 'off', '--log-level', 'warn'];
  const file = await spawnServer([...args, '--data-dir', dir]);
  const pgA = await spawnServer([...args, '--store', url]);
  const pgB = await spawnServer([...args, '--store', url]);
  servers.push(file, pgA, pgB);
  const keyOf = (server: SpawnedServer): string => /"key":"(cek_[A-Za-z0-9_-]+)"/.exec(server.stderr())![1]!;
  const fileKey = keyOf(file);
  const pgKey = keyOf(pgA);
  const ids = new Map<SpawnedServer, string[]>();
  for (const [server, key] of [[file, fileKey], [pgA, pgKey]] as const) {
    const made: string[] = [];
    for (let n = 0; n < 500; n++) {
      const created = await call(server, key, 'POST', '/events', newEvent(n, 100_000));
      if (created.status !== 201) throw new Error(`seeding: POST /events answered ${created.status}: ${await created.text()}`);
      made.push(((await created.json()) as { id: string }).id);
    }
    ids.set(server, made);
  }
  const rows: string[] = [];
  const compare = async (name: string, clients: number, measure: 'cpu' | 'rate', target: number, request: (server: SpawnedServer, key: string, n: number) => Promise<Response>): Promise<void> => {
    const base = await load(file, clients, (n) => request(file, fileKey, n));
    const ours = await load(pgA, clients, (n) => request(pgA, pgKey, n));
    const ratio = measure === 'cpu' ? base.cpuPerRequest / ours.cpuPerRequest : ours.perSecond / base.perSecond;
    const figure = (result: typeof base): string => (measure === 'cpu' ? `${result.cpuPerRequest.toFixed(3)} ms CPU/req` : `${Math.round(result.perSecond)} req/s`);
    rows.push(`${name.padEnd(34)} file ${figure(base).padEnd(22)} postgres ${figure(ours).padEnd(22)} ${ratio.toFixed(2)}× (target ≥ ${target}×) ${ratio >= target ? 'PASS' : 'MISS'}`);
  };
  await compare('GET /events/{id}, 16 clients', 16, 'cpu', 0.9, (server, key, n) => call(server, key, 'GET', `/events/${ids.get(server)![n % 500]}`));
  await compare('GET /events?limit=50&page=3', 16, 'cpu', 0.9, (server, key) => call(server, key, 'GET', '/events?limit=50&page=3'));
  await compare('durable POST /events, 64 clients', 64, 'rate', 0.5, (server, key, n) => call(server, key, 'POST', '/events', newEvent(n)));
  await compare('registrations, 64 clients', 64, 'rate', 0.5, (server, key, n) => call(server, key, 'POST', `/events/${ids.get(server)![n % 500]}/registrations`, { name: `P ${n}`, email: `p${n}@bench.example` }));

  // Propagation: a write on A, its entry on B's change stream; 200 writes one after another.
  const stream = await fetch(`${pgB.url}/changes?since=1`, { headers: { authorization: `Bearer ${pgKey}`, accept: 'text/event-stream' } });
  const reader = stream.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const times: number[] = [];
  for (let n = 0; n < 200; n++) {
    const sentAt = performance.now();
    const { id } = (await (await call(pgA, pgKey, 'POST', '/events', newEvent(n))).json()) as { id: string };
    while (!text.includes(id)) text += decoder.decode((await reader.read()).value);
    times.push(performance.now() - sentAt);
    text = text.slice(text.lastIndexOf(id));
  }
  await reader.cancel();
  times.sort((a, b) => a - b);
  const p99 = times[Math.floor(times.length * 0.99) - 1]!;
  rows.push(`${'write on A → B\'s change stream'.padEnd(34)} p50 ${times[100]!.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms (POST answered included; target < 1000 ms) ${p99 < 1000 ? 'PASS' : 'MISS'}`);
  process.stdout.write(`\nPostgreSQL store vs file store (${SECONDS} s each, same machine, same run)\n${rows.join('\n')}\n`);
} finally {
  await Promise.all(servers.map((server) => server.stop()));
  pg.stop();
  remove();
}
