// The write baseline of issue 37: a bare durable append on node:http, the least a server can do to answer a create (or
// a registration) only once it is on disk. It reads the body, parses and checks it, makes an id, appends one JSON line
// with a sequence number and a CRC-32, and answers 201 after the line is fdatasync'ed; writes that arrive in one turn
// of the event loop (and those that arrive while a write is on its way) share one write and one fdatasync.
// No keys, no rate limit, no views, no request log: exactly that and nothing more, so the ratio against ours is honest.
// Run: node --import tsx test/bench/bare-append-server.ts events|registrations LOG_FILE   (prints `listening on URL (pid N)`)
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { crc32 } from '../../src/lib/crc32.js';
import { serveBare } from './serve-bare.js';

const [mode, logFile] = process.argv.slice(2);
if ((mode !== 'events' && mode !== 'registrations') || logFile === undefined) {
  process.stderr.write('usage: bare-append-server.ts events|registrations LOG_FILE\n');
  process.exit(2);
}

const CATEGORIES = new Set(['academic', 'social', 'athletic', 'cultural']);
const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;
const REGISTRATIONS_PATH = /^\/events\/(evt_[0-9A-Za-z]+)\/registrations$/;
const JSON_HEADERS = { 'Content-Type': 'application/json' };

const fd = fs.openSync(logFile, 'a');
let seq = 0;

/** One answer waiting for its line to be on disk. */
interface Waiting {
  response: http.ServerResponse;
  body: string;
}
let queued: string[] = [];
let waiting: Waiting[] = [];
let flushing = false;

/** Queues a line; the first line of an idle turn schedules the write, so every line read in that turn joins it. */
function append(line: string, response: http.ServerResponse, body: string): void {
  queued.push(line);
  waiting.push({ response, body });
  if (!flushing && queued.length === 1) setImmediate(flush);
}

function flush(): void {
  if (queued.length === 0) {
    flushing = false;
    return;
  }
  flushing = true;
  const text = queued.join('');
  const answers = waiting;
  queued = [];
  waiting = [];
  fs.write(fd, text, (writeError) => {
    if (writeError !== null) return fail(answers, writeError);
    fs.fdatasync(fd, (syncError) => {
      if (syncError !== null) return fail(answers, syncError);
      for (const { response, body } of answers) {
        response.writeHead(201, JSON_HEADERS);
        response.end(body);
      }
      flush();
    });
  });
}

function fail(answers: Waiting[], error: Error): void {
  process.stderr.write(`bare append: ${error.message}\n`);
  for (const { response } of answers) {
    response.writeHead(500, JSON_HEADERS);
    response.end('{"error":"internal"}');
  }
  flushing = false;
}

/** One sealed line: the record with its seq, and the CRC-32 of everything before `,"crc"`. */
function line(op: string, fields: string): string {
  const head = `{"seq":${++seq},"op":"${op}",${fields}`;
  return `${head},"crc":"${crc32(head).toString(16).padStart(8, '0')}"}\n`;
}

const isText = (value: unknown, min: number, max: number): value is string => typeof value === 'string' && value.length >= min && value.length <= max;
const timeMs = (value: unknown): number => (typeof value === 'string' && RFC3339.test(value) ? Date.parse(value) : NaN);

/** The created event's JSON, or undefined when the body is not a valid create. */
function createEvent(body: Record<string, unknown>): { line: string; answer: string } | undefined {
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
function createRegistration(eventId: string, body: Record<string, unknown>): { line: string; answer: string } | undefined {
  const { name, email } = body;
  if (Object.keys(body).length !== 2 || !isText(name, 1, 200) || !isText(email, 3, 254) || !EMAIL.test(email)) return undefined;
  const registration = { id: `reg_${randomUUID().replaceAll('-', '')}`, event_id: eventId, name: name.trim(), email, status: 'confirmed', created_at: new Date().toISOString(), checked_in_at: null };
  const answer = JSON.stringify(registration);
  return { line: line('reg', `"reg":${answer}`), answer };
}

const server = http.createServer((request, response) => {
  const registrationOf = mode === 'registrations' ? REGISTRATIONS_PATH.exec(request.url ?? '') : null;
  if (request.method !== 'POST' || (mode === 'events' ? request.url !== '/events' : registrationOf === null)) {
    response.writeHead(404, JSON_HEADERS);
    response.end('{"error":"not_found"}');
    return;
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      body = undefined;
    }
    const valid = typeof body !== 'object' || body === null || Array.isArray(body)
      ? undefined
      : registrationOf === null
        ? createEvent(body as Record<string, unknown>)
        : createRegistration(registrationOf[1]!, body as Record<string, unknown>);
    if (valid === undefined) {
      response.writeHead(400, JSON_HEADERS);
      response.end('{"error":"validation_failed"}');
      return;
    }
    append(valid.line, response, valid.answer);
  });
});
serveBare(server);
