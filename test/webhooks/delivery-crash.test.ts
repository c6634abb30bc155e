// kill -9 of the real server while messages are in flight and while the receiver is down: after each restart every
// acknowledged write's message arrives, at least once, in order; deduplicated on webhook-id, each exactly once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tempDir } from '../helpers/harness.js';
import { runCli } from '../helpers/spawn.js';
import { eventBody, send, serverArgs, startServer, type Server } from '../durability/support.js';
import { mulberry32 } from '../helpers/random.js';
import { eventually, startReceiver } from './support.js';

const ROUNDS = 4;
const WRITERS = 4;

test('kill -9 with messages in flight and with the receiver down: none lost, in order, exactly once after dedup on webhook-id', { timeout: 120_000 }, async () => {
  const seed = Number(process.env['WEBHOOK_SEED'] ?? Date.now() % 1_000_000);
  const random = mulberry32(seed);
  const { dir, remove } = tempDir('campus-webhook-crash-');
  const made = runCli(['keys', 'create', '--name', 'Ada Admin', '--email', 'ada@campus.edu', '--role', 'admin', '--data-dir', dir]);
  assert.equal(made.status, 0, made.stderr);
  const key = made.stdout.trim();
  const receiver = await startReceiver();
  const args = serverArgs(dir, ['--webhook-hosts', '127.0.0.1']);
  let server: Server = await startServer(args);
  const acknowledged = new Set<string>();
  try {
    const created = await send(server.url, key, 'POST', '/webhooks', { url: receiver.url, events: ['event.created'] });
    assert.equal(created.status, 201);
    receiver.secret = ((await created.json()) as { secret: string }).secret;
    for (let round = 0; round < ROUNDS; round++) {
      const receiverDown = round % 2 === 1;
      if (receiverDown) await receiver.close();
      const target = acknowledged.size + 20 + Math.floor(random() * 40);
      let alive = true;
      const writer = async (w: number): Promise<void> => {
        for (let n = 0; alive; n++) {
          try {
            const response = await send(server.url, key, 'POST', '/events', eventBody(`r${round} w${w} n${n}`));
            if (response.status === 201) acknowledged.add(((await response.json()) as { id: string }).id);
          } catch {
            return; // the server died under this request: it may or may not have landed
          }
        }
      };
      const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
      await eventually(`${target} acknowledged writes in round ${round}`, () => acknowledged.size >= target);
      server.child.kill('SIGKILL');
      alive = false;
      await server.exited;
      await Promise.all(writers);
      if (receiverDown) await receiver.reopen();
      server = await startServer(args);
    }
    const delivered = (): Set<string> => new Set(receiver.unique().map((entry) => (entry.message!.data as { id: string }).id));
    await eventually(`all ${acknowledged.size} acknowledged writes delivered (seed ${seed})`, () => [...acknowledged].every((id) => delivered().has(id)), 30_000);
    assert.ok(receiver.received.every((entry) => entry.message !== undefined), 'every attempt verified with standardwebhooks');
    const unique = receiver.unique();
    const positions = unique.map((entry) => entry.id.split('_').slice(2).map(Number) as [number, number]);
    for (let i = 1; i < positions.length; i++) {
      assert.ok(positions[i]![0] > positions[i - 1]![0], `first arrivals in write order: ${unique[i - 1]!.id} then ${unique[i]!.id} (seed ${seed})`);
    }
    const eventIds = unique.map((entry) => (entry.message!.data as { id: string }).id);
    assert.equal(new Set(eventIds).size, eventIds.length, 'each event created once after dedup');
    assert.ok(receiver.received.length >= unique.length);
    console.log(`acknowledged ${acknowledged.size}, attempts ${receiver.received.length}, unique ${unique.length}`);
  } finally {
    server.child.kill('SIGKILL');
    await server.exited;
    await receiver.close();
    remove();
  }
});
