// The load of the history test: clients that register, cancel, update with If-Match and retry Idempotency-Key POSTs on
// another instance; a pulse writer per writing instance (so a stall shows); a follower of /changes, paged and as a
// stream, on an instance that takes no writes; and a prober that keeps one key at its rate limit. All recorded.
import { setTimeout as sleep } from 'node:timers/promises';
import { mulberry32 } from '../../helpers/random.js';
import { recordedCall, type Exchange, type FeedEntry, type FeedSession, type Operation, type Recorder } from './history-record.js';

/** An API key and the label the history knows it by. */
export interface Key {
  label: string;
  secret: string;
}

/** What the load runs against; `url(i)` is read at every request (a restarted instance has a new port). */
export interface LoadTarget {
  recorder: Recorder;
  url(i: number): string;
  /** Instances that take writes; the follower's takes none. */
  writers: readonly number[];
  /** Every instance (reads go to any). */
  instances: readonly number[];
  followerInstance: number;
  /** The events registrations and updates go to in this phase (small capacities). */
  hot: string[];
  timeoutMs: number;
}

/** A running part of the load: stop() ends it once its requests in flight are answered. */
export interface Running {
  stop(): Promise<void>;
}

type Fields = Parameters<typeof recordedCall>[1];

function call(target: LoadTarget, instance: number, key: Key, client: string, method: string, path: string, op: Operation, options: { body?: unknown; headers?: Record<string, string>; keepBody?: boolean; retryOf?: number } = {}): Promise<Exchange> {
  const fields: Fields = { client, key: key.label, instance, method, path, requestHeaders: options.headers ?? {}, op, ...(options.retryOf === undefined ? {} : { retryOf: options.retryOf }) };
  return recordedCall(target.recorder, fields, { baseUrl: target.url(instance), secret: key.secret, timeoutMs: target.timeoutMs, keepBody: options.keepBody ?? true, body: options.body });
}

/** A valid event body; capacity small so seats run out. */
export function eventBody(title: string, capacity: number, day: number): Record<string, unknown> {
  const date = `2031-04-${String(1 + (day % 28)).padStart(2, '0')}`;
  return { title, category: 'academic', location: 'Hall', start_time: `${date}T10:00:00Z`, end_time: `${date}T12:00:00Z`, capacity };
}

/**
 * A POST under an Idempotency-Key: sent to `home`; retried with the same bytes on `other` when the answer was none or
 * a 503, and sometimes after a 201 as well (a replay must answer the same); once more on `home` if that failed too.
 */
async function postIdempotent(target: LoadTarget, key: Key, client: string, path: string, body: unknown, idem: string, op: Operation, home: number, other: number, random: () => number): Promise<Exchange> {
  const headers = { 'idempotency-key': idem };
  const first = await call(target, home, key, client, 'POST', path, op, { body, headers });
  const failed = (exchange: Exchange): boolean => exchange.status === 0 || exchange.status === 503;
  if (!failed(first) && !(first.status === 201 && random() < 0.3)) return first;
  const second = await call(target, other, key, client, 'POST', path, op, { body, headers, retryOf: first.n });
  if (!failed(second)) return second;
  await sleep(300);
  return call(target, home, key, client, 'POST', path, op, { body, headers, retryOf: first.n });
}

/**
 * One client: its own key, a home writer (the other for retries), a seeded mix of operations with think time. Its
 * titles, e-mails, update tokens and Idempotency-Keys name the phase, so each is unique in the run.
 */
export function startClient(target: LoadTarget, c: number, key: Key, seed: number, phase: string): Running {
  const random = mulberry32(seed * 7919 + c * 31 + [...phase].reduce((hash, char) => (hash * 31 + char.charCodeAt(0)) >>> 0, 0));
  const name = `c${String(c).padStart(2, '0')}`;
  const mark = `${phase}-${seed}`;
  const home = target.writers[c % target.writers.length]!;
  const other = target.writers[(c + 1) % target.writers.length]!;
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  let running = true;
  let k = 0;
  /** This client's registrations in the current hot events, to cancel or read (on the instance that made it). */
  const mine: { eventId: string; regId: string; instance: number }[] = [];
  const step = async (): Promise<void> => {
    const n = k++;
    const hot = target.hot;
    for (let i = mine.length - 1; i >= 0; i--) if (!hot.includes(mine[i]!.eventId)) mine.splice(i, 1);
    const r = random();
    if (hot.length === 0) return;
    if (r < 0.35 || (r < 0.47 && mine.length === 0)) {
      const eventId = pick(hot);
      const email = `${name}-${n}-${mark}@campus.example`;
      const body = { name: `Person ${name} ${n}`, email };
      const path = `/events/${eventId}/registrations`;
      const idem = random() < 0.5 ? `reg-${name}-${n}-${mark}` : undefined;
      const op: Operation = { kind: 'register', eventId, email, ...(idem === undefined ? {} : { idem }) };
      const answer = idem === undefined ? await call(target, home, key, name, 'POST', path, op, { body }) : await postIdempotent(target, key, name, path, body, idem, op, home, other, random);
      if (answer.status === 201) mine.push({ eventId, regId: (answer.body as { id: string }).id, instance: answer.instance });
    } else if (r < 0.47) {
      const [registration] = mine.splice(Math.floor(random() * mine.length), 1);
      const { eventId, regId } = registration!;
      await call(target, pick(target.writers), key, name, 'DELETE', `/events/${eventId}/registrations/${regId}`, { kind: 'cancel', eventId, regId });
    } else if (r < 0.67) {
      const eventId = pick(hot);
      const read = await call(target, home, key, name, 'GET', `/events/${eventId}`, { kind: 'read' });
      const etag = read.headers['etag'];
      if (read.status !== 200 || etag === undefined) return;
      const token = `u-${name}-${n}-${mark}`;
      const body = random() < 0.3 ? { description: token, capacity: 2 + Math.floor(random() * 5) } : { description: token };
      await call(target, random() < 0.5 ? home : other, key, name, 'PUT', `/events/${eventId}`, { kind: 'update', eventId, token, ifMatch: etag }, { body, headers: { 'if-match': etag } });
    } else if (r < 0.8) {
      const title = `t-${name}-${n}-${mark}`;
      const idem = `ev-${name}-${n}-${mark}`;
      await postIdempotent(target, key, name, '/events', eventBody(title, 5, n), idem, { kind: 'create-event', title, idem }, home, other, random);
    } else {
      const instance = pick(target.instances);
      const which = random();
      if (which < 0.4) await call(target, instance, key, name, 'GET', `/events/${pick(hot)}`, { kind: 'read' });
      else if (which < 0.7 || mine.length === 0) await call(target, instance, key, name, 'GET', '/events?limit=20', { kind: 'read' }, { keepBody: false });
      else {
        // On the instance that made it: another may not have it yet while the database is away (API.md §12 gives 1 s).
        const { eventId, regId, instance: maker } = pick(mine);
        await call(target, maker, key, name, 'GET', `/events/${eventId}/registrations/${regId}`, { kind: 'read' });
      }
    }
  };
  const done = (async () => {
    while (running) {
      await step();
      await sleep(30 + random() * 70);
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
    },
  };
}

/** Creates an event on `instance` every `everyMs` (one at a time): the acknowledgements show when the instance writes. */
export function startPulse(target: LoadTarget, instance: number, key: Key, everyMs: number, tag: string): Running {
  let running = true;
  let k = 0;
  const done = (async () => {
    while (running) {
      const began = performance.now();
      const title = `pulse-${tag}-${instance}-${k}`;
      await call(target, instance, key, `pulse${instance}`, 'POST', '/events', { kind: 'create-event', title }, { body: eventBody(title, 1, k++) });
      await sleep(Math.max(0, everyMs - (performance.now() - began)));
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
    },
  };
}

/**
 * Reads GET /me round robin over the instances from `loops` loops at once, as fast as answers come, backing off on
 * 429: the key stays at its limit, where over-admission and an overstated RateLimit-Remaining would show.
 */
export function startProber(target: LoadTarget, key: Key, loops = 2): Running {
  let running = true;
  const done = Promise.all(Array.from({ length: loops }, async (_, loop) => {
    for (let k = loop; running; k += loops) {
      const answer = await call(target, target.instances[k % target.instances.length]!, key, 'prober', 'GET', '/me', { kind: 'read' }, { keepBody: false });
      await sleep(answer.status === 200 ? 5 : answer.status === 429 ? 50 : 100);
    }
  }));
  return {
    async stop() {
      running = false;
      await done;
    },
  };
}

/** A follower's copy of the events, and where it is. */
export interface Follower extends Running {
  readonly events: Map<string, Record<string, unknown>>;
  readonly position: number;
}

/** One /changes entry applied to a copy. */
function apply(events: Map<string, Record<string, unknown>>, entry: FeedEntry): void {
  if (entry.deleted) events.delete(entry.id);
  else events.set(entry.id, entry.event!);
}

/** Follows /changes page by page on the follower's instance: a full copy from since=0, then each new page; 410: again from 0. */
export function startPagedFollower(target: LoadTarget, key: Key): Follower {
  const events = new Map<string, Record<string, unknown>>();
  let position = 0;
  let running = true;
  const instance = target.followerInstance;
  const session = (after: number): FeedSession => {
    const feed: FeedSession = { kind: 'paged', phase: target.recorder.phase, instance, after, start: target.recorder.now(), entries: [] };
    target.recorder.feeds.push(feed);
    return feed;
  };
  let feed = session(0);
  const done = (async () => {
    let copy: string | undefined;
    while (running) {
      const answer = await call(target, instance, key, 'follower', 'GET', `/changes?since=${position}&limit=200${copy === undefined ? '' : `&copy=${copy}`}`, { kind: 'follow' });
      if (answer.status === 200) {
        const body = answer.body as { changes: Omit<FeedEntry, 'at'>[]; next_since: number; more: boolean; copy?: string };
        for (const change of body.changes) {
          const entry = { ...change, at: answer.end };
          feed.entries.push(entry);
          apply(events, entry);
        }
        position = body.next_since;
        copy = body.copy;
        if (!body.more) await sleep(150);
      } else if (answer.status === 410) {
        feed.end = answer.end;
        feed.ended = '410';
        events.clear();
        position = 0;
        copy = undefined;
        feed = session(0);
      } else {
        await sleep(300);
      }
    }
    feed.end = target.recorder.now();
    feed.ended = 'stopped';
  })();
  return {
    events,
    get position() {
      return position;
    },
    async stop() {
      running = false;
      await done;
    },
  };
}

/** Follows /changes as a Server-Sent Events stream on the follower's instance, reconnecting with Last-Event-ID. */
export function startStreamFollower(target: LoadTarget, key: Key): Follower {
  const events = new Map<string, Record<string, unknown>>();
  let position = 0;
  let running = true;
  const controller = new AbortController();
  const instance = target.followerInstance;
  const done = (async () => {
    while (running) {
      const feed: FeedSession = { kind: 'stream', phase: target.recorder.phase, instance, after: position, start: target.recorder.now(), entries: [] };
      target.recorder.feeds.push(feed);
      const headers: Record<string, string> = { accept: 'text/event-stream', ...(position > 0 ? { 'last-event-id': String(position) } : {}) };
      const exchange = target.recorder.begin({ client: 'follower', key: key.label, instance, method: 'GET', path: `/changes?since=${position}`, requestHeaders: headers, op: { kind: 'follow' } });
      // The time-out covers the answer's headers only: a stream is meant to stay open.
      const connection = new AbortController();
      const stopping = (): void => connection.abort();
      controller.signal.addEventListener('abort', stopping);
      const timer = setTimeout(() => connection.abort(new Error('timed out')), target.timeoutMs);
      try {
        const answer = await fetch(`${target.url(instance)}/changes?since=${position}`, { headers: { authorization: `Bearer ${key.secret}`, ...headers }, signal: connection.signal });
        clearTimeout(timer);
        exchange.status = answer.status;
        exchange.end = target.recorder.now();
        for (const name of ['ratelimit-remaining', 'ratelimit-limit', 'retry-after']) {
          const value = answer.headers.get(name);
          if (value !== null) exchange.headers[name] = value;
        }
        if (answer.status !== 200) {
          exchange.body = await answer.json().catch(() => undefined);
          feed.end = exchange.end;
          feed.ended = `status ${answer.status}`;
          if (answer.status === 410) {
            events.clear();
            position = 0;
          }
          await sleep(300);
          continue;
        }
        const reader = answer.body!.getReader();
        const decoder = new TextDecoder();
        let text = '';
        for (;;) {
          const { value, done: ended } = await reader.read();
          if (ended) break;
          text += decoder.decode(value, { stream: true });
          let cut: number;
          while ((cut = text.indexOf('\n\n')) >= 0) {
            const frame = text.slice(0, cut);
            text = text.slice(cut + 2);
            const data = /^data: (.*)$/m.exec(frame);
            if (data === null) continue;
            const change = JSON.parse(data[1]!) as Omit<FeedEntry, 'at'>;
            const entry = { ...change, at: target.recorder.now() };
            feed.entries.push(entry);
            apply(events, entry);
            position = Math.max(position, change.seq);
          }
        }
        feed.ended = 'closed by the server';
      } catch (error) {
        if (Number.isNaN(exchange.end)) {
          exchange.end = target.recorder.now();
          exchange.error = error instanceof Error ? error.message : String(error);
        }
        feed.ended = running ? `error: ${error instanceof Error ? error.message : String(error)}` : 'stopped';
      } finally {
        clearTimeout(timer);
        controller.signal.removeEventListener('abort', stopping);
      }
      feed.end = target.recorder.now();
      if (running) await sleep(200);
    }
  })();
  return {
    events,
    get position() {
      return position;
    },
    async stop() {
      running = false;
      controller.abort();
      await done;
    },
  };
}
