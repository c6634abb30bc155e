// Shared helpers of the whole-request tests: event shapes, raw core calls, raw sockets and bounded waits.
import assert from 'node:assert/strict';
import net from 'node:net';
import type { App } from '../../src/app.js';
import type { PlainRequest } from '../../src/http/types.js';
import { eventBody, type Harness, type TestResponse } from '../helpers/harness.js';

/** Fields of a list item, a single read and an update response (every field but created_at), in order. */
export const VIEW_FIELDS = ['id', 'title', 'description', 'category', 'location', 'start_time', 'end_time', 'capacity', 'registered_count', 'organizer'];

/** Fields of a create response (every field but organizer), in order. */
export const CREATE_FIELDS = ['id', 'title', 'description', 'category', 'location', 'start_time', 'end_time', 'capacity', 'registered_count', 'created_at'];

export const EVENT_ID = /^evt_[0-9A-Za-z]{16,}$/;
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Creates an event with `key` (a valid body with `overrides`) and returns the 201 response's event. */
export async function createEvent(h: Harness, key: string, overrides: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const response = await h.request('POST', '/events', { key, body: eventBody(overrides) });
  assert.equal(response.status, 201, `create failed: ${response.text}`);
  return response.json;
}

/** Asserts the JSON error shape of §3 and returns the body. */
export function assertError(response: TestResponse, status: number, code: string): Record<string, any> {
  assert.equal(response.status, status, `expected ${status} ${code}, got ${response.status}: ${response.text}`);
  assert.equal(response.headers['Content-Type'], JSON_CONTENT_TYPE);
  assert.equal(response.json.error, code);
  assert.equal(typeof response.json.message, 'string');
  assert.ok(response.json.message.length > 0, 'the message is a sentence');
  const allowed = new Set(['error', 'message', 'details']);
  for (const name of Object.keys(response.json)) assert.ok(allowed.has(name), `unexpected error field ${name}`);
  if (code === 'validation_failed') {
    assert.ok(Array.isArray(response.json.details) && response.json.details.length > 0, 'validation_failed always has details');
    for (const detail of response.json.details) {
      assert.deepEqual(Object.keys(detail).sort(), ['field', 'message']);
      assert.equal(typeof detail.field, 'string');
      assert.equal(typeof detail.message, 'string');
    }
  }
  return response.json;
}

/** The fields named in a validation_failed response's details. */
export function detailFields(response: TestResponse): string[] {
  return (response.json.details as { field: string }[]).map((detail) => detail.field);
}

/** Calls the core with a hand-made request (for what the harness cannot say, such as headerFault). */
export async function handleRaw(app: App, request: Partial<PlainRequest> & { method: string; target: string }): Promise<TestResponse> {
  const response = await app.handle({ headers: { host: 'localhost' }, body: null, bodyTooLarge: false, remoteAddress: '127.0.0.1', ...request });
  return { status: response.status, headers: response.headers, text: response.body, json: response.body === null ? undefined : JSON.parse(response.body) };
}

/** Polls `check` until it returns true, failing after `deadlineMs`. */
export async function waitFor(what: string, check: () => Promise<boolean>, deadlineMs = 2_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) assert.fail(`timed out after ${deadlineMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A response read off a raw socket. */
export interface RawResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** Everything after the blank line, as received. */
  body: string;
  /** True when the server closed the connection. */
  closed: boolean;
}

/**
 * Writes `chunks` to a fresh connection and reads until the server closes it (or `idleMs`
 * passes without more data), then parses the first response.
 */
export function rawExchange(port: number, chunks: (string | Buffer)[], options: { idleMs?: number; deadlineMs?: number } = {}): Promise<RawResponse> {
  const { idleMs = 500, deadlineMs = 5_000 } = options;
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let idle: NodeJS.Timeout | undefined;
    let settled = false;
    const finish = (closed: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(idle);
      clearTimeout(overall);
      socket.destroy();
      try {
        resolve({ ...parseRaw(Buffer.concat(received).toString('latin1')), closed });
      } catch (error) {
        reject(error);
      }
    };
    const overall = setTimeout(() => finish(false), deadlineMs);
    socket.on('connect', () => {
      for (const chunk of chunks) socket.write(chunk);
    });
    socket.on('data', (data: Buffer) => {
      received.push(data);
      clearTimeout(idle);
      idle = setTimeout(() => finish(false), idleMs);
    });
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // A reset after the response arrived still counts as the server closing the connection.
      if (received.length > 0) finish(true);
      else if (!settled) {
        settled = true;
        clearTimeout(overall);
        reject(error);
      }
    });
  });
}

function parseRaw(text: string): Omit<RawResponse, 'closed'> {
  const end = text.indexOf('\r\n\r\n');
  if (end === -1) throw new Error(`no complete response head in ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status, headers, body: text.slice(end + 4) };
}
