// Test harness: an app on a temporary data folder with one key per role, called in process through its pure core.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isConsolePattern } from '../../src/console/console-routes.js';
import { openApp, type App, type AppOptions, type InternalOptions } from '../../src/app.js';
import { createKey } from '../../src/auth/key-registry.js';
import type { Role } from '../../src/auth/principal.js';
import { OpenApiChecker } from './openapi-check.js';

export interface TestResponse {
  status: number;
  headers: Record<string, string>;
  text: string | null;
  /** The parsed body (undefined when there is none). */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary shapes
}

export interface RequestOptions {
  key?: string;
  /** An object is sent as JSON with Content-Type application/json; a string as is. */
  body?: unknown;
  headers?: Record<string, string>;
  remoteAddress?: string;
}

export interface Harness {
  app: App;
  dataDir: string;
  keys: Record<'admin' | 'organizer' | 'other' | 'reader' | 'feed', string>;
  request(method: string, target: string, options?: RequestOptions): Promise<TestResponse>;
  close(): Promise<void>;
}

/** A fresh temporary folder, removed by the returned function. */
export function tempDir(prefix = 'campus-events-test-'): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

const PEOPLE: Record<'admin' | 'organizer' | 'other' | 'reader' | 'feed', { name: string; email: string; role: Role }> = {
  admin: { name: 'Ada Admin', email: 'ada@campus.edu', role: 'admin' },
  organizer: { name: 'Olivia Organizer', email: 'olivia@campus.edu', role: 'organizer' },
  other: { name: 'Oscar Other', email: 'oscar@campus.edu', role: 'organizer' },
  reader: { name: 'Rita Reader', email: 'rita@campus.edu', role: 'reader' },
  feed: { name: 'Fay Feed', email: 'fay@campus.edu', role: 'feed' },
};

/** Starts an app on a new temporary folder holding one key per role. */
export async function startHarness(options: AppOptions = {}, internal: InternalOptions = {}): Promise<Harness> {
  const { dir, remove } = tempDir();
  const deps = { randomBytes, now: Date.now };
  const keys = {} as Harness['keys'];
  for (const [label, person] of Object.entries(PEOPLE)) {
    keys[label as keyof Harness['keys']] = (await createKey(dir, person, deps)).secret;
  }
  const app = await openApp({ dataDir: dir, keyPollMs: 0, ...options }, { unsafeNoSync: true, ...internal });
  return {
    app,
    dataDir: dir,
    keys,
    request: (method, target, requestOptions = {}) => call(app, method, target, requestOptions),
    async close() {
      await app.close();
      remove();
    },
  };
}

/** Sends one request through the app's core and parses the answer. */
export async function call(app: App, method: string, target: string, options: RequestOptions = {}): Promise<TestResponse> {
  const headers: Record<string, string> = { host: 'localhost', ...lowerCase(options.headers ?? {}) };
  if (options.key !== undefined) headers['authorization'] = `Bearer ${options.key}`;
  let body: Buffer | null = null;
  if (options.body !== undefined) {
    body = Buffer.from(typeof options.body === 'string' ? options.body : JSON.stringify(options.body));
    if (typeof options.body !== 'string' && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
    headers['content-length'] = String(body.length);
  }
  const response = await app.handle({
    method,
    target,
    headers,
    body,
    bodyTooLarge: body !== null && body.length > 64 * 1024,
    remoteAddress: options.remoteAddress ?? '127.0.0.1',
  });
  const text = method === 'HEAD' ? null : response.body;
  // A target in absolute form is checked as the path it names, as the app serves it.
  const path = target.replace(/^https?:\/\/[^/?#]*/i, '');
  await checkAgainstDocument(app, { method, target: path, requestBody: typeof options.body === 'object' ? options.body : undefined, status: response.status, headers: response.headers, body: response.body });
  const isJson = response.headers['Content-Type']?.startsWith('application/json') ?? true;
  return { status: response.status, headers: response.headers, text, json: text === null || !isJson ? undefined : JSON.parse(text) };
}

/** One checker per served document (apps with the same settings serve the same one). */
const checkers = new Map<string, OpenApiChecker>();
const documents = new WeakMap<App, string>();

/**
 * Every exchange of the in-process tests is checked against the app's own /openapi.json (test/helpers/openapi-check.ts):
 * an answer the document does not describe fails the test that got it.
 */
async function checkAgainstDocument(app: App, exchange: Parameters<OpenApiChecker['problems']>[0]): Promise<void> {
  // The console's pages (API.md §10) are for browsers; the document describes the API and leaves them out.
  if (isConsolePattern(exchange.target.split('?')[0]!.replace(/^\/v1(?=\/)/, ''))) return;
  let text = documents.get(app);
  if (text === undefined) {
    const served = await app.handle({ method: 'GET', target: '/openapi.json', headers: { host: 'localhost' }, body: null, bodyTooLarge: false, remoteAddress: '127.0.0.1' });
    if (served.status !== 200 || served.body === null) return; // a mounted app answers elsewhere; its tests check it themselves
    text = served.body;
    documents.set(app, text);
  }
  let checker = checkers.get(text);
  if (checker === undefined) {
    checker = new OpenApiChecker(JSON.parse(text));
    checkers.set(text, checker);
  }
  const problems = checker.problems(exchange);
  if (problems.length > 0) throw new Error(`The OpenAPI document does not describe this exchange:\n  ${problems.join('\n  ')}`);
}

function lowerCase(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

/** A valid create body; override any field. */
export function eventBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title: 'Intro to Distributed Systems',
    description: 'Guest lecture',
    category: 'academic',
    location: 'Hall A',
    start_time: '2026-09-01T17:00:00Z',
    end_time: '2026-09-01T19:00:00Z',
    capacity: 120,
    ...overrides,
  };
}
