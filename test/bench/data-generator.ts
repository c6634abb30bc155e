// Writes a bench data folder fast: events.jsonl lines straight from the store's encoder, and keys.json with one admin key.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { CATEGORIES, type EventRecord } from '../../src/events/event.js';
import { encodePut } from '../../src/store/records/encode-record.js';
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
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const FIRST_START_MS = Date.UTC(2026, 0, 1);
const QUARTER_HOURS_IN_TWO_YEARS = 2 * 365 * 96;


/** Event `i` of a run: ids look like the service's (`evt_` + 22 base62), starts spread over 2026–2027. */
export function benchEventAt(i: number, random: () => number): EventRecord {
  let id = 'evt_';
  for (let c = 0; c < 22; c++) id += ALPHABET[Math.floor(random() * 62)];
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
    registered_count: 0, // replay checks it against the registrations, and this log has none
    organizer: { name: `Organizer ${organizer}`, email: `organizer${organizer}@campus.example` },
    created_at: new Date(Date.UTC(2025, 11, 1) + i * 1000).toISOString(),
  };
}

/** Writes `events` events and one admin key into a new folder `dir`. */
export async function generateData(dir: string, events: number): Promise<BenchData> {
  const random = mulberry32(20_260_101);
  return writeBenchFolder(dir, events, (i) => benchEventAt(i, random));
}

/** Writes events `eventAt(0)` to `eventAt(events - 1)` as a log, and one admin key, into a new folder `dir`. */
export async function writeBenchFolder(dir: string, events: number, eventAt: (i: number) => EventRecord): Promise<BenchData> {
  fs.mkdirSync(dir, { recursive: true });
  const every = Math.max(1, Math.floor(events / 1000));
  const sampleIds: string[] = [];
  const out = fs.openSync(path.join(dir, 'events.jsonl'), 'w');
  try {
    let chunk = '';
    for (let i = 0; i < events; i++) {
      const record = eventAt(i);
      if (i % every === 0 && sampleIds.length < 1000) sampleIds.push(record.id);
      chunk += encodePut(i + 1, record);
      if (chunk.length > 1 << 20) {
        fs.writeSync(out, chunk);
        chunk = '';
      }
    }
    fs.writeSync(out, chunk);
  } finally {
    fs.closeSync(out);
  }
  const key = await createKey(dir, { name: 'Benchmark', email: 'bench@campus.local', role: 'admin' }, { randomBytes, now: Date.now });
  return { dir, events, secret: key.secret, sampleIds };
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
