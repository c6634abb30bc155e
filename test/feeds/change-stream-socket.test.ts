// A change stream through a real socket: the node adapter writes it as it comes, and shutdown ends it cleanly.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import test from 'node:test';
import { createKey } from '../../src/auth/key-registry.js';
import { startServerWith } from '../../src/start-server.js';
import { eventBody, tempDir } from '../helpers/harness.js';

test('a change stream over HTTP delivers live changes, and ends cleanly (not cut) when the server shuts down', async (t) => {
  const { dir, remove } = tempDir();
  t.after(remove);
  const key = (await createKey(dir, { name: 'Ada', email: 'ada@campus.edu', role: 'admin' }, { randomBytes, now: Date.now })).secret;
  const running = await startServerWith({ dataDir: dir, port: 0, keyPollMs: 0, bootstrapAdminKey: false }, { unsafeNoSync: true });
  const headers = { authorization: `Bearer ${key}` };
  const response = await fetch(`${running.url}/changes?since=0`, { headers: { ...headers, accept: 'text/event-stream' } });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const created = await fetch(`${running.url}/events`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(eventBody({ title: 'Live' })) });
  assert.equal(created.status, 201);
  const id = ((await created.json()) as { id: string }).id;
  let text = '';
  while (!text.includes('\n\n')) {
    const chunk = await reader.read();
    assert.equal(chunk.done, false, 'the stream stays open');
    text += decoder.decode(chunk.value, { stream: true });
  }
  assert.match(text, new RegExp(`^id: 1\nevent: change\ndata: \\{"seq":1,"id":"${id}","deleted":false,"event":\\{`));
  // A long grace: were the stream not ended by the server itself, close() would wait for it and the test would time out.
  const closing = running.close(120_000);
  for (;;) {
    const chunk = await reader.read();
    if (chunk.done) break;
  }
  await closing;
});
