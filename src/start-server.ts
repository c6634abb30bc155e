// startServer(options): createApp plus a node:http server with the contract's time-outs, listening.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { forgetInitialAdminKey, openApp, type App, type AppOptions, type InternalOptions } from './app.js';
import { checkAppOptions, checkServerOptions } from './app-options.js';
import { MAX_HEAD_BYTES } from './http/errors.js';
import { answerConnect, answeredBeforeMoreBytes } from './http/node-adapter.js';
import { silentLogger } from './log/logger.js';

/** How long a client may take, in ms: its headers, its whole request, and idling between keep-alive requests. */
export interface ServerTimeouts {
  headersMs: number;
  requestMs: number;
  keepAliveMs: number;
}

/** The contract's time-outs (API.md §6): headers within 10 s, the whole request within 30 s, 5 s idle keep-alive. */
export const CONTRACT_TIMEOUTS: Readonly<ServerTimeouts> = Object.freeze({ headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 });

export interface StartOptions extends AppOptions {
  /** Default 3000; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /**
   * Tests only: shorter time-outs than the contract's, so a test of a stalled client need not
   * wait 30 s. `headersMs` must not exceed `requestMs`. Default CONTRACT_TIMEOUTS.
   */
  timeouts?: ServerTimeouts;
}

export interface RunningServer {
  app: App;
  server: http.Server;
  /** The address actually bound (with port 0, the port the system chose). */
  address: AddressInfo;
  /** The URL clients use, e.g. `http://127.0.0.1:3000`. */
  url: string;
  /**
   * Graceful stop: refuse new connections, let requests in flight finish (at most
   * `graceMs`, default 10 s), then flush and close the store and release the folder.
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * A keep-alive connection whose idle time ran out is closed one turn of the event loop later, unless bytes of a new
 * request were read on it meanwhile. After the process stood still (SIGSTOP, a paused VM, a long pause of the loop),
 * timers run before sockets are read: node would reset connections whose next request was already waiting, and a
 * client's write would get no answer at all. Listening for `timeout` takes the closing over from node, so it is
 * done here. A client that began its next request and stalled in it is not idle: it gets the head's time (node's
 * check then answers it 408, as on a new connection, API.md §3), once; bytes that begin no request (a stray CRLF,
 * which node's parser skips) then close it.
 */
function closeIdleOneTurnLater(server: http.Server): void {
  server.on('timeout', (socket: Socket) => {
    const read = socket.bytesRead;
    setImmediate(() => {
      if (socket.bytesRead !== read) return;
      const answered = answeredBeforeMoreBytes(socket);
      if (answered === undefined) {
        socket.destroy();
        return;
      }
      // Node's keep-alive flag stays set: a request that arrives puts the connection's time-out back to none. The
      // deadline is fixed, not renewed by bytes: CRLFs sent every few seconds would otherwise hold it open for ever.
      socket.setTimeout(0);
      setTimeout(() => {
        if (answeredBeforeMoreBytes(socket) === answered) socket.destroy();
      }, server.headersTimeout + HEAD_CHECK_SLACK_MS).unref();
    });
  });
}

/** Beyond the head's time, how long a stalled next request waits for node's check to answer it 408 (it runs at most every second). */
const HEAD_CHECK_SLACK_MS = 2_000;

/** How long shutdown waits for the 503s of requests whose body was still arriving to be written, in ms. */
const UNFINISHED_ANSWER_MS = 1_000;

/** Starts the service and resolves once it listens. */
export function startServer(options: StartOptions = {}): Promise<RunningServer> {
  return startServerWith(options, {});
}

/** startServer with the switches of this package's own tests and benchmarks (not exported from index.ts). */
export async function startServerWith(options: StartOptions, internal: InternalOptions): Promise<RunningServer> {
  // A misspelt name is refused naming startServer and its own options too; then the app gets only the app's.
  checkAppOptions(options, { name: 'startServer', more: ['port', 'host', 'timeouts'] });
  // Checked before the app takes the folder's lock: node:http would throw only after it, or listen on a file named by the port.
  const { host: listenHost } = checkServerOptions(options);
  const { port, host: _asGiven, timeouts = CONTRACT_TIMEOUTS, ...appOptions } = options;
  const app = await openApp(appOptions, internal);
  const server = http.createServer(
    {
      // Node counts fewer bytes of a head than were sent; the adapter counts the rest (headerFault).
      maxHeaderSize: MAX_HEAD_BYTES,
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      keepAliveTimeout: timeouts.keepAliveMs,
      // Check the time-outs often enough that a stalled client is cut off on time (default: every 30 s).
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(timeouts.headersMs / 10))),
      // The adapter answers a missing Host with a JSON 400; node's own answer has no body.
      requireHostHeader: false,
    },
    app.handler,
  );
  // No header is dropped silently (node keeps 2,000 by default); the 16 KiB cap bounds them.
  server.maxHeadersCount = 0;
  server.on('clientError', app.clientError);
  // Expect: 100-continue: a body over the cap, or from a bad key, is not invited; the app answers (413, 401...) and closes.
  server.on('checkContinue', app.checkContinue);
  // Any other expectation is ignored, as RFC 9110 §10.1.1 allows (node would answer a bodiless 417).
  server.on('checkExpectation', app.handler);
  // CONNECT: node drops the socket unless someone listens; answer it (400 or 405) and close.
  server.on('connect', answerConnect(app.handle, options.logger ?? silentLogger));
  closeIdleOneTurnLater(server);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port ?? 3000, listenHost ?? '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    // A key created on this start was never shown: remove it, so the next start makes (and prints) one. The start's
    // own reason is what is thrown, whatever the removal meets.
    try {
      await forgetInitialAdminKey(app);
    } catch (forgetError) {
      (options.logger ?? silentLogger).warn('the first admin key, never shown, could not be removed: make one with campus-events-cli keys create --role admin', { error: String(forgetError) });
    } finally {
      await app.close();
    }
    throw error;
  }
  const address = server.address() as AddressInfo;
  // The host as configured (`localhost` stays `localhost`), with the port actually bound.
  const configured = listenHost ?? '127.0.0.1';
  const host = configured.includes(':') ? `[${configured}]` : configured;
  let closing: Promise<void> | undefined;
  return {
    app,
    server,
    address,
    url: `http://${host}:${address.port}`,
    close(graceMs = 10_000) {
      closing ??= (async () => {
        app.drain();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([closed, new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
        clearTimeout(timer);
        // A client still sending its body gets the 503 of a late request rather than a cut connection (given 1 s to go out).
        await Promise.race([app.answerUnfinished(), new Promise<void>((resolve) => (timer = setTimeout(resolve, UNFINISHED_ANSWER_MS)))]);
        clearTimeout(timer);
        server.closeAllConnections();
        await app.close();
      })();
      return closing;
    },
  };
}
