// The history checker on hand-made histories: a consistent one passes, and each broken promise is caught, with the
// requests that show it (so the checker of history.test.ts can fail).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkAgreement, checkHistory, checkPhase, counterexamples, type CheckInput, type FollowerView } from './history-checker.js';
import type { Exchange, FeedSession, FinalState, History, InstanceState, PhaseWindow, Registration } from './history-record.js';

const RATE = { limit: 30, windowMs: 10_000 };

/** A history under construction: exchanges numbered in order, each 10 ms long unless said. */
function build(): { history: History; add(fields: Partial<Exchange> & Pick<Exchange, 'method' | 'path' | 'status' | 'op'>): Exchange } {
  const history: History = { exchanges: [], feeds: [], phases: [], writers: [0, 1], rate: RATE };
  return {
    history,
    add(fields) {
      const n = history.exchanges.length;
      const exchange: Exchange = { n, phase: 'p', client: 'c00', key: 'k0', instance: 0, start: n * 100, end: n * 100 + 10, requestHeaders: {}, headers: {}, ...fields };
      history.exchanges.push(exchange);
      return exchange;
    },
  };
}

const event = (id: string, fields: Record<string, unknown> = {}): Record<string, unknown> => ({ id, title: `t-${id}`, description: '', capacity: 2, registered_count: 0, ...fields });
const registration = (id: string, eventId: string, email: string, status: Registration['status'] = 'confirmed'): Registration => ({ id, event_id: eventId, email, status });

function finalOf(events: Record<string, unknown>[], rosters: Record<string, Registration[]> = {}, lastSeq = 10): FinalState {
  return { events: new Map(events.map((e) => [e['id'] as string, e])), lastSeq, lastEntrySeq: lastSeq, rosters: new Map(Object.entries(rosters)) };
}

function input(history: History, final: FinalState, extra: Partial<CheckInput> = {}): CheckInput {
  const followers: FollowerView[] = [{ name: 'paged', events: new Map(final.events), position: final.lastSeq }, { name: 'stream', events: new Map(final.events), position: final.lastEntrySeq }];
  return { history, final, states: [], followers, ...extra };
}

const checksOf = (violations: { check: string }[]): string[] => [...new Set(violations.map((violation) => violation.check))].sort();
const NOTHING_SAVED = { error: 'unavailable', message: 'The database cannot be reached (ECONNREFUSED); nothing of this request was saved. Retry in a moment.' };
const UNKNOWN = { error: 'unavailable', message: 'The write may have been saved; retry with the same Idempotency-Key.', details: [{ field: 'outcome', message: 'unknown: the database went away after COMMIT was sent' }] };

/** A consistent little history: an event created, two registrations (one cancelled), an update. */
function consistent(): { history: History; final: FinalState; add: ReturnType<typeof build>['add'] } {
  const { history, add } = build();
  add({ method: 'POST', path: '/events', status: 201, op: { kind: 'create-event', title: 't-evt_a', idem: 'k1' }, requestHeaders: { 'idempotency-key': 'k1' }, body: { id: 'evt_a' }, headers: { etag: '"1"' } });
  add({ method: 'POST', path: '/events', status: 201, instance: 1, op: { kind: 'create-event', title: 't-evt_a', idem: 'k1' }, requestHeaders: { 'idempotency-key': 'k1' }, body: { id: 'evt_a' }, headers: { etag: '"1"', 'idempotent-replayed': 'true' }, retryOf: 0 });
  add({ method: 'POST', path: '/events/evt_a/registrations', status: 201, op: { kind: 'register', eventId: 'evt_a', email: 'a@x.example' }, body: { id: 'reg_1', status: 'confirmed' } });
  add({ method: 'POST', path: '/events/evt_a/registrations', status: 201, op: { kind: 'register', eventId: 'evt_a', email: 'b@x.example' }, body: { id: 'reg_2', status: 'confirmed' } });
  add({ method: 'DELETE', path: '/events/evt_a/registrations/reg_2', status: 204, op: { kind: 'cancel', eventId: 'evt_a', regId: 'reg_2' } });
  add({ method: 'PUT', path: '/events/evt_a', status: 200, op: { kind: 'update', eventId: 'evt_a', token: 'u-1', ifMatch: '"4"' }, requestHeaders: { 'if-match': '"4"' }, headers: { etag: '"5"' }, body: event('evt_a', { description: 'u-1' }) });
  // A registration that failed and said so truthfully, and one whose outcome is unknown and did not happen.
  add({ method: 'POST', path: '/events/evt_a/registrations', status: 503, op: { kind: 'register', eventId: 'evt_a', email: 'c@x.example' }, body: NOTHING_SAVED });
  add({ method: 'POST', path: '/events/evt_a/registrations', status: 503, op: { kind: 'register', eventId: 'evt_a', email: 'd@x.example' }, body: UNKNOWN });
  const final = finalOf([event('evt_a', { description: 'u-1', registered_count: 1 })], { evt_a: [registration('reg_1', 'evt_a', 'a@x.example')] }, 5);
  return { history, final, add };
}

describe('checkHistory', () => {
  it('finds nothing wrong in a consistent history (replays, a truthful 503, an unknown outcome that did not happen)', () => {
    const { history, final } = consistent();
    assert.deepEqual(checkHistory(input(history, final)), []);
  });

  it('overbooked: registered_count above capacity, or not the confirmed count', () => {
    const { history, final } = consistent();
    final.events.set('evt_a', event('evt_a', { description: 'u-1', registered_count: 3 }));
    final.rosters.set('evt_a', [registration('reg_1', 'evt_a', 'a@x.example'), registration('reg_8', 'evt_a', 'e@x.example'), registration('reg_9', 'evt_a', 'f@x.example')]);
    const violations = checkHistory(input(history, final));
    assert.ok(violations.some((violation) => violation.check === 'overbooked' && /3 confirmed for 2 seats/.test(violation.message)), JSON.stringify(violations));
  });

  it('lost-write: an acknowledged registration missing, an acknowledged cancel undone, an acknowledged update gone', () => {
    const { history, final } = consistent();
    final.rosters.set('evt_a', [registration('reg_2', 'evt_a', 'b@x.example')]);
    final.events.set('evt_a', event('evt_a', { description: 'someone else', registered_count: 1 }));
    const messages = checkHistory(input(history, final)).filter((violation) => violation.check === 'lost-write').map((violation) => violation.message);
    assert.equal(messages.length, 3, messages.join('\n'));
    assert.match(messages.join('\n'), /reg_1 .*not in the final roster/);
    assert.match(messages.join('\n'), /reg_2 was cancelled \(204\) and is still/);
    assert.match(messages.join('\n'), /update of evt_a to "u-1"/);
  });

  it('an update superseded by a later update based on it is not lost', () => {
    const { history, final, add } = consistent();
    add({ method: 'PUT', path: '/events/evt_a', status: 0, error: 'timed out', op: { kind: 'update', eventId: 'evt_a', token: 'u-2', ifMatch: '"5"' } });
    final.events.set('evt_a', event('evt_a', { description: 'u-2', registered_count: 1 }));
    assert.deepEqual(checkHistory(input(history, final)), []);
  });

  it('lying-503: a registration answered "nothing was saved" is in the final roster; with a replayed retry as well', () => {
    const { history, final, add } = consistent();
    const liar = add({ method: 'POST', path: '/events/evt_a/registrations', status: 503, op: { kind: 'register', eventId: 'evt_a', email: 'g@x.example', idem: 'k9' }, body: NOTHING_SAVED });
    add({ method: 'POST', path: '/events/evt_a/registrations', status: 201, instance: 1, op: { kind: 'register', eventId: 'evt_a', email: 'g@x.example', idem: 'k9' }, headers: { 'idempotent-replayed': 'true' }, body: { id: 'reg_7', status: 'confirmed' }, retryOf: liar.n });
    final.events.set('evt_a', event('evt_a', { description: 'u-1', registered_count: 2 }));
    final.rosters.set('evt_a', [registration('reg_1', 'evt_a', 'a@x.example'), registration('reg_7', 'evt_a', 'g@x.example')]);
    const violations = checkHistory(input(history, final));
    assert.deepEqual(checksOf(violations), ['lying-503']);
    assert.ok(violations[0]!.exchanges.includes(liar.n));
    assert.match(counterexamples(violations, history.exchanges), /lying-503[\s\S]*nothing of this request was saved/);
  });

  it('idempotency: one Idempotency-Key answered two ids on two instances, and two events with its title', () => {
    const { history, final, add } = consistent();
    add({ method: 'POST', path: '/events', status: 201, instance: 1, op: { kind: 'create-event', title: 't-evt_a', idem: 'k1' }, requestHeaders: { 'idempotency-key': 'k1' }, body: { id: 'evt_b' } });
    final.events.set('evt_b', event('evt_b', { title: 't-evt_a' }));
    const violations = checkHistory(input(history, final));
    assert.deepEqual(checksOf(violations), ['idempotency']);
    assert.equal(violations.length, 2);
  });

  it('idempotency: a retry after the 201 answered 409 instead of replaying', () => {
    const { history, final, add } = consistent();
    const first = add({ method: 'POST', path: '/events/evt_a/registrations', status: 201, op: { kind: 'register', eventId: 'evt_a', email: 'h@x.example', idem: 'k5' }, body: { id: 'reg_5', status: 'confirmed' } });
    add({ method: 'POST', path: '/events/evt_a/registrations', status: 409, instance: 1, op: { kind: 'register', eventId: 'evt_a', email: 'h@x.example', idem: 'k5' }, body: { error: 'conflict' }, retryOf: first.n });
    final.events.set('evt_a', event('evt_a', { description: 'u-1', registered_count: 2 }));
    final.rosters.set('evt_a', [registration('reg_1', 'evt_a', 'a@x.example'), registration('reg_5', 'evt_a', 'h@x.example')]);
    assert.deepEqual(checksOf(checkHistory(input(history, final))), ['idempotency']);
  });

  it('if-match: two updates with one If-Match both succeeded (and so the first one\'s write is lost)', () => {
    const { history, final, add } = consistent();
    add({ method: 'PUT', path: '/events/evt_a', status: 200, instance: 1, op: { kind: 'update', eventId: 'evt_a', token: 'u-3', ifMatch: '"4"' }, requestHeaders: { 'if-match': '"4"' }, headers: { etag: '"6"' } });
    final.events.set('evt_a', event('evt_a', { description: 'u-3', registered_count: 1 }));
    assert.deepEqual(checksOf(checkHistory(input(history, final))), ['if-match', 'lost-write']);
  });

  it('follower: a seq that went back, and a copy that does not end equal to the final state', () => {
    const { history, final } = consistent();
    const feed: FeedSession = { kind: 'stream', phase: 'p', instance: 2, after: 0, start: 0, entries: [3, 5, 4].map((seq) => ({ seq, id: 'evt_a', deleted: false, event: null, at: seq })) };
    history.feeds.push(feed);
    const behind: FollowerView = { name: 'stream', events: new Map(), position: 4 };
    const violations = checkHistory(input(history, final, { followers: [behind] }));
    assert.deepEqual(checksOf(violations), ['follower']);
    assert.equal(violations.length, 2);
    assert.match(violations[0]!.message, /got seq 4 .* after 5/);
  });

  it('agreement: two instances that differ by one byte', () => {
    const state = (instance: number, body: string): InstanceState => ({ instance, changesPages: ['{"changes":[]}'], eventPages: [], eventBodies: { evt_a: body }, rosterPages: {} });
    const violations = checkAgreement([state(0, '{"capacity":2}'), state(1, '{"capacity":3}')]);
    assert.equal(violations.length, 1);
    assert.match(violations[0]!.message, /instances 0 and 1 differ on GET \/events\/evt_a: at byte 12/);
  });

  it('remaining-overstated: 29, 26, 23, 28 for sequential requests of one key over three instances', () => {
    const { history, add } = build();
    [29, 26, 23, 28].forEach((left, i) => add({ method: 'GET', path: '/me', status: 200, instance: i % 3, op: { kind: 'read' }, headers: { 'ratelimit-remaining': String(left) } }));
    const violations = checkHistory(input(history, finalOf([])));
    assert.deepEqual(checksOf(violations), ['remaining-overstated']);
    assert.deepEqual(violations[0]!.exchanges.slice(0, 1), [3]);
  });

  it('over-admitted: 31 requests admitted within one window of a limit of 30; not when they spread over two', () => {
    const { history, add } = build();
    for (let i = 0; i < 31; i++) add({ method: 'GET', path: '/me', status: 200, op: { kind: 'read' }, start: i * 100, end: i * 100 + 5 });
    assert.deepEqual(checksOf(checkHistory(input(history, finalOf([])))), ['over-admitted']);
    history.exchanges[30]!.start = 10_000;
    history.exchanges[30]!.end = 10_005;
    assert.deepEqual(checkHistory(input(history, finalOf([]))), []);
  });

  it('read-refused: a read answered 503 while its key was far under its limit; none when the key was at it', () => {
    const { history, add } = build();
    add({ method: 'GET', path: '/changes?since=0', status: 503, op: { kind: 'follow' }, body: { error: 'unavailable', message: 'The database that counts this key\'s requests cannot be reached' } });
    assert.deepEqual(checksOf(checkHistory(input(history, finalOf([])))), ['read-refused']);
    const full = build();
    for (let i = 0; i < 30; i++) full.add({ method: 'GET', path: '/me', status: 200, op: { kind: 'read' }, start: i, end: i + 1 });
    full.add({ method: 'GET', path: '/me', status: 429, op: { kind: 'read' }, start: 100, end: 101 });
    assert.deepEqual(checkHistory(input(full.history, finalOf([]))), []);
  });

  it('a 429 short of the limit counts only when certainly decided during a database outage (leases held elsewhere may stand between)', () => {
    const { history, add } = build();
    for (let i = 0; i < 5; i++) add({ method: 'GET', path: '/me', status: 200, op: { kind: 'read' }, start: i, end: i + 1 });
    add({ method: 'GET', path: '/me', status: 429, op: { kind: 'read' }, start: 100, end: 101 });
    assert.deepEqual(checkHistory(input(history, finalOf([]))), []);
    history.phases.push({ name: 'p', start: 0, end: 200, fault: { kind: 'db-restart', what: 'down', at: 50, healed: 150, cut: false, outage: { from: 50, to: 150 } } });
    assert.deepEqual(checksOf(checkHistory(input(history, finalOf([])))), ['read-refused']);
    // Answered as the database came back: it may have been decided after, like any 429.
    history.exchanges.at(-1)!.end = 160;
    assert.deepEqual(checkHistory(input(history, finalOf([]))), []);
  });

  describe('a read refused while the database is away (API.md §12: slots it already holds, slots that run out)', () => {
    const HELD_NO_SLOT = { error: 'unavailable', message: "The database that counts this key's requests over all instances cannot be reached (ECONNREFUSED), and this instance holds no slot of the limit for it now; retry in a moment." };
    /** 300 a 10 s over three instances (near its limit from 100); key k0 read steadily on instance 0, the database away from 5 s to 8 s, a 503 at `refusedAt`. */
    function away(refusedAt = 6_000): { history: History; add: ReturnType<typeof build>['add']; refusal: Exchange } {
      const { history, add } = build();
      history.rate = { limit: 300, windowMs: 10_000 };
      add({ key: 'other', instance: 1, method: 'GET', path: '/me', status: 200, op: { kind: 'read' }, start: 0, end: 1 });
      add({ key: 'other', instance: 2, method: 'GET', path: '/me', status: 200, op: { kind: 'read' }, start: 0, end: 1 });
      for (let at = 2_000; at < 5_000; at += 500) add({ method: 'GET', path: '/changes?since=0', status: 200, op: { kind: 'follow' }, start: at, end: at + 10 });
      history.phases.push({ name: 'p', start: 0, end: 12_000, fault: { kind: 'db-restart', what: 'down', at: 5_000, healed: 8_000, cut: false, outage: { from: 5_000, to: 8_000 } } });
      const refusal = add({ method: 'GET', path: '/changes?since=0', status: 503, op: { kind: 'follow' }, start: refusedAt, end: refusedAt + 2, headers: { 'retry-after': '1' }, body: HELD_NO_SLOT });
      history.exchanges.sort((a, b) => a.start - b.start).forEach((exchange, n) => (exchange.n = n));
      return { history, add, refusal };
    }
    const refused = (history: History): string[] => checkHistory(input(history, finalOf([]))).filter((violation) => violation.check === 'read-refused').map((violation) => violation.message);

    it('flags a key read steadily on that instance and far under its limit, during the outage and just after it', () => {
      assert.match(refused(away().history).join('\n'), /key k0: a read answered 503 with at most 6 of its 300 requests used \(near its limit from 100\)/);
      assert.equal(refused(away(9_500).history).length, 1, 'within 2 s of the database coming back');
      // Once the database is back, a key the instance never served is flagged too: it can ask for slots.
      const { history } = away(10_500);
      for (const exchange of history.exchanges) if (exchange.key === 'k0' && exchange.status === 200) exchange.instance = 1;
      assert.equal(refused(history).length, 1);
    });

    it('tolerates a key near its limit: 100 of 300 perhaps used in the window (a third: one instance holds ahead half the limit at most, half again the key\'s rate; its own refusals not counted)', () => {
      const { history, add } = away();
      // Answered or not (a read with no answer may have taken a slot).
      for (let i = 0; i < 94; i++) add({ method: 'GET', path: '/me', status: i % 2 === 0 ? 200 : 0, instance: 1, op: { kind: 'read' }, start: 4_000 + i, end: 4_001 + i });
      history.exchanges.sort((a, b) => a.start - b.start).forEach((exchange, n) => (exchange.n = n));
      assert.deepEqual(refused(history), []);
      // Refusals of the limiter's own took no slot: with one of them, 99 perhaps used is not near.
      const turned = history.exchanges.find((exchange) => exchange.instance === 1 && exchange.status === 0)!;
      turned.status = 503;
      turned.body = HELD_NO_SLOT;
      assert.equal(refused(history).length, 2, 'the one turned into a refusal is flagged too');
    });

    it('tolerates a key young at a pace near its limit: its instances lease ahead by its rate, not by what its window holds yet', () => {
      // 30 more reads in the 1.2 s before the database went away: 36 in the window, far from 100, but 36 in the key's
      // last 3 s is 120 a window, and the instances' leases ahead by that pace compete for the window (history seed
      // 623630363: the prober, 1.6 s old at a failover, refused on the two instances whose leases came second).
      const { history, add } = away();
      for (let at = 3_800; at < 5_000; at += 40) add({ method: 'GET', path: '/me', status: 200, instance: 1 + (at % 80 === 0 ? 1 : 0), op: { kind: 'read' }, start: at, end: at + 5 });
      history.exchanges.sort((a, b) => a.start - b.start).forEach((exchange, n) => (exchange.n = n));
      assert.deepEqual(refused(history), []);
      // The same 36 in the window, the 30 six seconds before the database went away: a pace of 20 a window.
      for (const exchange of history.exchanges) if (exchange.key === 'k0' && exchange.instance !== 0) exchange.start = exchange.end = exchange.start - 5_000;
      history.exchanges.sort((a, b) => a.start - b.start).forEach((exchange, n) => (exchange.n = n));
      assert.equal(refused(history).length, 1);
    });

    it('judges a pace by the 15 s leased ahead, not by a longer window: a read every 500 ms is far from 1000 an hour', () => {
      const { history } = away();
      history.rate = { limit: 1000, windowMs: 3_600_000 };
      assert.equal(refused(history).length, 1);
      // ...and a key that paused (a gap of two 3 s slices) starts again: a burst at its new start is no pace.
      const { history: resumed, add } = away();
      resumed.rate = { limit: 600, windowMs: 10_000 };
      add({ method: 'GET', path: '/me', status: 200, instance: 1, op: { kind: 'read' }, start: -25_000, end: -24_990 });
      for (let i = 0; i < 60; i++) add({ method: 'GET', path: '/me', status: 200, instance: 1, op: { kind: 'read' }, start: 2_000, end: 2_001 });
      for (let at = 2_400; at < 5_000; at += 400) add({ method: 'GET', path: '/me', status: 200, instance: 1, op: { kind: 'read' }, start: at, end: at + 5 });
      resumed.exchanges.sort((a, b) => a.start - b.start).forEach((exchange, n) => (exchange.n = n));
      assert.equal(refused(resumed).length, 1);
    });

    it('tolerates a key answered 429 less than a window before the database went away (at its limit when last asked)', () => {
      const { history, add } = away(9_000);
      add({ method: 'GET', path: '/me', status: 429, instance: 2, op: { kind: 'read' }, start: 1_000, end: 1_010, headers: { 'retry-after': '1' } });
      history.exchanges.sort((a, b) => a.start - b.start).forEach((exchange, n) => (exchange.n = n));
      assert.deepEqual(refused(history), []);
      history.exchanges.find((exchange) => exchange.status === 429)!.end = -5_500;
      history.exchanges.find((exchange) => exchange.status === 429)!.start = -5_510;
      assert.equal(refused(history).length, 1, 'a 429 more than a window before is no sign');
    });

    it('tolerates a key that instance had not served steadily before the database went away (no slot held)', () => {
      const served = away();
      const steady = served.history.exchanges.filter((exchange) => exchange.key === 'k0' && exchange.status === 200);
      for (const exchange of steady.slice(0, -1)) exchange.instance = 1;
      assert.deepEqual(refused(served.history), [], 'one request there is no steady use');
      steady.at(-2)!.instance = 0;
      assert.equal(refused(served.history).length, 1, 'two, 0.5 s apart, are');
    });

    it('tolerates a key that came faster there since and used up what the instance kept for that second', () => {
      // Read 4 a second from 6 s before the database went away, then 2: however the instance measured its rate (over
      // its last 3 to 6 s, up to 0.3 s before), 1.86 a second at the least (6 in the last 3.475 s), so it keeps at
      // least ⌊1.125 × 1.86⌋ + 1 = 3 for each second.
      const { history, add } = away();
      for (let at = -1_000; at < 2_000; at += 250) add({ method: 'GET', path: '/changes?since=0', status: 200, op: { kind: 'follow' }, start: at, end: at + 10 });
      for (const at of [5_300, 5_600]) add({ method: 'GET', path: '/me', status: 200, op: { kind: 'read' }, start: at, end: at + 5 });
      history.exchanges.sort((a, b) => a.start - b.start).forEach((exchange, n) => (exchange.n = n));
      assert.equal(refused(history).length, 1, 'two in the second before it are within what was kept');
      add({ method: 'GET', path: '/me', status: 0, op: { kind: 'read' }, start: 5_800, end: 5_900 });
      history.exchanges.sort((a, b) => a.start - b.start).forEach((exchange, n) => (exchange.n = n));
      assert.deepEqual(refused(history), [], 'three (one unanswered: it may have used a slot) may have used it up');
    });

    it('measures the rate the instance kept by as it may have: over 6 s when the key was quieter before the last 3', () => {
      // 6 requests in the 3 s before and none in the 3 s before those: as low as 1 a second over 6 s, so an instance
      // may keep ⌊1.125 × 1⌋ + 1 = 2 for each second, and two in the second before may have used them up.
      const { history, add } = away();
      for (const at of [5_300, 5_600]) add({ method: 'GET', path: '/me', status: 200, op: { kind: 'read' }, start: at, end: at + 5 });
      history.exchanges.sort((a, b) => a.start - b.start).forEach((exchange, n) => (exchange.n = n));
      assert.deepEqual(refused(history), []);
      history.exchanges.find((exchange) => exchange.start === 5_300)!.instance = 1;
      assert.equal(refused(history).length, 1, 'one in the second before cannot have');
    });
  });

  it('server-error and unexpected-status: a 500, and a 422 the load should never cause', () => {
    const { history, final, add } = consistent();
    add({ method: 'GET', path: '/events/evt_a', status: 500, op: { kind: 'read' } });
    add({ method: 'POST', path: '/events', status: 422, op: { kind: 'create-event', title: 'x', idem: 'k1' } });
    assert.deepEqual(checksOf(checkHistory(input(history, final))), ['server-error', 'unexpected-status']);
  });
});

describe('checkPhase', () => {
  const phase = (history: History): PhaseWindow => {
    const window: PhaseWindow = { name: 'freeze', start: 0, end: 14_000, fault: { kind: 'freeze', what: 'instance 0 frozen', instance: 0, at: 1_000, healed: 9_000, cut: true } };
    history.phases.push(window);
    return window;
  };
  const pulse = (add: ReturnType<typeof build>['add'], instance: number, start: number, end: number, status = 201, phaseName = 'freeze'): Exchange =>
    add({ phase: phaseName, client: `pulse${instance}`, instance, method: 'POST', path: '/events', status, start, end, op: { kind: 'create-event', title: `p${start}` }, body: status === 201 ? { id: `evt_${start}` } : NOTHING_SAVED });

  it('cut-blocks: the other writer acknowledged nothing for 7.2 s after the cut; recovery is measured from the heal', () => {
    const { history, add } = build();
    const window = phase(history);
    pulse(add, 1, 400, 500);
    const stuck = pulse(add, 1, 600, 8_000, 503);
    // A replay from memory in the middle shows nothing about writing.
    add({ phase: 'freeze', client: 'c01', instance: 1, method: 'POST', path: '/events', status: 201, start: 4_000, end: 4_003, op: { kind: 'create-event', title: 'p400', idem: 'k' }, headers: { 'idempotent-replayed': 'true' }, body: { id: 'evt_r' } });
    pulse(add, 1, 8_100, 8_200);
    pulse(add, 0, 9_100, 9_300);
    pulse(add, 1, 9_100, 9_150);
    const violations = checkPhase(history, window);
    assert.deepEqual(checksOf(violations), ['cut-blocks']);
    assert.match(violations[0]!.message, /instance 1 acknowledged no write for 7200 ms \(1000–8200 ms; goal 5000 ms\)/);
    assert.ok(violations[0]!.exchanges.includes(stuck.n));
  });

  it('late-outcome: a write answered 11 s after its request while the database restarted', () => {
    const { history, add } = build();
    const window: PhaseWindow = { name: 'db-restart', start: 0, end: 20_000, fault: { kind: 'db-restart', what: 'down', at: 1_000, healed: 4_000, cut: false, outage: { from: 1_000, to: 4_000 } } };
    history.phases.push(window);
    for (const instance of [0, 1]) pulse(add, instance, 4_100, 4_200, 201, 'db-restart');
    const late = add({ phase: 'db-restart', method: 'POST', path: '/events', status: 503, start: 900, end: 11_900, op: { kind: 'create-event', title: 'late' }, body: UNKNOWN });
    const violations = checkPhase(history, window);
    assert.deepEqual(checksOf(violations), ['late-outcome']);
    assert.deepEqual(violations[0]!.exchanges, [late.n]);
  });

  it('recovery: a writer that acknowledged nothing after the fault ended; a read unanswered by a running instance', () => {
    const { history, add } = build();
    const window = phase(history);
    for (let t = 1_000; t < 9_000; t += 300) pulse(add, 1, t, t + 50);
    pulse(add, 1, 9_100, 9_200);
    pulse(add, 0, 9_100, 13_000, 503);
    add({ phase: 'freeze', method: 'GET', path: '/events?limit=20', status: 0, error: 'timed out', instance: 1, op: { kind: 'read' }, start: 2_000, end: 12_000 });
    assert.deepEqual(checksOf(checkPhase(history, window)), ['read-unanswered', 'recovery']);
  });
});
