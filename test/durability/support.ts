// Shared by the durability tests: a server spawned under any wrapper (sh, strace), keys made with the CLI, and HTTP helpers.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { CLI, runCli, SERVER, spawnServer } from '../helpers/spawn.js';

export { CLI, SERVER };

/** A server process and what it printed. */
export interface Server {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  exited: Promise<number | string>;
}

/** Flags every durability test passes: any port, no practical rate limit, only warnings logged. */
export function serverArgs(dataDir: string, extra: string[] = []): string[] {
  return ['--port', '0', '--data-dir', dataDir, '--rate-limit', '1000000000', '--log-level', 'warn', ...extra];
}

/** Runs `command` (by default `node dist/server.js ARGS`) and resolves once it prints its listening line. */
export function startServer(args: string[], command: string[] = [process.execPath, SERVER]): Promise<Server> {
  return spawnServer(args, {}, command);
}

/**
 * kill -9 the server while `clients` write, wait for them to notice, and check the folder as the crash left it
 * with `verify` (which reads it whole and checks the invariants; a torn tail is fine). `stop` tells the clients to stop.
 */
export async function crashAndVerify(server: Server, crash: { stop: () => void; clients: Promise<unknown>[]; unexpected: string[]; context: string; dataDir: string }): Promise<void> {
  server.child.kill('SIGKILL');
  crash.stop();
  assert.equal(await server.exited, 'SIGKILL');
  await Promise.all(crash.clients);
  assert.deepEqual(crash.unexpected, [], `${crash.context}: only the expected answers`);
  const verify = runCli(['verify', '--json', '--data-dir', crash.dataDir]);
  assert.equal(verify.status, 0, `${crash.context}: verify: ${verify.stdout}${verify.stderr}`);
}

/** Creates an organizer key in `dataDir` with the CLI (before any server starts there) and returns its secret. */
export function createKey(dataDir: string): string {
  // The CLI refuses a folder that does not exist (a mistyped --data-dir); a new data folder is made first.
  mkdirSync(dataDir, { recursive: true });
  const result = runCli(['keys', 'create', '--name', 'Dora Durable', '--email', 'dora@campus.edu', '--data-dir', dataDir]);
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.trim();
}

/** Runs the CLI without blocking the event loop (writers in this process keep going meanwhile). */
export function runCliAsync(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

/** A valid create body with this title. */
export function eventBody(title: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { title, category: 'social', location: 'Durability lab', start_time: '2026-10-01T18:00:00Z', end_time: '2026-10-01T20:00:00Z', capacity: 30, ...extra };
}

/**
 * Sends one request with the key; `body` goes as JSON. Resolves with the whole answer (as a fetch `Response`) once it is
 * complete; a network error, or a connection that closes before the answer is whole, rejects (a killed server).
 *
 * Not `fetch`: Node 20's fetch (undici 6) compiles its HTTP parser (WebAssembly, asynchronously) on the process's first
 * connection and only then listens to that socket. A server killed during that compile closes the socket unobserved: the
 * fetch neither resolves nor rejects, no handle is left, and node:test ends the test with "Promise resolution is still
 * pending but the event loop has already resolved". node:http listens to its socket from the start and always settles.
 */
export function send(url: string, key: string, method: string, target: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const all: Record<string, string> = { authorization: `Bearer ${key}`, ...headers };
  const payload = body === undefined ? undefined : JSON.stringify(body);
  if (payload !== undefined) all['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const request = http.request(`${url}${target}`, { method, headers: all }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => resolve(asResponse(method, answer, Buffer.concat(chunks))));
      answer.on('error', reject);
      // A close before 'end' without 'error' still settles (a no-op after resolve).
      answer.on('close', () => reject(new Error(`${method} ${target}: the connection closed before the answer was complete`)));
    });
    request.on('error', reject);
    request.end(payload);
  });
}

/** The answer as a fetch `Response` (a null body where fetch has one), so tests read it as they would fetch's. */
function asResponse(method: string, answer: http.IncomingMessage, body: Buffer): Response {
  const status = answer.statusCode ?? 0;
  const headers = new Headers();
  for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2) headers.append(answer.rawHeaders[i]!, answer.rawHeaders[i + 1]!);
  const nullBody = method === 'HEAD' || status === 204 || status === 205 || status === 304;
  return new Response(nullBody ? null : new Uint8Array(body), { status, statusText: answer.statusMessage ?? '', headers });
}

/** Every event the server lists, by id, walking the pages. */
export async function listAll(url: string, key: string): Promise<Map<string, { title: string }>> {
  const events = new Map<string, { title: string }>();
  for (let page = 1; ; page++) {
    const response = await send(url, key, 'GET', `/events?limit=100&page=${page}`);
    assert.equal(response.status, 200);
    const body = (await response.json()) as { events: { id: string; title: string }[]; total: number };
    for (const event of body.events) events.set(event.id, event);
    if (body.events.length === 0 || events.size >= body.total) break;
  }
  return events;
}

/** The seq and id (or deleted id) of each line of a log file, in file order. */
export function logRecords(file: string): { seq: number; id: string; op: string; title?: string }[] {
  const text = readFileSync(file, 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const record = JSON.parse(line) as { seq: number; op: string; id?: string; event?: { id: string; title: string } };
      return { seq: record.seq, op: record.op, id: record.event?.id ?? record.id!, ...(record.event ? { title: record.event.title } : {}) };
    });
}

/** The data folder's log. */
export function logFile(dataDir: string): string {
  return path.join(dataDir, 'events.jsonl');
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
