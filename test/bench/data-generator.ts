// Writes a bench data folder fast: events.jsonl lines straight from the store's encoder, and keys.json with one admin key.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { CATEGORIES, type EventRecord } from '../../src/events/event.js';
import { encodePut, encodeRegister } from '../../src/store/jsonl-record.js';
import { createKey } from '../../src/auth/key-registry.js';
import { mulberry32 } from '../helpers/random.js';

/** A generated folder and what the scenarios need to know about it. */
export interface BenchData {
  dir: string;
  events: number;
  /** The admin key's secret (for `Authorization: Bearer …`). */
  secret: string;
  /** Up to 1,000 stored ids spread over the whole log, for single reads. */
  sampleIds: string[];
  /** Registrations in the log (0 unless asked for). */
  registrations?: number;
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const FIRST_START_MS = Date.UTC(2026, 0, 1);
const QUARTER_HOURS_IN_TWO_YEARS = 2 * 365 * 96;


/** `prefix` + 22 base62 characters, like the service's ids. */
function randomId(prefix: string, random: () => number): string {
  let id = prefix;
  for (let c = 0; c < 22; c++) id += ALPHABET[Math.floor(random() * 62)];
  return id;
}

/** Event `i` of a run: ids look like the service's (`evt_` + 22 base62), starts spread over 2026–2027. */
function eventAt(i: number, random: () => number): EventRecord {
  const id = randomId('evt_', random);
  const start = FIRST_START_MS + Math.floor(random() * QUARTER_HOURS_IN_TWO_YEARS) * 900_000;
  const organizer = i % 500;
  return {
    id,
    title: `Seminar ${i}: reading group on distributed systems`,
    description: 'A weekly session where students and staff read one paper together and discuss it. Bring a laptop; coffee is provided.',
    category: CATEGORIES[i % CATEGORIES.length]!,
    location: `Science Building ${1 + (i % 12)}, room ${100 + (i % 250)}`,
    start_time: new Date(start).toISOString(),
    end_time: new Date(start + (1 + (i % 3)) * 3_600_000).toISOString(),
    capacity: 20 + (i % 200),
    // No registrations in the log, so none counted (replay checks that registered_count matches them).
    registered_count: 0,
    organizer: { name: `Organizer ${organizer}`, email: `organizer${organizer}@campus.example` },
    created_at: new Date(Date.UTC(2025, 11, 1) + i * 1000).toISOString(),
  };
}

/**
 * Writes `events` events and one admin key into a new folder `dir`. With `registrationsPerEvent`, every
 * event starts with no registration and that many confirmed ones follow as `reg` lines, the events
 * taken in a scattered order (as a log that was never compacted holds them); capacities are at least 20.
 */
export async function generateData(dir: string, events: number, registrationsPerEvent = 0): Promise<BenchData> {
  if (registrationsPerEvent > 20) throw new RangeError('generateData: at most 20 registrations per event (the smallest capacity)');
  fs.mkdirSync(dir, { recursive: true });
  const random = mulberry32(20_260_101);
  const every = Math.max(1, Math.floor(events / 1000));
  const sampleIds: string[] = [];
  const ids: string[] = [];
  const out = fs.openSync(path.join(dir, 'events.jsonl'), 'w');
  let seq = 0;
  let chunk = '';
  const append = (line: string): void => {
    chunk += line;
    if (chunk.length > 1 << 20) {
      fs.writeSync(out, chunk);
      chunk = '';
    }
  };
  try {
    for (let i = 0; i < events; i++) {
      const record = eventAt(i, random);
      if (i % every === 0 && sampleIds.length < 1000) sampleIds.push(record.id);
      if (registrationsPerEvent > 0) ids.push(record.id);
      append(encodePut(++seq, record));
    }
    const registrations = events * registrationsPerEvent;
    // A stride prime to the count visits every event once per round: each gets exactly registrationsPerEvent.
    const stride = strideFor(events);
    for (let r = 0; r < registrations; r++) {
      const eventId = ids[(r * stride) % events]!;
      const createdAt = new Date(Date.UTC(2025, 11, 15) + r * 100).toISOString();
      append(encodeRegister({ id: randomId('reg_', random), eventId, name: `Attendee ${r}`, email: `attendee${r}@campus.example`, status: 'confirmed', createdAt, checkedInAt: null, seq: ++seq }));
    }
    fs.writeSync(out, chunk);
  } finally {
    fs.closeSync(out);
  }
  const key = await createKey(dir, { name: 'Benchmark', email: 'bench@campus.local', role: 'admin' }, { randomBytes, now: Date.now });
  return { dir, events, secret: key.secret, sampleIds, registrations: events * registrationsPerEvent };
}

/** A step near 7/10 of `count` that shares no factor with it. */
function strideFor(count: number): number {
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  let stride = Math.max(1, Math.floor(count * 0.7));
  while (gcd(stride, count) !== 1) stride++;
  return stride;
}

/** A copy of a folder's log and keys in `dir`, for a second server (each server locks its own folder). */
export function copyData(data: BenchData, dir: string): BenchData {
  fs.mkdirSync(dir, { recursive: true });
  for (const file of ['events.jsonl', 'keys.json']) fs.copyFileSync(path.join(data.dir, file), path.join(dir, file));
  return { ...data, dir };
}

/** Lines in a folder's events.jsonl (how many writes a server made, counted after it stopped). */
export function logLines(dir: string): number {
  const bytes = fs.readFileSync(path.join(dir, 'events.jsonl'));
  let lines = 0;
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) lines++;
  return lines;
}

/** A valid create body: the same one every time (the server gives each its own id). */
export const CREATE_BODY = JSON.stringify({
  title: 'Benchmark social evening',
  description: 'Created by the benchmark.',
  category: 'social',
  location: 'Student Union, main hall',
  start_time: '2026-10-01T18:00:00Z',
  end_time: '2026-10-01T21:00:00Z',
  capacity: 150,
});
