// Registration scenarios: durable registrations per second on one event against durable POST /events, and a campus at scale (bench-full).
import fs from 'node:fs';
import path from 'node:path';
import { type BenchContext, measure, planFor, repeat, ROOT, startOurs } from './bench-context.js';
import type { LoadRow } from './bench-results.js';
import { copyData, CREATE_BODY, type BenchData } from './data-generator.js';
import { median } from './load-plan.js';
import { generateCampus } from './registration-data.js';
import { runNodeLoad } from './load-generator.js';
import { WRITE_CLIENTS } from './write-scenarios.js';
import { spawn } from 'node:child_process';

/** The seats of the event the write scenario registers for: enough that every registration of the run is confirmed. */
const SEATS = 100_000;
const ATTENDEE_BODY = '{"name":"Benchmark attendee","email":"attendee{{n}}@campus.example"}';

/** What the campus at scale measured (bench-full). */
export interface CampusFigure {
  events: number;
  registrations: number;
  generateMs: number;
  startupMs: number;
  rssMiB: number;
  /** Heap held per registration: a store of the events with them, less the same events alone. */
  heapBytesPerRegistration: number;
  /** Log bytes per registration: the log with them, less the same events alone. */
  diskBytesPerRegistration: number;
  bigSeats: number;
  attendeeListP99Ms: number;
}

const rateOf = (row: LoadRow | undefined): number => (row === undefined ? NaN : median(row.ours.map((run) => run.requestsPerSecond)));

/**
 * Durable registrations on one event (64 clients, each request a new e-mail) alternated with durable POST /events on the
 * same server, through the same generator, so the ratio compares the two write paths alone. Every run registers for a new event.
 */
export async function registrationWriteScenario(context: BenchContext, data: BenchData): Promise<LoadRow> {
  const row: LoadRow = { key: 'register', scenario: 'POST /events/{id}/registrations, one event', events: data.events, clients: WRITE_CLIENTS, oursLabel: 'ours durable', ours: [], notes: [] };
  const copy = copyData(data, path.join(context.workDir, 'register'));
  const server = await startOurs(context, copy, { name: 'ours registrations' });
  const authorization = `Bearer ${data.secret}`;
  try {
    const common = { paths: [], concurrency: WRITE_CLIENTS, authorization };
    const post = planFor(context, server.url, { ...common, post: { path: '/events', body: CREATE_BODY, every: 1 } });
    const generator = { ...context, runLoad: runNodeLoad };
    let confirmed = 0;
    // A B A B …, each registration run on a new event: a fast run must never meet the waitlist bound (409).
    for (let round = 1; round <= context.rounds; round++) {
      const eventId = await createEvent(server.url, authorization);
      const register = planFor(context, server.url, { ...common, post: { path: `/events/${eventId}/registrations`, body: ATTENDEE_BODY, every: 1 } });
      row.ours.push(await measure(generator, { plan: register, server }));
      const baseline = await measure(generator, { plan: post, server });
      row.baseline = { label: 'POST /events durable', runs: [...(row.baseline?.runs ?? []), baseline] };
      const seats = (await (await fetch(`${server.url}/events/${eventId}`, { headers: { authorization } })).json()) as { registered_count: number };
      confirmed += seats.registered_count;
      const last = row.ours.at(-1)!;
      context.progress(`registrations vs POST /events (durable, same server) round ${round}: ${Math.round(last.requestsPerSecond)} vs ${Math.round(baseline.requestsPerSecond)} req/s, server CPU ${last.serverCpuMicros?.toFixed(0)} vs ${baseline.serverCpuMicros?.toFixed(0)} us/request`);
    }
    row.notes.push(`${confirmed} registrations confirmed over ${context.rounds} events of ${SEATS.toLocaleString('en-US')} seats (warm-ups included); both sides: node keep-alive generator, a new e-mail per request, one server`);
  } finally {
    await server.stop();
  }
  return row;
}

/** Creates an event of SEATS seats in 2030 and returns its id. */
async function createEvent(url: string, authorization: string): Promise<string> {
  const created = await fetch(`${url}/events`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ ...JSON.parse(CREATE_BODY), capacity: SEATS, start_time: '2030-10-01T18:00:00Z', end_time: '2030-10-01T21:00:00Z' }),
  });
  if (created.status !== 201) throw new Error(`creating the registration event: ${created.status} ${await created.text()}`);
  return ((await created.json()) as { id: string }).id;
}

/** A campus of 100,000 events holding 2,000,000 registrations: start-up, RSS, bytes per registration, the attendee list of a 5,000-seat event. */
export async function campusScenario(context: BenchContext, events = 100_000, registrations = 2_000_000, bigSeats = 5_000): Promise<{ row: LoadRow; figure: CampusFigure }> {
  const generatedAt = performance.now();
  const data = await generateCampus(path.join(context.workDir, 'campus'), path.join(context.workDir, 'campus-events-only'), events, registrations, bigSeats);
  const generateMs = performance.now() - generatedAt;
  const logBytes = (dir: string): number => fs.statSync(path.join(dir, 'events.jsonl')).size;
  const diskBytesPerRegistration = (logBytes(data.dir) - logBytes(data.eventsOnly.dir)) / data.registrations;
  context.progress(`generated ${events} events with ${data.registrations} registrations in ${Math.round(generateMs)} ms (${(logBytes(data.dir) / 1048576).toFixed(0)} MiB of log)`);
  const scenario = `GET attendee list of a ${bigSeats.toLocaleString('en-US')}-seat event, limit=100, pages 1-${bigSeats / 100}`;
  const row: LoadRow = { key: 'attendees-campus', scenario, events, clients: 10, oursLabel: 'ours', ours: [], notes: [] };
  const server = await startOurs(context, data, { name: 'ours campus' });
  const startupMs = server.startupMs;
  const rssMiB = server.rssMiB();
  context.progress(`start-up with ${events} events and ${data.registrations} registrations: ${Math.round(startupMs)} ms, RSS ${rssMiB.toFixed(0)} MiB`);
  try {
    const paths = Array.from({ length: bigSeats / 100 }, (_, k) => `/events/${data.bigEventId}/registrations?limit=100&page=${k + 1}`);
    const plan = planFor(context, server.url, { paths, concurrency: row.clients, authorization: `Bearer ${data.secret}` });
    row.ours = await repeat(context, 'attendee list of the big event', { plan, server }, 1);
  } finally {
    await server.stop();
  }
  const probe = JSON.parse(await runProbe([data.dir, data.eventsOnly.dir, context.distDir])) as { registrations: number; bytesPerRegistration: number };
  if (probe.registrations !== data.registrations) throw new Error(`the heap probe opened ${probe.registrations} registrations, expected ${data.registrations}`);
  for (const dir of [data.dir, data.eventsOnly.dir]) fs.rmSync(dir, { recursive: true, force: true });
  const figure: CampusFigure = {
    events,
    registrations: data.registrations,
    generateMs,
    startupMs,
    rssMiB,
    heapBytesPerRegistration: probe.bytesPerRegistration,
    diskBytesPerRegistration,
    bigSeats,
    attendeeListP99Ms: median(row.ours.map((run) => run.p99Ms)),
  };
  row.notes.push(campusLine(figure));
  return { row, figure };
}

function campusLine(figure: CampusFigure): string {
  return (
    `${figure.events.toLocaleString('en-US')} events holding ${figure.registrations.toLocaleString('en-US')} registrations: start-up ${(figure.startupMs / 1000).toFixed(1)} s, ` +
    `RSS ${Math.round(figure.rssMiB)} MiB, ${Math.round(figure.heapBytesPerRegistration)} B of heap and ${Math.round(figure.diskBytesPerRegistration)} B of log per registration; ` +
    `attendee list of the ${figure.bigSeats.toLocaleString('en-US')}-seat event p99 ${figure.attendeeListP99Ms.toFixed(2)} ms; generated in ${(figure.generateMs / 1000).toFixed(1)} s`
  );
}

/** The registration figures and the target, as lines for the end of the report. */
export function registrationReport(rows: readonly LoadRow[], campus: CampusFigure | undefined): string {
  const register = rows.find((row) => row.key === 'register');
  const lines = ['registrations (issue 10)'];
  if (register?.baseline !== undefined) {
    const ours = rateOf(register);
    const baseline = median(register.baseline.runs.map((run) => run.requestsPerSecond));
    const ratio = ours / baseline;
    const cpu = (runs: readonly { serverCpuMicros?: number }[]): number => median(runs.map((run) => run.serverCpuMicros ?? NaN));
    const cpuRatio = cpu(register.baseline.runs) / cpu(register.ours);
    const post = rows.find((row) => row.key === 'post');
    const againstPostRow = post === undefined ? '' : `; against the POST /events row of this run (${Math.round(rateOf(post))} req/s, its own generator): ${(ours / rateOf(post)).toFixed(2)}x`;
    lines.push(
      `  ${ratio >= 0.8 ? 'PASS' : 'MISS'}  durable registrations at ${register.clients} clients on one event >= 0.8x durable POST /events: ` +
        `${Math.round(ours)} vs ${Math.round(baseline)} req/s, ${ratio.toFixed(2)}x (by server CPU per request: ${cpuRatio.toFixed(2)}x)${againstPostRow}`,
    );
  }
  lines.push(campus === undefined ? '  campus at scale (100,000 events, 2,000,000 registrations): needs make bench-full' : `  ${campusLine(campus)}`);
  return `${lines.join('\n')}\n`;
}

/** Runs the heap probe with --expose-gc and returns its stdout. */
function runProbe(args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', path.join(ROOT, 'test/bench/registration-heap-probe.ts'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`registration-heap-probe.ts exited with ${code}: ${err.trim()}`))));
  });
}
