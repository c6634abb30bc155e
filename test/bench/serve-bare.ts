// What every bare baseline server does around its handler: listen on a free port, say where, and stop on SIGTERM.
import type http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on 127.0.0.1 (a free port), prints `listening on URL (pid N)` for the harness, and closes on SIGTERM. */
export function serveBare(server: http.Server): void {
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    process.stdout.write(`listening on http://127.0.0.1:${port} (pid ${process.pid})\n`);
  });
  process.on('SIGTERM', () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
