// Shared helpers of the hardening tests: a live in-process server on port 0, a keep-alive HTTP client and the error-shape check.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { Socket } from 'node:net';
import { createKey } from '../../src/auth/key-registry.js';
import { ERROR_CATALOG } from '../../src/http/errors.js';
import { startServerWith, type RunningServer, type StartOptions } from '../../src/start-server.js';
import { tempDir } from '../helpers/harness.js';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

const PEOPLE = {
  admin: { name: 'Ada Admin', email: 'ada@campus.edu', role: 'admin' },
  organizer: { name: 'Olivia Organizer', email: 'olivia@campus.edu', role: 'organizer' },
  other: { name: 'Oscar Other', email: 'oscar@campus.edu', role: 'organizer' },
  reader: { name: 'Rita Reader', email: 'rita@campus.edu', role: 'reader' },
} as const;

export type Person = keyof typeof PEOPLE;

export interface LiveServer {
  running: RunningServer;
  port: number;
  dataDir: string;
  keys: Record<Person, string>;
  /** Every socket the server accepted, for checks such as bytesRead. */
  sockets: Socket[];
  close(): Promise<void>;
}

/** startServer on port 0 over a new temporary folder holding one key per role. */
export async function startLive(options: StartOptions = {}, random: (size: number) => Uint8Array = randomBytes): Promise<LiveServer> {
  const { dir, remove } = tempDir('campus-events-hardening-');
  const keys = {} as Record<Person, string>;
  for (const [label, person] of Object.entries(PEOPLE)) {
    keys[label as Person] = (await createKey(dir, person, { randomBytes: random, now: Date.now })).secret;
  }
  const running = await startServerWith({ dataDir: dir, port: 0, keyPollMs: 0, bootstrapAdminKey: false, randomBytes: random, ...options }, { unsafeNoSync: true });
  const sockets: Socket[] = [];
  running.server.on('connection', (socket: Socket) => sockets.push(socket));
  return {
    running,
    port: running.address.port,
    dataDir: dir,
    keys,
    sockets,
    async close() {
      await running.close(500);
      remove();
    },
  };
}

export interface LiveResponse {
  status: number;
  /** Header names in lower case. */
  headers: http.IncomingHttpHeaders;
  text: string;
}

export interface LiveRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** The client address to connect from (any 127.x.y.z works on loopback). */
  localAddress?: string;
}

/** One request through `agent` (keep-alive); resolves with the whole response, rejects on a socket error. */
export function send(port: number, agent: http.Agent, request: LiveRequest): Promise<LiveResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...(request.headers ?? {}) };
    if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body));
    const req = http.request({ host: '127.0.0.1', port, method: request.method, path: request.path, headers, agent, setHost: headers['host'] === undefined, ...(request.localAddress === undefined ? {} : { localAddress: request.localAddress }) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(request.body);
  });
}

/**
 * Asserts the contract's error shape (API.md §3): JSON `{error, message[, details]}` with the
 * JSON content type, and a status that is the catalog's for that code. Returns the body.
 */
export function assertErrorShape(status: number, contentType: string | undefined, text: string, what: string): { error: string; message: string; details?: unknown } {
  assert.equal(contentType, JSON_CONTENT_TYPE, `${what}: error content type`);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    assert.fail(`${what}: error body is not JSON: ${JSON.stringify(text.slice(0, 200))}`);
  }
  assert.ok(typeof body === 'object' && body !== null && !Array.isArray(body), `${what}: error body is an object`);
  for (const name of Object.keys(body)) assert.ok(['error', 'message', 'details'].includes(name), `${what}: unexpected error field ${name}`);
  const code = body['error'];
  assert.ok(typeof code === 'string' && Object.hasOwn(ERROR_CATALOG, code), `${what}: unknown error code ${String(code)}`);
  assert.equal(ERROR_CATALOG[code as keyof typeof ERROR_CATALOG], status, `${what}: ${code} is sent with ${status}`);
  assert.ok(typeof body['message'] === 'string' && body['message'].length > 0, `${what}: message is a sentence`);
  if (code === 'validation_failed' || body['details'] !== undefined) {
    const details = body['details'];
    assert.ok(Array.isArray(details) && details.length > 0, `${what}: details is a non-empty list`);
    for (const detail of details as unknown[]) {
      assert.ok(typeof detail === 'object' && detail !== null, `${what}: a detail is an object`);
      assert.deepEqual(Object.keys(detail).sort(), ['field', 'message'], `${what}: a detail is {field, message}`);
    }
  }
  return body as { error: string; message: string; details?: unknown };
}

/** Resolves when `socket` closes, or with false after `ms`. */
export function closedWithin(socket: Socket, ms: number): Promise<boolean> {
  if (socket.destroyed) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
