// Shared by the webhook tests: real receivers on 127.0.0.1 that verify each message with the standardwebhooks package, and a fake clock.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { openApp, type App, type AppOptions } from '../../src/app.js';
import { call, startHarness, type Harness } from '../helpers/harness.js';

/** One request a receiver got. */
export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** The parsed body; set only when the signature verified. */
  message: { type: string; timestamp: string; data: Record<string, unknown> } | undefined;
}

/** What a receiver does with a request: answer a status (at once, or 'slow': 204 after 400 ms), hang, reset the connection, redirect, or send a huge answer. */
export type Behaviour = 'ok' | 'slow' | 'error' | 'hang' | 'reset' | 'redirect' | 'huge';

export interface Receiver {
  url: string;
  port: number;
  /** Every request, in arrival order. */
  received: Received[];
  /** Messages deduplicated on webhook-id, in first-arrival order. */
  unique(): Received[];
  /** Set the secret to verify with (from the create answer). */
  secret: string | undefined;
  /** Verify with standardwebhooks (real-clock tests); a fake-clock test checks the HMAC by hand instead. */
  verify: boolean;
  behaviour: Behaviour;
  /** Bytes of the huge answer that the client took before closing (the rest was never read). */
  hugeWritten: number[];
  /** Resolves once `count` requests have arrived. */
  until(count: number): Promise<void>;
  close(): Promise<void>;
  /** Listens again on the same port (after close). */
  reopen(): Promise<void>;
}

const HUGE = 10 * 1024 * 1024;

/** A receiver on 127.0.0.1 (a given port, or any); over TLS with `tls`'s key and certificate, its url then https:. */
export async function startReceiver(options: { port?: number; verify?: boolean; tls?: { key: string; cert: string } } = {}): Promise<Receiver> {
  const waiters: { count: number; resolve: () => void }[] = [];
  const sockets = new Set<Socket>();
  const receiver: Receiver = {
    url: '',
    port: 0,
    received: [],
    secret: undefined,
    verify: options.verify ?? true,
    behaviour: 'ok',
    hugeWritten: [],
    unique() {
      const seen = new Set<string>();
      return receiver.received.filter((entry) => !seen.has(entry.id) && seen.add(entry.id));
    },
    until(count) {
      if (receiver.received.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    close: () => new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
    reopen: () => listen(receiver.port),
  };
  const handler = (request: http.IncomingMessage, response: http.ServerResponse): void => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = { 'webhook-id': String(request.headers['webhook-id']), 'webhook-timestamp': String(request.headers['webhook-timestamp']), 'webhook-signature': String(request.headers['webhook-signature']) };
      let message: Received['message'];
      if (receiver.secret !== undefined && receiver.verify) {
        try {
          message = new Webhook(receiver.secret).verify(body, headers) as Received['message'];
        } catch {
          message = undefined;
        }
      } else message = JSON.parse(body) as Received['message'];
      receiver.received.push({ id: headers['webhook-id'], timestamp: headers['webhook-timestamp'], signature: headers['webhook-signature'], body, message });
      for (const waiter of waiters.filter((entry) => receiver.received.length >= entry.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      answer(receiver, request, response);
    });
  };
  const server = options.tls === undefined ? http.createServer(handler) : https.createServer(options.tls, handler);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  function listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        receiver.port = (server.address() as AddressInfo).port;
        receiver.url = `${options.tls === undefined ? 'http' : 'https'}://127.0.0.1:${receiver.port}/hook`;
        resolve();
      });
    });
  }
  await listen(options.port ?? 0);
  return receiver;
}

function answer(receiver: Receiver, request: http.IncomingMessage, response: http.ServerResponse): void {
  switch (receiver.behaviour) {
    case 'ok':
      response.writeHead(204).end();
      return;
    case 'slow':
      setTimeout(() => response.writeHead(204).end(), 400);
      return;
    case 'error':
      response.writeHead(500, { 'content-type': 'text/plain' }).end('broken');
      return;
    case 'hang':
      return;
    case 'reset':
      request.socket.destroy();
      return;
    case 'redirect':
      response.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end();
      return;
    case 'huge': {
      response.writeHead(500, { 'content-type': 'application/octet-stream', 'content-length': String(HUGE) });
      const chunk = Buffer.alloc(64 * 1024, 120);
      let written = 0;
      const entry = receiver.hugeWritten.push(0) - 1;
      const pump = (): void => {
        while (written < HUGE) {
          written += chunk.length;
          receiver.hugeWritten[entry] = written;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        response.end();
      };
      response.on('close', () => undefined);
      pump();
      return;
    }
  }
}

/**
 * A clock whose time moves only when told, with timers that fire as it passes them. Timers run on its elapsed time,
 * which never steps; its wall clock (`now`) moves with it, and `stepWall` sets it apart, as NTP or a resumed VM does.
 */
export class FakeClock {
  #elapsed: number;
  #now: number;
  #timers: { at: number; callback: () => void; id: number }[] = [];
  #nextId = 1;

  constructor(start: number) {
    this.#elapsed = start;
    this.#now = start;
  }

  now = (): number => this.#now;

  elapsed = (): number => this.#elapsed;

  setTimeout = (callback: () => void, ms: number): unknown => {
    const id = this.#nextId++;
    this.#timers.push({ at: this.#elapsed + ms, callback, id });
    return id;
  };

  clearTimeout = (handle: unknown): void => {
    this.#timers = this.#timers.filter((timer) => timer.id !== handle);
  };

  /** The wall time of the earliest timer, if any. */
  get nextTimer(): number | undefined {
    const earliest = this.#timers.reduce<number | undefined>((first, timer) => (first === undefined || timer.at < first ? timer.at : first), undefined);
    return earliest === undefined ? undefined : earliest + this.#now - this.#elapsed;
  }

  /** Moves to wall time `at` (never back), firing every timer due by then, earliest first. */
  advanceTo(at: number): void {
    const target = this.#elapsed + Math.max(0, at - this.#now);
    for (;;) {
      const due = this.#timers.filter((timer) => timer.at <= target).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (due === undefined) break;
      this.#timers = this.#timers.filter((timer) => timer !== due);
      this.#moveTo(due.at);
      due.callback();
    }
    this.#moveTo(target);
  }

  /** Sets the wall clock `ms` later (earlier when negative); elapsed time and timers stay. */
  stepWall(ms: number): void {
    this.#now += ms;
  }

  #moveTo(elapsed: number): void {
    if (elapsed <= this.#elapsed) return;
    this.#now += elapsed - this.#elapsed;
    this.#elapsed = elapsed;
  }
}

/** Waits (on real time, by polling each turn) until `check` is true; fails after `limitMs` saying what it waited for. */
export async function eventually(what: string, check: () => boolean, limitMs = 20_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The fields of a valid event but its title: one far in the future, so registrations stay open. */
export const EVENT_FIELDS = { category: 'social', location: 'Quad', start_time: '2027-05-01T10:00:00Z', end_time: '2027-05-01T12:00:00Z', capacity: 5 } as const;

/** An app on a temporary folder allowing 127.0.0.1, with a receiver and a webhook that sends it everything. */
export async function harnessWithWebhook(options: { compactMinBytes?: number } = {}): Promise<{ h: Harness; receiver: Receiver; webhook: { id: string; secret: string } }> {
  const h = await startHarness({ webhookHosts: ['127.0.0.1'], ...options });
  const receiver = await startReceiver();
  const webhook = (await call(h.app, 'POST', '/webhooks', { key: h.keys.admin, body: { url: receiver.url } })).json;
  receiver.secret = webhook.secret;
  return { h, receiver, webhook };
}

/** The app again on the same folder, as a restart would open it. */
export function reopen(dataDir: string, options: { compactMinBytes?: number; logger?: AppOptions['logger'] } = {}): Promise<App> {
  return openApp({ dataDir, keyPollMs: 0, webhookHosts: ['127.0.0.1'], ...options }, { unsafeNoSync: true });
}
