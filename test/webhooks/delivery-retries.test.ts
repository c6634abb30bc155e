// Retries on a fake clock (API.md §13): failed attempts come again after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, then every
// 10 h, for 3 days; then the webhook is failing until set active. A paused webhook holds its messages.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { startHarness, type Harness } from '../helpers/harness.js';
import { eventually, FakeClock, startReceiver, type Behaviour, type Receiver } from './support.js';

const START = Date.parse('2026-11-25T08:00:00Z');
const S = 1000;
const H = 3600 * S;
/** The waits of §13 after the 1st, 2nd, … failure. */
const WAITS = [5 * S, 300 * S, 1800 * S, 2 * H, 5 * H, 10 * H];

interface Setup {
  h: Harness;
  clock: FakeClock;
  receiver: Receiver;
  webhook: { id: string; secret: string };
}

async function setup(behaviour: Behaviour): Promise<Setup> {
  const clock = new FakeClock(START);
  const h = await startHarness({ webhookHosts: ['127.0.0.1'] }, { webhooks: { clock } });
  // Timestamps are the fake clock's: each signature is checked against standardwebhooks' own sign(), not its 5-minute window.
  const receiver = await startReceiver({ verify: false });
  receiver.behaviour = behaviour;
  const created = await h.request('POST', '/webhooks', { key: h.keys.admin, body: { url: receiver.url } });
  return { h, clock, receiver, webhook: created.json };
}

async function teardown({ h, receiver }: Setup): Promise<void> {
  await receiver.close();
  await h.close();
}

async function deliveries(s: Setup): Promise<{ message_id: string; attempt: number; status: string; response_status: number | null; error: string | null; at: string }[]> {
  return (await s.h.request('GET', `/webhooks/${s.webhook.id}/deliveries`, { key: s.h.keys.admin })).json.deliveries;
}

async function createEvent(s: Setup, title: string): Promise<string> {
  const response = await s.h.request('POST', '/events', { key: s.h.keys.admin, body: { title, category: 'social', location: 'Quad', start_time: '2027-05-01T10:00:00Z', end_time: '2027-05-01T12:00:00Z', capacity: 5 } });
  assert.equal(response.status, 201);
  return response.json.id;
}

/**
 * Drives `attempts` failing attempts of the one pending message, moving the clock to each expected attempt time, and
 * returns the webhook-timestamp of each. `answerMs` is how long a failure takes on the clock (10 s for a hung receiver).
 */
async function driveAttempts(s: Setup, attempts: number, answerMs: number): Promise<number[]> {
  const firstAttempt = s.clock.now();
  let firstFailure: number | undefined;
  let at = firstAttempt;
  for (let k = 1; k <= attempts; k++) {
    await eventually(`attempt ${k}`, () => s.receiver.received.length >= k);
    if (answerMs > 0) s.clock.advanceTo(at + answerMs);
    const failedAt = at + answerMs;
    firstFailure ??= failedAt;
    await eventually(`the outcome of attempt ${k}`, () => logLength(s) >= k);
    at = Math.min(failedAt + WAITS[Math.min(k, WAITS.length) - 1]!, firstFailure + 72 * H);
    if (k < attempts) s.clock.advanceTo(at);
  }
  return s.receiver.received.map((entry) => Number(entry.timestamp));
}

let lengths = new Map<string, number>();
function logLength(s: Setup): number {
  return lengths.get(s.webhook.id) ?? 0;
}

/** Keeps `lengths` fresh from the delivery log while a drive runs. */
function watchLog(s: Setup): () => void {
  let stopped = false;
  void (async () => {
    while (!stopped) {
      lengths.set(s.webhook.id, (await deliveries(s)).length);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  return () => {
    stopped = true;
  };
}

/** The attempt times (s) the schedule gives, the first at `first` (ms), failures taking `answerMs`. */
function scheduleTimes(first: number, count: number, answerMs: number): number[] {
  const times = [first];
  const firstFailure = first + answerMs;
  for (let k = 1; k < count; k++) times.push(Math.min(times[k - 1]! + answerMs + WAITS[Math.min(k, WAITS.length) - 1]!, firstFailure + 72 * H));
  return times.map((ms) => Math.floor(ms / 1000));
}

for (const [behaviour, answerMs, error, status] of [
  ['error', 0, /answered 500/, 500],
  ['hang', 10 * S, /no answer within 10 s/, null],
  ['reset', 0, /connection reset/, null],
  ['redirect', 0, /answered 302; redirects are not followed/, 302],
  ['huge', 0, /answered 500/, 500],
] as const) {
  test(`a receiver that ${behaviour === 'error' ? 'answers 500' : behaviour === 'hang' ? 'never answers' : behaviour === 'reset' ? 'resets the connection' : behaviour === 'redirect' ? 'redirects' : 'sends 10 MiB'} is retried after 5 s, 5 min and 30 min, with the same webhook-id and a fresh signature`, async () => {
    lengths = new Map();
    const s = await setup(behaviour);
    const stop = watchLog(s);
    try {
      await createEvent(s, `Retry ${behaviour}`);
      const times = await driveAttempts(s, 4, answerMs);
      assert.deepEqual(times, scheduleTimes(START, 4, answerMs));
      const log = await deliveries(s);
      assert.deepEqual(log.map((entry) => entry.attempt), [4, 3, 2, 1]);
      for (const entry of log) {
        assert.equal(entry.status, 'failed');
        assert.equal(entry.response_status, status);
        assert.match(entry.error!, error);
      }
      assert.equal(new Set(s.receiver.received.map((entry) => entry.id)).size, 1, 'one message, one webhook-id');
      for (const entry of s.receiver.received) {
        assert.equal(entry.signature, new Webhook(s.webhook.secret).sign(entry.id, new Date(Number(entry.timestamp) * 1000), entry.body));
      }
      if (behaviour === 'huge') for (const written of s.receiver.hugeWritten) assert.ok(written < 10 * 1024 * 1024, `the client read the whole 10 MiB answer (${written} bytes written)`);
    } finally {
      stop();
      await teardown(s);
    }
  });
}

test('after 3 days of failures the webhook is failing and stops; set active, it sends again from the same message', async () => {
  lengths = new Map();
  const s = await setup('error');
  const stop = watchLog(s);
  try {
    await createEvent(s, 'Three days');
    const times = await driveAttempts(s, 13, 0);
    assert.deepEqual(times, scheduleTimes(START, 13, 0));
    assert.equal(times.at(-1)! - times[0]!, 72 * 3600, 'the last attempt falls at the end of the 3 days');
    await eventually('failing', () => logLength(s) >= 13);
    const webhook = (await s.h.request('GET', `/webhooks/${s.webhook.id}`, { key: s.h.keys.admin })).json;
    assert.equal(webhook.status, 'failing');
    s.clock.advanceTo(s.clock.now() + 100 * H);
    assert.equal(s.receiver.received.length, 13, 'a failing webhook sends nothing');
    s.receiver.behaviour = 'ok';
    const resumed = await s.h.request('PUT', `/webhooks/${s.webhook.id}`, { key: s.h.keys.admin, body: { status: 'active' } });
    assert.equal(resumed.json.status, 'active');
    await eventually('the 14th attempt', () => s.receiver.received.length >= 14);
    assert.equal(s.receiver.received[13]!.id, s.receiver.received[0]!.id);
    await eventually('its success in the log', () => logLength(s) >= 14);
    assert.equal((await deliveries(s))[0]!.status, 'succeeded');
  } finally {
    stop();
    await teardown(s);
  }
});

test('a paused webhook holds its messages whatever the time, and sends them in order once active', async () => {
  const s = await setup('ok');
  try {
    await s.h.request('PUT', `/webhooks/${s.webhook.id}`, { key: s.h.keys.admin, body: { status: 'paused' } });
    const ids = [];
    for (let n = 0; n < 5; n++) ids.push(await createEvent(s, `Held ${n}`));
    s.clock.advanceTo(START + 10 * 24 * H);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(s.receiver.received.length, 0);
    await s.h.request('PUT', `/webhooks/${s.webhook.id}`, { key: s.h.keys.admin, body: { status: 'active' } });
    await eventually('five messages', () => s.receiver.received.length >= 5);
    assert.deepEqual(s.receiver.received.map((entry) => (entry.message!.data as { id: string }).id), ids);
    assert.deepEqual(s.receiver.received.map((entry) => entry.message!.type), Array(5).fill('event.created'));
  } finally {
    await teardown(s);
  }
});

/** A webhook at a receiver that behaves as `behaviour`, its delivery log watched, and a working receiver to move it to. */
async function withMove(behaviour: Behaviour, run: (s: Setup, fixed: Receiver, moveTo: (url: string) => Promise<void>) => Promise<void>): Promise<void> {
  lengths = new Map();
  const s = await setup(behaviour);
  const stop = watchLog(s);
  const fixed = await startReceiver({ verify: false });
  const moveTo = async (url: string): Promise<void> => assert.equal((await s.h.request('PUT', `/webhooks/${s.webhook.id}`, { key: s.h.keys.admin, body: { url } })).status, 200);
  try {
    await run(s, fixed, moveTo);
  } finally {
    stop();
    await fixed.close();
    await teardown(s);
  }
}

test('a new url is tried at once, the retry schedule starting afresh; the same url sent back keeps the schedule', () =>
  withMove('error', async (s, fixed, moveTo) => {
    await createEvent(s, 'Moved receiver');
    await eventually('the first attempt', () => s.receiver.received.length === 1);
    await eventually('its failure in the log', () => logLength(s) >= 1);
    // The url as read, sent back: nothing changes, and the retry comes 5 s after the failure, not now.
    await moveTo(s.receiver.url);
    s.clock.advanceTo(START + 5 * S);
    await eventually('the second attempt', () => s.receiver.received.length === 2);
    assert.deepEqual(s.receiver.received.map((entry) => Number(entry.timestamp)), [START / S, START / S + 5]);
    await eventually('its failure in the log', () => logLength(s) >= 2);
    // The admin points it at a receiver that works: the message goes there now, not 5 min after the second failure.
    await moveTo(fixed.url);
    await eventually('the message at the new url', () => fixed.received.length === 1);
    assert.equal(fixed.received[0]!.id, s.receiver.received[0]!.id, 'the same message');
    assert.equal(Number(fixed.received[0]!.timestamp), START / S + 5);
    await eventually('its success in the log', () => logLength(s) >= 3);
    assert.deepEqual((await deliveries(s)).map((entry) => [entry.attempt, entry.status]), [[1, 'succeeded'], [2, 'failed'], [1, 'failed']]);
  }));

test('a new url while an attempt hangs at the old one: that attempt is abandoned, uncounted, and the message goes to the new url now', () =>
  withMove('hang', async (s, fixed, moveTo) => {
    await createEvent(s, 'Black hole');
    await eventually('the attempt in flight', () => s.receiver.received.length === 1);
    await moveTo(fixed.url);
    await eventually('the message at the new url', () => fixed.received.length === 1);
    assert.equal(fixed.received[0]!.id, s.receiver.received[0]!.id, 'the same message');
    await eventually('its success in the log', () => logLength(s) >= 1);
    assert.deepEqual((await deliveries(s)).map((entry) => [entry.attempt, entry.status]), [[1, 'succeeded']]);
  }));
