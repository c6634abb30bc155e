// startServer(options): createApp plus a node:http server with the contract's time-outs, listening.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, type App, type AppOptions } from './app.js';
import { answerClientError } from './http/node-adapter.js';

export interface StartOptions extends AppOptions {
  /** Default 3000; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
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

/** Starts the service and resolves once it listens. */
export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  const app = await createApp(options);
  const server = http.createServer(
    {
      maxHeaderSize: 16 * 1024,
      headersTimeout: 10_000,
      requestTimeout: 30_000,
      keepAliveTimeout: 5_000,
      // Check the two time-outs every second, so a stalled client is cut off on time (default: every 30 s).
      connectionsCheckingInterval: 1_000,
    },
    app.handler,
  );
  server.on('clientError', answerClientError);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 3000, options.host ?? '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await app.close();
    throw error;
  }
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
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
        server.closeAllConnections();
        await app.close();
      })();
      return closing;
    },
  };
}
