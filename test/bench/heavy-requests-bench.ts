// `make bench`: single requests that could hold the whole server (one Node thread) for long, each against the same
// request on plain text, in one run: how long each takes, and the longest another client waited meanwhile (it asks
// GET /health every 5 ms). Flags: --quick (one round instead of three).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createKey } from '../../src/auth/key-registry.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { keepAliveRequest } from './keep-alive-request.js';
import { median } from './load-plan.js';

const quick = process.argv.includes('--quick');
const OCCURRENCES = 500;

interface Timed {
  status: number;
  text: string;
  ms: number;
}

/** One request on a keep-alive agent, timed. */
async function request(server: SpawnedServer, agent: http.Agent, key: string, method: string, target: string, body?: unknown): Promise<Timed> {
  const started = performance.now();
  const answer = await keepAliveRequest(server, agent, key, method, target, body === undefined ? undefined : JSON.stringify(body));
  return { ...answer, ms: performance.now() - started };
}

/** Runs `work` while another client asks GET /health every 5 ms; returns the work's time and that client's longest wait. */
async function probed(server: SpawnedServer, key: string, work: () => Promise<Timed>): Promise<{ ms: number; othersMs: number; answer: Timed }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let running = true;
  let othersMs = 0;
  const other = (async () => {
    while (running) {
      const { ms } = await request(server, agent, key, 'GET', '/health');
      othersMs = Math.max(othersMs, ms);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 20));
  const answer = await work();
  running = false;
  await other;
  agent.destroy();
  return { ms: answer.ms, othersMs, answer };
}

function seriesBody(description: string, title = 'Lecture course'): Record<string, unknown> {
  return {
    title,
    description,
    category: 'academic',
    location: 'Science Building 1, room 101',
    start_time: '2030-01-07T09:00:00Z',
    end_time: '2030-01-07T10:30:00Z',
    capacity: 120,
    time_zone: 'Europe/Berlin',
    recurrence: `FREQ=DAILY;COUNT=${OCCURRENCES}`,
  };
}

/**
 * `count` six-letter words whose FNV-1a hashes from its published start share bits 6 to 19: one place in a table of up
 * to a million cells for the hash this server used before each process got its own start (found by trying words in
 * turn, about 16,000 tries a word).
 */
function collidingWords(count: number): string[] {
  const words: string[] = [];
  for (let n = 0; words.length < count; n++) {
    let text = '';
    let hash = 0x811c9dc5;
    for (let i = 0, rest = n; i < 6; i++, rest = Math.floor(rest / 26)) {
      const unit = 0x61 + (rest % 26);
      text += String.fromCharCode(unit);
      hash = Math.imul(hash ^ unit, 0x01000193);
    }
    if (((hash >>> 6) & 0x3fff) !== 0) continue;
    words.push(text);
  }
  return words;
}

interface Row {
  name: string;
  heavy: { ms: number; othersMs: number }[];
  plain: { ms: number; othersMs: number }[];
}

async function oneRound(rows: Map<string, Row>, round: number): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'campus-heavy-bench-'));
  const key = (await createKey(dir, { name: 'Bench', email: 'bench-heavy@campus.local', role: 'admin' }, { randomBytes, now: Date.now })).secret;
  const server = await spawnServer(['--port', '0', '--data-dir', dir, '--rate-limit', '1000000000', '--log-level', 'warn']);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const note = (name: string, side: 'heavy' | 'plain', figure: { ms: number; othersMs: number }): void => {
    const row = rows.get(name) ?? { name, heavy: [], plain: [] };
    row[side].push(figure);
    rows.set(name, row);
  };
  const call = (method: string, target: string, body?: unknown) => () => request(server, agent, key, method, target, body);
  const ok = (answer: Timed, what: string): Timed => {
    if (answer.status >= 300) throw new Error(`${what} answered ${answer.status}: ${answer.text.slice(0, 200)}`);
    return answer;
  };
  try {
    // Two series of 500: one with a 20 KB description of emoji (20,000 bytes of UTF-8, 5,000 characters), one plain.
    const cjkQuery = Array.from({ length: 200 }, (_, n) => String.fromCodePoint(0x4e10 + n)).join('');
    const heavyText = '😀'.repeat(4_000) + ' ' + '一'.repeat(790) + cjkQuery;
    const plainText = 'An introduction to the methods of the field, with weekly readings.';
    const heavy = await probed(server, key, call('POST', '/series', seriesBody(heavyText)));
    const heavyId = (JSON.parse(ok(heavy.answer, 'POST /series').text) as { id: string }).id;
    const plain = await probed(server, key, call('POST', '/series', seriesBody(plainText)));
    const plainId = (JSON.parse(ok(plain.answer, 'POST /series').text) as { id: string }).id;
    note('POST /series, 500 occurrences', 'heavy', heavy);
    note('POST /series, 500 occurrences', 'plain', plain);
    for (const [name, body] of [
      ['PUT /series/{id} description', (text: string) => ({ description: text.replace('😀', '😁') })],
      ['PUT /series/{id} title and capacity', () => ({ title: 'Lecture course, new title', capacity: 130 })],
      ['PUT /series/{id} start moved an hour', () => ({ start_time: '2030-01-07T10:00:00Z', end_time: '2030-01-07T11:30:00Z' })],
    ] as const) {
      note(name, 'heavy', await probed(server, key, async () => ok(await call('PUT', `/series/${heavyId}`, body(heavyText))(), name)));
      note(name, 'plain', await probed(server, key, async () => ok(await call('PUT', `/series/${plainId}`, body(plainText))(), name)));
    }
    const q = encodeURIComponent(cjkQuery);
    note('GET /events?series_id=…&q= (200 words)', 'heavy', await probed(server, key, call('GET', `/events?series_id=${heavyId}&q=${q}&limit=1`)));
    note('GET /events?series_id=…&q= (200 words)', 'plain', await probed(server, key, call('GET', `/events?series_id=${plainId}&q=readings&limit=1`)));
    note('GET /events.ics, 1,000 events', 'heavy', await probed(server, key, call('GET', '/events.ics?start_date=2030-01-01')));
    note('GET /events.ics, 1,000 events', 'plain', await probed(server, key, call('GET', `/events.ics?start_date=2030-01-01&q=readings`)));
    // Six series of new words that shared a place in the table of the hash the server used before: each slowed the next.
    const collided: { ms: number; othersMs: number }[] = [];
    for (let n = 0; n < 6; n++) collided.push(await probed(server, key, call('POST', '/series', seriesBody(words.slice(700 * n, 700 * (n + 1)).join(' '), `Colliding ${n}`))));
    note('POST /series of 700 colliding words, the 6th', 'heavy', collided.at(-1)!);
    note('POST /series of 700 colliding words, the 6th', 'plain', collided[0]!);
  } finally {
    agent.destroy();
    await server.stop('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
  process.stderr.write(`[heavy requests bench] round ${round + 1} done\n`);
}

const words = collidingWords(6 * 700);
const rows = new Map<string, Row>();
for (let round = 0; round < (quick ? 1 : 3); round++) await oneRound(rows, round);
const fmt = (ms: number): string => `${ms.toFixed(0)} ms`;
console.log('');
console.log('Single heavy requests against the same request on plain text (medians; "others" is the longest wait of a client asking GET /health meanwhile)');
console.log('');
console.log('| request | heavy: time, others | plain: time, others | time heavy ÷ plain |');
console.log('|---|--:|--:|--:|');
for (const row of rows.values()) {
  const heavyMs = median(row.heavy.map((figure) => figure.ms));
  const plainMs = median(row.plain.map((figure) => figure.ms));
  console.log(`| ${row.name} | ${fmt(heavyMs)}, ${fmt(median(row.heavy.map((figure) => figure.othersMs)))} | ${fmt(plainMs)}, ${fmt(median(row.plain.map((figure) => figure.othersMs)))} | ${(heavyMs / plainMs).toFixed(1)}× |`);
}
