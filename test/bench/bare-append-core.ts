// The per-request work of the bare durable append (bare-append-server.ts), without node:http and the disk: a valid
// body becomes one sealed line (a sequence number and a CRC-32) and the answer's JSON. write-core-bench.ts times it
// in process against ours' core.
import { randomUUID } from 'node:crypto';
import { crc32 } from '../../src/lib/crc32.js';

const CATEGORIES = new Set(['academic', 'social', 'athletic', 'cultural']);
const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

let seq = 0;

/** One sealed line: the record with its seq, and the CRC-32 of everything before `,"crc"`. */
function line(op: string, fields: string): string {
  const head = `{"seq":${++seq},"op":"${op}",${fields}`;
  return `${head},"crc":"${crc32(head).toString(16).padStart(8, '0')}"}\n`;
}

const isText = (value: unknown, min: number, max: number): value is string => typeof value === 'string' && value.length >= min && value.length <= max;
const timeMs = (value: unknown): number => (typeof value === 'string' && RFC3339.test(value) ? Date.parse(value) : NaN);

/** The created event's JSON, or undefined when the body is not a valid create. */
export function createEvent(body: Record<string, unknown>): { line: string; answer: string } | undefined {
  const { title, description = '', category, location, start_time, end_time, capacity } = body;
  const start = timeMs(start_time);
  const end = timeMs(end_time);
  if (!isText(title, 1, 200) || !isText(description, 0, 5000) || !CATEGORIES.has(category as string) || !isText(location, 1, 200)) return undefined;
  if (!(end > start) || !Number.isInteger(capacity) || (capacity as number) < 1 || (capacity as number) > 100_000) return undefined;
  const event = {
    id: `evt_${randomUUID().replaceAll('-', '')}`,
    title,
    description,
    category,
    location,
    start_time: new Date(start).toISOString(),
    end_time: new Date(end).toISOString(),
    capacity,
    registered_count: 0,
    created_at: new Date().toISOString(),
  };
  const answer = JSON.stringify(event);
  return { line: line('put', `"event":${answer}`), answer };
}

/** The registration's JSON, or undefined when the body is not a valid registration. */
export function createRegistration(eventId: string, body: Record<string, unknown>): { line: string; answer: string } | undefined {
  const { name, email } = body;
  if (Object.keys(body).length !== 2 || !isText(name, 1, 200) || !isText(email, 3, 254) || !EMAIL.test(email)) return undefined;
  const registration = { id: `reg_${randomUUID().replaceAll('-', '')}`, event_id: eventId, name: name.trim(), email, status: 'confirmed', created_at: new Date().toISOString(), checked_in_at: null };
  const answer = JSON.stringify(registration);
  return { line: line('reg', `"reg":${answer}`), answer };
}

