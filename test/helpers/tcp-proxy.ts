// A TCP proxy on node:net between a client (an instance) and a server (PostgreSQL) that can cut the link on demand:
// freeze it (nothing forwarded either way, every socket kept open, as a partition or a paused machine looks), thaw
// it, or drop every connection. Used to cut off one instance from the database while the others keep theirs.
import { connect, createServer, type Server, type Socket } from 'node:net';

/** What the proxy does with the link now. */
export type ProxyMode = 'forward' | 'frozen' | 'refusing';

/** One client connection and its connection to the server (absent while frozen before it was made). */
interface Pair {
  client: Socket;
  upstream: Socket | undefined;
}

/** A running proxy on 127.0.0.1; see startTcpProxy. */
export interface TcpProxy {
  /** The port clients connect to. */
  readonly port: number;
  /** The current mode. */
  readonly mode: ProxyMode;
  /** Connections open now (each a client and its upstream). */
  readonly connections: number;
  /**
   * Stops forwarding both ways and keeps every socket open: bytes sent by either side stay unread in the kernel's
   * buffers. New connections are accepted and held, unconnected, until thaw. Note that the proxy's own kernel still
   * acknowledges what it receives, so TCP keepalives and `tcp_user_timeout` on either side do not notice a freeze
   * the way they would notice a real partition; only timers above TCP (the server's session time-outs, the client's
   * query time-outs) do.
   */
  freeze(): void;
  /** Forwards again: held bytes flow, held new connections are connected to the server. */
  thaw(): void;
  /**
   * Destroys every connection (both sides; `reset`, the default, sends a TCP RST as a broken link does, otherwise
   * a FIN). `then` says what new connections get: `refuse` (reset at once, until `thaw`) or `forward` (the default).
   */
  drop(options?: { then?: 'refuse' | 'forward'; reset?: boolean }): void;
  /**
   * Strikes at a chosen moment: runs `action` synchronously right after forwarding the first chunk from a client
   * that `test` accepts (say, the statement that takes a lock, or a COMMIT), so the server has it and the client
   * has no answer yet; or after `timeoutMs` if none came. Resolves with whether a chunk matched.
   */
  strike(test: (chunk: Buffer) => boolean, action: () => void, timeoutMs: number): Promise<boolean>;
  /** Stops listening and destroys every connection. */
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1, port 0, to `target` (host and port). */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = 'forward';
  const pairs = new Set<Pair>();
  const strikes = new Set<{ test: (chunk: Buffer) => boolean; fire: () => void }>();

  const end = (pair: Pair, reset: boolean): void => {
    pairs.delete(pair);
    for (const socket of [pair.client, pair.upstream]) {
      if (socket === undefined || socket.destroyed) continue;
      // A socket still connecting has no TCP handle to reset: it is destroyed plainly.
      if (reset && socket.readyState === 'open') socket.resetAndDestroy();
      else if (reset || socket.connecting) socket.destroy();
      else socket.end();
    }
  };

  const open = (pair: Pair): void => {
    const upstream = connect({ host: target.host, port: target.port });
    pair.upstream = upstream;
    upstream.setNoDelay(true);
    // Each side's end, error or close ends the other: the server restarting closes the instance's connection too.
    upstream.on('error', () => end(pair, true));
    upstream.on('close', () => end(pair, false));
    // pipe() would keep forwarding what it already read while frozen: data is forwarded by hand, and paused both ways.
    upstream.on('data', (chunk: Buffer) => {
      if (!pair.client.destroyed) pair.client.write(chunk);
    });
    if (mode === 'frozen') upstream.pause();
    pair.client.resume();
  };

  const server: Server = createServer({ pauseOnConnect: true }, (client) => {
    client.setNoDelay(true);
    if (mode === 'refusing') {
      client.resetAndDestroy();
      return;
    }
    const pair: Pair = { client, upstream: undefined };
    pairs.add(pair);
    client.on('error', () => end(pair, true));
    client.on('close', () => end(pair, false));
    client.on('data', (chunk: Buffer) => {
      if (pair.upstream === undefined || pair.upstream.destroyed) return;
      pair.upstream.write(chunk);
      for (const strike of strikes) if (strike.test(chunk)) strike.fire();
    });
    // A client connecting during a freeze is held, paused and unconnected, as a link that answers nothing.
    if (mode === 'forward') open(pair);
  });
  server.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;

  return {
    port,
    get mode() {
      return mode;
    },
    get connections() {
      return pairs.size;
    },
    freeze() {
      mode = 'frozen';
      for (const pair of pairs) {
        pair.client.pause();
        pair.upstream?.pause();
      }
    },
    thaw() {
      mode = 'forward';
      for (const pair of pairs) {
        if (pair.upstream === undefined) open(pair);
        pair.client.resume();
        pair.upstream?.resume();
      }
    },
    drop(options = {}) {
      const reset = options.reset ?? true;
      for (const pair of [...pairs]) end(pair, reset);
      mode = options.then === 'refuse' ? 'refusing' : 'forward';
    },
    strike(test, action, timeoutMs) {
      return new Promise((resolve) => {
        const strike = {
          test,
          fire: () => {
            if (!strikes.delete(strike)) return;
            clearTimeout(timer);
            action();
            resolve(true);
          },
        };
        strikes.add(strike);
        const timer = setTimeout(() => {
          if (!strikes.delete(strike)) return;
          action();
          resolve(false);
        }, timeoutMs);
      });
    },
    async close() {
      strikes.clear();
      for (const pair of [...pairs]) end(pair, false);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
