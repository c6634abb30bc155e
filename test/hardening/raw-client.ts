// A raw TCP client for the hardening tests: write bytes when told, record what comes back and when the server closes.
import net from 'node:net';

/** A connection to the server whose every byte the test controls. */
export interface RawClient {
  socket: net.Socket;
  /** Everything received so far, as latin1 text. */
  received(): string;
  /** Resolves when the server closes the connection (or it errors), with the ms since connecting. */
  closed: Promise<number>;
  /** True once closed. */
  isClosed(): boolean;
  write(data: string | Buffer): void;
  /** Resolves once `text` has been received, or rejects after `ms`. */
  waitFor(text: string, ms: number): Promise<void>;
  destroy(): void;
}

/** Connects to 127.0.0.1:`port` and resolves once connected; `halfOpen` keeps the client's side open after the server's FIN. */
export function rawConnect(port: number, options: { halfOpen?: boolean } = {}): Promise<RawClient> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: options.halfOpen === true });
    const started = Date.now();
    let text = '';
    let isClosed = false;
    const waiters: (() => void)[] = [];
    socket.on('data', (data: Buffer) => {
      text += data.toString('latin1');
      for (const wake of waiters.splice(0)) wake();
    });
    const closed = new Promise<number>((resolveClosed) => {
      const done = (): void => {
        isClosed = true;
        for (const wake of waiters.splice(0)) wake();
        resolveClosed(Date.now() - started);
      };
      socket.on('close', done);
    });
    socket.on('error', () => undefined); // a reset after the server closed is expected; `closed` reports it
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve({
        socket,
        received: () => text,
        closed,
        isClosed: () => isClosed,
        write: (data) => {
          if (!socket.destroyed) socket.write(data);
        },
        waitFor(expected, ms) {
          return new Promise((resolveWait, rejectWait) => {
            const deadline = setTimeout(() => rejectWait(new Error(`did not receive ${JSON.stringify(expected)} within ${ms} ms; got ${JSON.stringify(text.slice(0, 300))}`)), ms);
            const check = (): void => {
              if (text.includes(expected)) {
                clearTimeout(deadline);
                resolveWait();
              } else if (isClosed) {
                clearTimeout(deadline);
                rejectWait(new Error(`closed before ${JSON.stringify(expected)} arrived; got ${JSON.stringify(text.slice(0, 300))}`));
              } else {
                waiters.push(check);
              }
            };
            check();
          });
        },
        destroy: () => socket.destroy(),
      });
    });
    socket.once('error', reject);
  });
}

/** The status, lower-case headers and body of the first response in `text`, or undefined if its head is incomplete. */
export function parseResponse(text: string): { status: number; headers: Record<string, string>; body: string } | undefined {
  const end = text.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = headers['content-length'];
  const rest = text.slice(end + 4);
  return { status, headers, body: length === undefined ? rest : rest.slice(0, Number(length)) };
}

/** Resolves after `ms`: only for pacing bytes a slow client sends, never to wait for the server. */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
