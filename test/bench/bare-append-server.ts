// The write baseline of issue 37: a bare durable append on node:http, the least a server can do to answer a create (or
// a registration) only once it is on disk. It reads the body, parses and checks it, makes an id, appends one JSON line
// with a sequence number and a CRC-32, and answers 201 after the line is fdatasync'ed; writes that arrive in one turn
// of the event loop (and those that arrive while a write is on its way) share one write and one fdatasync.
// No keys, no rate limit, no views, no request log: exactly that and nothing more, so the ratio against ours is honest.
// Run: node --import tsx test/bench/bare-append-server.ts events|registrations LOG_FILE   (prints `listening on URL (pid N)`)
import fs from 'node:fs';
import http from 'node:http';
import { createEvent, createRegistration } from './bare-append-core.js';
import { serveBare } from './serve-bare.js';

const [mode, logFile] = process.argv.slice(2);
if ((mode !== 'events' && mode !== 'registrations') || logFile === undefined) {
  process.stderr.write('usage: bare-append-server.ts events|registrations LOG_FILE\n');
  process.exit(2);
}

const REGISTRATIONS_PATH = /^\/events\/(evt_[0-9A-Za-z]+)\/registrations$/;
const JSON_HEADERS = { 'Content-Type': 'application/json' };

const fd = fs.openSync(logFile, 'a');

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
