// `make bench` (after run.ts): the server CPU of one 500-occurrence series against 500 single POSTs, and list figures with series.
// Flags: --quick (fewer rounds and requests, for trying it out).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createKey } from '../../src/auth/key-registry.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { CREATE_BODY, generateData, logLines } from './data-generator.js';
import { keepAliveRequest as request } from './keep-alive-request.js';
import { processCpuMs } from './server-process.js';

const quick = process.argv.includes('--quick');
const OCCURRENCES = 500;
const SERIES_IN_LIST = 20;

function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

function seriesBody(n: number): string {
  // Spread over the generated events' two years, as a campus's courses are: about one event in ten of any page is an occurrence.
  const start = Date.UTC(2026, 0, 1 + (n % 40) * 11, 8 + (n % 10));
  return JSON.stringify({
    title: `Lecture course ${n}`,
    category: 'academic',
    location: 'Science Building 1, room 101',
    start_time: new Date(start).toISOString(),
    end_time: new Date(start + 5_400_000).toISOString(),
    capacity: 120,
    time_zone: 'Europe/Berlin',
    recurrence: `FREQ=DAILY;COUNT=${OCCURRENCES}`,
  });
}


async function adminKey(dir: string): Promise<string> {
  return (await createKey(dir, { name: 'Bench', email: 'bench-series@campus.local', role: 'admin' }, { randomBytes, now: Date.now })).secret;
}

/** Server CPU (ms) of 500 single POST /events, then of one 500-occurrence POST /series, on one durable server, `rounds` times alternated. */
async function creationRounds(rounds: number): Promise<{ singles: number[]; series: number[]; seriesLines: number[] }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'campus-series-bench-'));
  const key = await adminKey(dir);
  const server = await spawnServer(['--port', '0', '--data-dir', dir, '--rate-limit', '1000000000', '--log-level', 'warn']);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const result = { singles: [] as number[], series: [] as number[], seriesLines: [] as number[] };
  try {
    await request(server, agent, key, 'POST', '/series', seriesBody(999)); // warm-up
    for (let round = 0; round < rounds; round++) {
      let before = processCpuMs(server.child.pid!);
      for (let n = 0; n < OCCURRENCES; n++) {
        const { status } = await request(server, agent, key, 'POST', '/events', CREATE_BODY);
        if (status !== 201) throw new Error(`POST /events answered ${status}`);
      }
      result.singles.push(processCpuMs(server.child.pid!) - before);
      const linesBefore = logLines(dir);
      before = processCpuMs(server.child.pid!);
      const { status, text } = await request(server, agent, key, 'POST', '/series', seriesBody(round));
      if (status !== 201) throw new Error(`POST /series answered ${status}: ${text}`);
      result.series.push(processCpuMs(server.child.pid!) - before);
      result.seriesLines.push(logLines(dir) - linesBefore);
      process.stderr.write(`[series bench] round ${round + 1}: 500 POST /events ${result.singles.at(-1)} ms CPU, one 500-occurrence POST /series ${result.series.at(-1)} ms CPU\n`);
    }
  } finally {
    agent.destroy();
    await server.stop('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return result;
}

/** Server CPU (µs) per list request of each kind, on a folder of 100,000 events, `withSeries` of them occurrences of 20 series. */
async function listFigures(withSeries: boolean, requests: number): Promise<Record<string, number>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'campus-series-list-bench-'));
  const data = await generateData(dir, withSeries ? 100_000 - SERIES_IN_LIST * OCCURRENCES : 100_000);
  const server = await spawnServer(['--port', '0', '--data-dir', dir, '--rate-limit', '1000000000', '--log-level', 'warn']);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    let seriesId = '';
    if (withSeries) {
      for (let n = 0; n < SERIES_IN_LIST; n++) {
        const { status, text } = await request(server, agent, data.secret, 'POST', '/series', seriesBody(n));
        if (status !== 201) throw new Error(`POST /series answered ${status}: ${text}`);
        seriesId = (JSON.parse(text) as { id: string }).id;
      }
    }
    const kinds: Record<string, string> = {
      'first page': '/events?limit=50',
      'filtered page 10': '/events?category=academic&start_date=2026-03-01&end_date=2027-06-30&limit=50&page=10',
    };
    if (withSeries) kinds['series page 5'] = `/events?series_id=${seriesId}&limit=50&page=5`;
    const figures: Record<string, number> = {};
    for (const [kind, target] of Object.entries(kinds)) {
      for (let n = 0; n < 50; n++) await request(server, agent, data.secret, 'GET', target); // warm-up
      const before = processCpuMs(server.child.pid!);
      for (let n = 0; n < requests; n++) {
        const { status } = await request(server, agent, data.secret, 'GET', target);
        if (status !== 200) throw new Error(`GET ${target} answered ${status}`);
      }
      figures[kind] = ((processCpuMs(server.child.pid!) - before) * 1000) / requests;
    }
    return figures;
  } finally {
    agent.destroy();
    await server.stop('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const created = await creationRounds(quick ? 2 : 5);
const singles = median(created.singles);
const series = median(created.series);
const ratio = series / singles;
const requests = quick ? 500 : 2000;
const plain: Record<string, number>[] = [];
const mixed: Record<string, number>[] = [];
for (let round = 0; round < (quick ? 1 : 3); round++) {
  // Alternated, so drift in the machine's load hits both sides alike.
  plain.push(await listFigures(false, requests));
  mixed.push(await listFigures(true, requests));
}
const figure = (runs: Record<string, number>[], kind: string): number => median(runs.map((run) => run[kind]!));
const lines = [
  '',
  `series: server CPU to create one ${OCCURRENCES}-occurrence series vs ${OCCURRENCES} single POST /events (durable, same server, median of ${created.series.length} alternated rounds)`,
  `  ${OCCURRENCES} POST /events ${singles.toFixed(0)} ms   one POST /series ${series.toFixed(0)} ms   ratio ${ratio.toFixed(3)} (target <= 0.25) ${ratio <= 0.25 ? 'PASS' : 'MISS'}`,
  `  log lines written by one POST /series: ${median(created.seriesLines)} (one atomic line: one write, one fdatasync)`,
  `series: list requests on 100,000 events, ${SERIES_IN_LIST * OCCURRENCES} of them occurrences of ${SERIES_IN_LIST} series, vs 100,000 one-off events (server CPU per request, median of ${plain.length} alternated runs of ${requests})`,
];
for (const kind of ['first page', 'filtered page 10']) {
  const without = figure(plain, kind);
  const withSeries = figure(mixed, kind);
  const change = withSeries / without;
  lines.push(`  ${kind.padEnd(18)} without series ${without.toFixed(0).padStart(5)} µs   with series ${withSeries.toFixed(0).padStart(5)} µs   ratio ${change.toFixed(2)} (target <= 1.15, noise) ${change <= 1.15 ? 'PASS' : 'MISS'}`);
}
lines.push(`  ${'series page 5'.padEnd(18)} ${figure(mixed, 'series page 5').toFixed(0)} µs (GET /events?series_id=…&page=5)`);
process.stdout.write(`${lines.join('\n')}\n`);
