// Ordering and completeness (API.md §13): mixed writes reach three webhooks with different filters, each message
// exactly once, in write order, every one verified with the standardwebhooks package.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { startHarness, type Harness } from '../helpers/harness.js';
import { mulberry32 } from '../helpers/random.js';
import { eventually, startReceiver, type Receiver } from './support.js';

const WRITES = 2000;

/** What the test expects: one (type, id) per message, in write order. */
type Expected = [type: string, id: string];

interface ModelEvent {
  confirmed: string[];
  waitlist: string[];
  checkedIn: Set<string>;
  capacity: number;
}

/** Makes `WRITES` random writes through the API, tracking which messages each must make (the seat rules of §8, independently). */
async function mixedWrites(h: Harness, random: () => number): Promise<Expected[]> {
  const expected: Expected[] = [];
  const events = new Map<string, ModelEvent>();
  const key = h.keys.admin;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  for (let n = 0; n < WRITES; n++) {
    const roll = random();
    const ids = [...events.keys()];
    if (ids.length < 3 || roll < 0.15) {
      const capacity = 1 + Math.floor(random() * 3);
      const response = await h.request('POST', '/events', { key, body: { title: `Event ${n}`, category: 'social', location: 'Quad', start_time: '2027-05-01T10:00:00Z', end_time: '2027-05-01T12:00:00Z', capacity } });
      assert.equal(response.status, 201);
      events.set(response.json.id, { confirmed: [], waitlist: [], checkedIn: new Set(), capacity });
      expected.push(['event.created', response.json.id]);
      continue;
    }
    const id = pick(ids);
    const event = events.get(id)!;
    const registered = [...event.confirmed, ...event.waitlist];
    if (roll < 0.22) {
      const capacity = event.capacity + 1;
      const response = await h.request('PUT', `/events/${id}`, { key, body: { capacity, title: `Renamed ${n}` } });
      assert.equal(response.status, 200);
      event.capacity = capacity;
      expected.push(['event.updated', id]);
      const promoted = event.waitlist.splice(0, capacity - event.confirmed.length);
      event.confirmed.push(...promoted);
      for (const registration of promoted) expected.push(['registration.promoted', registration]);
    } else if (roll < 0.27) {
      assert.equal((await h.request('DELETE', `/events/${id}`, { key })).status, 204);
      events.delete(id);
      expected.push(['event.deleted', id]);
    } else if (roll < 0.65 || registered.length === 0) {
      const response = await h.request('POST', `/events/${id}/registrations`, { key, body: { name: `Person ${n}`, email: `p${n}@campus.edu` } });
      assert.equal(response.status, 201);
      const registration = response.json.id as string;
      expected.push(['registration.created', registration]);
      if (event.confirmed.length < event.capacity) {
        assert.equal(response.json.status, 'confirmed');
        event.confirmed.push(registration);
        expected.push(['event.updated', id]);
      } else event.waitlist.push(registration);
    } else if (roll < 0.85) {
      const registration = pick(registered);
      assert.equal((await h.request('DELETE', `/events/${id}/registrations/${registration}`, { key })).status, 204);
      expected.push(['registration.cancelled', registration]);
      if (event.confirmed.includes(registration)) {
        event.confirmed.splice(event.confirmed.indexOf(registration), 1);
        const promoted = event.waitlist.shift();
        if (promoted === undefined) expected.push(['event.updated', id]);
        else {
          event.confirmed.push(promoted);
          expected.push(['registration.promoted', promoted]);
        }
      } else event.waitlist.splice(event.waitlist.indexOf(registration), 1);
    } else {
      const candidates = event.confirmed.filter((registration) => !event.checkedIn.has(registration));
      if (candidates.length === 0) continue;
      const registration = pick(candidates);
      assert.equal((await h.request('POST', `/events/${id}/registrations/${registration}/check-in`, { key })).status, 200);
      event.checkedIn.add(registration);
      expected.push(['registration.checked_in', registration]);
    }
  }
  return expected;
}

function idOf(message: { type: string; data: Record<string, unknown> }): string {
  return message.type.startsWith('registration.') ? (message.data['registration'] as { id: string }).id : (message.data['id'] as string);
}

test('2,000 mixed writes reach three webhooks with different filters: exactly the selected messages, in write order, each once, all verified', { timeout: 120_000 }, async () => {
  const seed = Number(process.env['WEBHOOK_SEED'] ?? Date.now() % 1_000_000);
  const h = await startHarness({ webhookHosts: ['127.0.0.1'], rateLimit: 1_000_000 });
  const receivers: Receiver[] = [];
  const filters: (string[] | undefined)[] = [undefined, ['event.created', 'event.deleted'], ['registration.created', 'registration.cancelled', 'registration.promoted', 'registration.checked_in']];
  try {
    for (const events of filters) {
      const receiver = await startReceiver();
      const created = await h.request('POST', '/webhooks', { key: h.keys.admin, body: events === undefined ? { url: receiver.url } : { url: receiver.url, events } });
      assert.equal(created.status, 201);
      receiver.secret = created.json.secret;
      receivers.push(receiver);
    }
    const expected = await mixedWrites(h, mulberry32(seed));
    const selected = filters.map((events) => expected.filter(([type]) => events === undefined || events.includes(type)));
    for (const [i, receiver] of receivers.entries()) {
      await eventually(`receiver ${i} to get ${selected[i]!.length} messages (seed ${seed})`, () => receiver.received.length >= selected[i]!.length);
    }
    // Nothing more comes: every webhook's delivery log shows its last message acknowledged.
    for (const [i, receiver] of receivers.entries()) {
      assert.ok(receiver.received.every((entry) => entry.message !== undefined), `receiver ${i}: a message failed standardwebhooks verification (seed ${seed})`);
      const got = receiver.received.map((entry): Expected => [entry.message!.type, idOf(entry.message!)]);
      assert.deepEqual(got, selected[i], `receiver ${i} (seed ${seed})`);
      assert.equal(new Set(receiver.received.map((entry) => entry.id)).size, receiver.received.length, 'each webhook-id once');
    }
    const first = receivers[0]!.received[0]!;
    const headers = { 'webhook-id': first.id, 'webhook-timestamp': first.timestamp, 'webhook-signature': first.signature };
    assert.throws(() => new Webhook(receivers[0]!.secret!).verify(first.body.replace('"type":"', '"type":"x'), headers), /signature/i);
    assert.throws(() => new Webhook(receivers[1]!.secret!).verify(first.body, headers), /signature/i);
  } finally {
    await h.close();
    for (const receiver of receivers) await receiver.close();
  }
});
