// send() (the durability tests' client) always settles when the server goes away mid-request: a promise left pending with
// no handle alive ends a kill -9 test "still pending" instead of proving anything.
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { send } from './support.js';

/** A real TCP receiver on 127.0.0.1 that answers each connection with `reply` (which may close it at once). */
async function receiver(reply: (socket: net.Socket) => void): Promise<{ url: string; close: () => Promise<void> }> {
  const server = net.createServer(reply);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

// First in the file on purpose: Node 20's fetch hangs forever on the process's first connection when the peer closes it
// at once (its parser is still being compiled and nothing listens to the socket yet). The receiver then stops listening,
// as a killed server does, so a send() left pending ends the test "still pending" at once. send() must reject instead.
test('send() rejects when the server closes the connection as soon as it is accepted, on the first connection of the process too', async () => {
  for (let attempt = 0; attempt < 3; attempt++) {
    let gone: () => Promise<void> = async () => undefined;
    const dropping = await receiver((socket) => {
      socket.destroy();
      void gone();
    });
    gone = dropping.close;
    await assert.rejects(send(dropping.url, 'key', 'POST', '/events', { title: `attempt ${attempt}` }));
    await dropping.close().catch(() => undefined);
  }
});

test('send() rejects an answer cut off mid-body, and resolves a whole one as a Response', async () => {
  const head = 'HTTP/1.1 201 Created\r\ncontent-type: application/json\r\nlocation: /events/evt_1\r\ncontent-length: 20\r\n';
  const cut = await receiver((socket) => socket.once('data', () => socket.end(`${head}\r\n{"id":"evt_1"`)));
  const whole = await receiver((socket) => socket.once('data', () => socket.end(`${head}connection: close\r\n\r\n{"id":"evt_1","x":1}`)));
  const empty = await receiver((socket) => socket.once('data', () => socket.end('HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n')));
  try {
    await assert.rejects(send(cut.url, 'key', 'POST', '/events', {}), /closed before the answer was complete|aborted/);
    const created = await send(whole.url, 'key', 'POST', '/events', {});
    assert.equal(created.status, 201);
    assert.equal(created.headers.get('location'), '/events/evt_1');
    assert.deepEqual(await created.json(), { id: 'evt_1', x: 1 });
    const deleted = await send(empty.url, 'key', 'DELETE', '/events/evt_1');
    assert.equal(deleted.status, 204);
    assert.equal(deleted.body, null);
  } finally {
    await Promise.all([cut.close(), whole.close(), empty.close()]);
  }
});
