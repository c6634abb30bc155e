// The history of a run against several instances: every request and its answer, the change streams read, the
// phases and their faults, and each instance's final state; recorded by the load, checked by history-checker.ts.
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What a request means to the checker: which write (and its unique mark), or a read. */
export type Operation =
  | { kind: 'create-event'; title: string; idem?: string }
  | { kind: 'register'; eventId: string; email: string; idem?: string }
  | { kind: 'cancel'; eventId: string; regId: string }
  | { kind: 'update'; eventId: string; token: string; ifMatch: string }
  | { kind: 'read' }
  | { kind: 'follow' }
  /** The checker's own reads of the final state: not part of the load. */
  | { kind: 'check' };

/** One request and its answer. Times are milliseconds since the run began. */
export interface Exchange {
  /** Its place in the history, from 0. */
  n: number;
  phase: string;
  /** Who sent it: `c07` (a client), `pulse0`, `follower`, `prober`, `check`. */
  client: string;
  /** The label of the API key it was sent with (each key's rate limit is checked on its own). */
  key: string;
  instance: number;
  start: number;
  end: number;
  method: string;
  path: string;
  /** The request headers that matter: Idempotency-Key, If-Match, Last-Event-ID, Accept. */
  requestHeaders: Record<string, string>;
  requestBody?: unknown;
  /** 0: no answer (the connection failed or the client gave up). */
  status: number;
  /** Why there was no answer. */
  error?: string;
  /** The response headers that matter: ETag, RateLimit-*, Retry-After, Idempotent-Replayed, Location. */
  headers: Record<string, string>;
  /** The parsed JSON body (or its text); left out for list reads, whose bodies the checker does not need. */
  body?: unknown;
  op: Operation;
  /** For a retry of the same Idempotency-Key: the n of the first attempt. */
  retryOf?: number;
}

/** One change-feed entry as a follower received it. */
export interface FeedEntry {
  seq: number;
  id: string;
  deleted: boolean;
  event: Record<string, unknown> | null;
  /** When it arrived (ms since the run began). */
  at: number;
}

/** One connection of the follower's stream (Server-Sent Events), or one run of its paged reads from a position. */
export interface FeedSession {
  kind: 'stream' | 'paged';
  phase: string;
  instance: number;
  /** The position it started after (`since` or `Last-Event-ID`). */
  after: number;
  start: number;
  end?: number;
  /** Why it ended: `closed by server`, `410`, an error, or `stopped`. */
  ended?: string;
  entries: FeedEntry[];
}

/** A fault of a phase, and when it happened (ms since the run began). */
export interface Fault {
  kind: 'kill' | 'db-restart' | 'freeze' | 'sigstop' | 'failover';
  /** Human words: what was done. */
  what: string;
  /** The instance cut off, paused or killed (none for the database's faults). */
  instance?: number;
  /** When the fault began. */
  at: number;
  /** When it was healed (the instance back, the database up, the link thawed, the standby promoted). */
  healed: number;
  /** A cut (freeze, pause, kill): the other instances must accept writes again within 5 s of `at`. */
  cut: boolean;
  /** When the database could not be reached (by anyone), if it could not. */
  outage?: { from: number; to: number };
  /** Instances that could not answer at all meanwhile (paused, killed): their unanswered requests are no fault. */
  unanswering?: { instance: number; from: number; to: number };
}

/** A phase: its load window and its fault. */
export interface PhaseWindow {
  name: string;
  start: number;
  end: number;
  fault?: Fault;
}

/** What one instance served at the end of a phase, as raw bodies (compared byte for byte) and parsed. */
export interface InstanceState {
  instance: number;
  /** GET /changes?since=0 pages (limit 1000), each without its `copy` token (it is this instance's to give). */
  changesPages: string[];
  /** GET /events?limit=100, page by page. */
  eventPages: string[];
  /** GET /events/{id} bodies of the events checked one by one. */
  eventBodies: Record<string, string>;
  /** GET /events/{id}/registrations?limit=100 pages, per event. */
  rosterPages: Record<string, string[]>;
}

/** A registration as the roster lists it. */
export interface Registration {
  id: string;
  event_id: string;
  email: string;
  status: 'confirmed' | 'waitlisted';
}

/** The final state the checks read: one instance's (the instances agreeing is checked separately). */
export interface FinalState {
  /** Every live event by id, from /changes?since=0. */
  events: Map<string, Record<string, unknown>>;
  /** The newest seq (/changes' last next_since). */
  lastSeq: number;
  /** The seq of the newest entry of /changes (a write that changed no event, a waitlisted registration, has none). */
  lastEntrySeq: number;
  /** Registrations of the events whose rosters were read. */
  rosters: Map<string, Registration[]>;
}

/** The rate limit the instances were started with. */
export interface RateSettings {
  limit: number;
  windowMs: number;
}

/** Everything a check needs. */
export interface History {
  exchanges: Exchange[];
  feeds: FeedSession[];
  phases: PhaseWindow[];
  /** Instances that take writes (the follower's instance takes none). */
  writers: readonly number[];
  rate: RateSettings;
}

/** Where histories are kept: test/store/postgres/output/ (git-ignored). */
export const OUTPUT_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'output');

/** Removes all but the newest `keep` histories from OUTPUT_DIR, so runs of `make test` do not fill the disk. */
export function pruneOutput(keep = 8): void {
  let files: string[];
  try {
    files = readdirSync(OUTPUT_DIR).filter((name) => name.startsWith('history-') && name.endsWith('.jsonl'));
  } catch {
    return;
  }
  const newestFirst = files.map((name) => ({ name, at: statSync(path.join(OUTPUT_DIR, name)).mtimeMs })).sort((a, b) => b.at - a.at);
  for (const { name } of newestFirst.slice(keep)) rmSync(path.join(OUTPUT_DIR, name), { force: true });
}

/** Parses the final state out of one instance's raw bodies. */
export function parseState(state: InstanceState): FinalState {
  const events = new Map<string, Record<string, unknown>>();
  let lastSeq = 0;
  let lastEntrySeq = 0;
  for (const page of state.changesPages) {
    const body = JSON.parse(page) as { changes: { seq: number; id: string; deleted: boolean; event: Record<string, unknown> | null }[]; next_since: number };
    for (const change of body.changes) {
      if (change.deleted) events.delete(change.id);
      else events.set(change.id, change.event!);
      lastEntrySeq = Math.max(lastEntrySeq, change.seq);
    }
    lastSeq = body.next_since;
  }
  const rosters = new Map<string, Registration[]>();
  for (const [eventId, pages] of Object.entries(state.rosterPages)) {
    rosters.set(eventId, pages.flatMap((page) => (JSON.parse(page) as { registrations: Registration[] }).registrations));
  }
  return { events, lastSeq, lastEntrySeq, rosters };
}

/** The recorder the load writes into: exchanges numbered in the order they began, and times from one origin. */
export class Recorder {
  readonly exchanges: Exchange[] = [];
  readonly feeds: FeedSession[] = [];
  readonly phases: PhaseWindow[] = [];
  readonly #origin = performance.now();
  phase = 'setup';

  /** Milliseconds since the run began. */
  now(): number {
    return Math.round((performance.now() - this.#origin) * 10) / 10;
  }

  /** Numbers and keeps an exchange as it begins; the caller fills in its answer. */
  begin(fields: Omit<Exchange, 'n' | 'phase' | 'start' | 'end' | 'status' | 'headers'>): Exchange {
    const exchange: Exchange = { n: this.exchanges.length, phase: this.phase, start: this.now(), end: NaN, status: 0, headers: {}, ...fields };
    this.exchanges.push(exchange);
    return exchange;
  }

  /** Writes the whole history (and whatever else is given) as JSON lines to `file` under OUTPUT_DIR; returns its path. */
  write(file: string, extra: Record<string, unknown>[] = []): string {
    mkdirSync(OUTPUT_DIR, { recursive: true });
    const target = path.join(OUTPUT_DIR, file);
    const lines = [
      ...this.phases.map((phase) => JSON.stringify({ type: 'phase', ...phase })),
      ...this.exchanges.map((exchange) => JSON.stringify({ type: 'exchange', ...exchange })),
      ...this.feeds.map((feed) => JSON.stringify({ type: 'feed', ...feed })),
      ...extra.map((line) => JSON.stringify(line)),
    ];
    writeFileSync(target, `${lines.join('\n')}\n`);
    return target;
  }
}

/** The response headers the checker reads. */
const KEPT_HEADERS = ['etag', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after', 'idempotent-replayed', 'location'];

/** What an HTTP call needs besides the exchange's fields. */
export interface CallOptions {
  baseUrl: string;
  secret: string;
  /** Give up after this long (the answer counts as none). */
  timeoutMs: number;
  /** Keep the body (false for list reads). Default true. */
  keepBody?: boolean;
  body?: unknown;
  /** Given the raw body of a 2xx answer (the final-state reads compare bytes). */
  onText?: (text: string) => void;
}

/** Sends one request and records it whole; never throws (a failed connection is status 0 with its error). */
export async function recordedCall(recorder: Recorder, fields: Omit<Exchange, 'n' | 'phase' | 'start' | 'end' | 'status' | 'headers' | 'requestBody'>, options: CallOptions): Promise<Exchange> {
  const exchange = recorder.begin(options.body === undefined ? fields : { ...fields, requestBody: options.body });
  try {
    const answer = await fetch(`${options.baseUrl}${fields.path}`, {
      method: fields.method,
      headers: { authorization: `Bearer ${options.secret}`, ...fields.requestHeaders, ...(options.body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    const text = await answer.text();
    exchange.status = answer.status;
    for (const name of KEPT_HEADERS) {
      const value = answer.headers.get(name);
      if (value !== null) exchange.headers[name] = value;
    }
    if (options.keepBody !== false || answer.status >= 300) exchange.body = parseBody(text);
    if (answer.status < 300) options.onText?.(text);
  } catch (error) {
    exchange.status = 0;
    exchange.error = describe(error);
  }
  exchange.end = recorder.now();
  return exchange;
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text.slice(0, 500);
  }
}

/** A short description of a failed fetch: its cause's code when there is one. */
export function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (error.name === 'TimeoutError') return 'timed out';
  return cause?.code ?? cause?.message ?? error.message;
}
