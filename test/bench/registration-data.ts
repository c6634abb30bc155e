// Writes a campus at scale fast: events and their registrations as log lines straight from the store's encoders, plus the same events alone.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createKey } from '../../src/auth/key-registry.js';
import { CATEGORIES, type EventRecord } from '../../src/events/event.js';
import { encodePut, encodeRegister } from '../../src/store/records/encode-record.js';
import type { Registration } from '../../src/store/views/roster.js';
import { mulberry32 } from '../helpers/random.js';
import type { BenchData } from './data-generator.js';

/** A generated campus: a folder with events and registrations, and a folder with the same events alone (to tell their costs apart). */
export interface CampusData extends BenchData {
  registrations: number;
  /** The event with `bigSeats` seats, all taken. */
  bigEventId: string;
  bigSeats: number;
  /** The same events without registrations (with the same key). */
  eventsOnly: BenchData;
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const START_MS = Date.UTC(2030, 0, 1);

function randomId(prefix: string, random: () => number): string {
  let id = prefix;
  for (let c = 0; c < 22; c++) id += ALPHABET[Math.floor(random() * 62)];
  return id;
}

/** Event `i`: capacities 10–39 (so about a third of the events have a waitlist), the big one `bigSeats`. */
function eventAt(i: number, capacity: number, random: () => number): EventRecord {
  const start = START_MS + Math.floor(random() * 2 * 365 * 96) * 900_000;
  const organizer = i % 500;
  return {
    id: randomId('evt_', random),
    title: `Seminar ${i}: reading group on distributed systems`,
    description: 'A weekly session where students and staff read one paper together and discuss it. Bring a laptop; coffee is provided.',
    category: CATEGORIES[i % CATEGORIES.length]!,
    location: `Science Building ${1 + (i % 12)}, room ${100 + (i % 250)}`,
    start_time: new Date(start).toISOString(),
    end_time: new Date(start + 2 * 3_600_000).toISOString(),
    capacity,
    registered_count: 0,
    organizer: { name: `Organizer ${organizer}`, email: `organizer${organizer}@campus.example` },
    created_at: new Date(Date.UTC(2029, 0, 1) + i * 1000).toISOString(),
  };
}

/** A buffered writer of log text to a file. */
function lineWriter(file: string): { write(text: string): void; close(): void } {
  const fd = fs.openSync(file, 'w');
  let chunk = '';
  return {
    write(text) {
      chunk += text;
      if (chunk.length > 1 << 20) {
        fs.writeSync(fd, chunk);
        chunk = '';
      }
    },
    close() {
      fs.writeSync(fd, chunk);
      fs.closeSync(fd);
    },
  };
}

/**
 * Writes `events` events holding `registrations` registrations into `dir` (event 0 has `bigSeats` seats, all confirmed;
 * the rest share the others, about evenly), as the server would have logged them: each event's put line, then its
 * registrations, confirmed while seats last, then waitlisted. Also writes the events alone into `eventsOnlyDir`.
 */
export async function generateCampus(dir: string, eventsOnlyDir: string, events: number, registrations: number, bigSeats: number): Promise<CampusData> {
  for (const folder of [dir, eventsOnlyDir]) fs.mkdirSync(folder, { recursive: true });
  const random = mulberry32(20_300_101);
  const full = lineWriter(path.join(dir, 'events.jsonl'));
  const alone = lineWriter(path.join(eventsOnlyDir, 'events.jsonl'));
  const sampleIds: string[] = [];
  const every = Math.max(1, Math.floor(events / 1000));
  const rest = registrations - bigSeats;
  let seq = 0;
  let person = 0;
  let bigEventId = '';
  try {
    for (let i = 0; i < events; i++) {
      const count = i === 0 ? bigSeats : Math.floor((rest * i) / (events - 1)) - Math.floor((rest * (i - 1)) / (events - 1));
      const record = eventAt(i, i === 0 ? bigSeats : 10 + (i % 30), random);
      if (i === 0) bigEventId = record.id;
      if (i % every === 0 && sampleIds.length < 1000) sampleIds.push(record.id);
      const put = encodePut(++seq, record);
      full.write(put);
      alone.write(put);
      for (let k = 0; k < count; k++) {
        const status = k < record.capacity ? 'confirmed' : 'waitlisted';
        person++;
        const registration: Registration = {
          id: randomId('reg_', random),
          eventId: record.id,
          name: `Attendee ${person}`,
          email: `attendee${person}@campus.example`,
          status,
          createdAt: new Date(Date.UTC(2029, 6, 1) + person * 10).toISOString(),
          checkedInAt: null,
          seq: ++seq,
        };
        // A confirmation changes the event too, which takes the next seq: the line's (see WriteQueue.changeRegistrations).
        full.write(encodeRegister(registration, status === 'confirmed' ? ++seq : seq));
      }
    }
  } finally {
    full.close();
    alone.close();
  }
  const key = await createKey(dir, { name: 'Benchmark', email: 'bench@campus.local', role: 'admin' }, { randomBytes, now: Date.now });
  fs.copyFileSync(path.join(dir, 'keys.json'), path.join(eventsOnlyDir, 'keys.json'));
  return {
    dir,
    events,
    secret: key.secret,
    sampleIds,
    registrations: person,
    bigEventId,
    bigSeats,
    eventsOnly: { dir: eventsOnlyDir, events, secret: key.secret, sampleIds },
  };
}
