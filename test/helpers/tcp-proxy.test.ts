// The fault proxy of the PostgreSQL tests, against an echo server: it forwards, freezes without closing, thaws, drops.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

/** Connects to the proxy and collects what comes back. */
async function client(proxy: TcpProxy): Promise<{ socket: Socket; received: () => string; closed: Promise<unknown> }> {
  const socket = connect({ host: '127.0.0.1', port: proxy.port });
  let text = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  socket.on('error', () => undefined);
  // once() would reject on the 'error' a reset emits first.
  const closed = new Promise((resolve) => socket.on('close', resolve));
  // A refused connection may be reset before or after it counts as connected.
  await Promise.race([once(socket, 'connect').catch(() => undefined), closed]);
  return { socket, received: () => text, closed };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let tries = 0; !check(); tries++) {
    assert.ok(tries < 200, `timed out waiting until ${what}`);
    await sleep(10);
  }
}

describe('startTcpProxy', () => {
  let echo: Server;
  let proxy: TcpProxy;
  before(async () => {
    echo = createServer((socket) => socket.on('error', () => undefined).pipe(socket));
    echo.listen(0, '127.0.0.1');
    await once(echo, 'listening');
    const address = echo.address();
    proxy = await startTcpProxy({ host: '127.0.0.1', port: typeof address === 'object' && address !== null ? address.port : 0 });
  });
  after(async () => {
    await proxy.close();
    echo.close();
  });

  it('forwards both ways; frozen, it forwards nothing and keeps the socket open; thawed, the held bytes arrive', async () => {
    const a = await client(proxy);
    a.socket.write('one');
    await until(() => a.received() === 'one', 'the echo of "one"');
    proxy.freeze();
    a.socket.write('two');
    await sleep(200);
    assert.equal(a.received(), 'one', 'nothing came back while frozen');
    assert.equal(a.socket.destroyed, false);
    // A connection made during the freeze is held too.
    const b = await client(proxy);
    b.socket.write('held');
    await sleep(100);
    assert.equal(b.received(), '');
    proxy.thaw();
    await until(() => a.received() === 'onetwo' && b.received() === 'held', 'the held bytes');
    a.socket.destroy();
    b.socket.destroy();
  });

  it('strike runs its action right after forwarding the first matching chunk, or at its time-out', async () => {
    const a = await client(proxy);
    const struck = proxy.strike((chunk) => chunk.includes('LOCK'), () => proxy.freeze(), 2_000);
    a.socket.write('plain');
    await until(() => a.received() === 'plain', 'the echo of a chunk that does not match');
    a.socket.write('take the LOCK');
    assert.equal(await struck, true);
    await sleep(100);
    assert.equal(a.received(), 'plain', 'frozen before the answer to the matching chunk came back');
    proxy.thaw();
    await until(() => a.received() === 'plaintake the LOCK', 'the answer after the thaw');
    let acted = false;
    assert.equal(await proxy.strike(() => false, () => (acted = true), 50), false);
    assert.equal(acted, true);
    a.socket.destroy();
  });

  it('drop destroys every connection; then refuses new ones until thawed, or forwards them', async () => {
    const a = await client(proxy);
    await until(() => proxy.connections === 1, 'the connection is counted');
    proxy.drop({ then: 'refuse' });
    await a.closed;
    const refused = await client(proxy);
    await refused.closed;
    assert.equal(refused.received(), '');
    proxy.thaw();
    const b = await client(proxy);
    b.socket.write('again');
    await until(() => b.received() === 'again', 'the echo after the drop');
    proxy.drop();
    await b.closed;
    const c = await client(proxy);
    c.socket.write('forwarded');
    await until(() => c.received() === 'forwarded', 'the echo after a drop that forwards');
    c.socket.destroy();
  });
});
