// followingApp: the requests go to the newest app; the old one is drained and closed once the new one is open; a
// failed opening is tried again on the next report; close() while one opens closes both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { App } from '../src/app-types.js';
import { CLOSE_WAIT_MS, followingApp, HOLD_MS, type Timer } from '../src/following-app.js';
import type { PlainRequest } from '../src/http/types.js';

interface FakeApp extends App {
  name: string;
  events: string[];
}

function fakeApp(name: string, events: string[]): FakeApp {
  return {
    name,
    events,
    handler: () => events.push(`${name} handler`),
    checkContinue: () => events.push(`${name} checkContinue`),
    clientError: () => events.push(`${name} clientError`),
    handle: () => ({ status: 200, headers: {}, body: name }),
    initialAdminKey: name === 'first' ? 'cek_first' : undefined,
    drain: () => void events.push(`${name} drain`),
    answerUnfinished: async () => void events.push(`${name} answerUnfinished`),
    close: async () => void events.push(`${name} close`),
    store: { name } as unknown as App['store'],
    createKey: async () => {
      events.push(`${name} createKey`);
      return { id: 'key_1', key: 'cek_1', name: 'A', email: 'a@campus.edu', role: 'organizer' };
    },
  };
}

const request: PlainRequest = { method: 'GET', target: '/health', headers: {}, body: null, bodyTooLarge: false, remoteAddress: '127.0.0.1' };
const silent = { info: () => undefined, warn: () => undefined };

test('a report opens a new app, which answers from then on; the old one is drained, then closed; the first key stays', async () => {
  const events: string[] = [];
  const reports: (() => void)[] = [];
  const opened: FakeApp[] = [];
  const app = await followingApp(async (report, { first }) => {
    reports.push(report);
    const made = fakeApp(first ? 'first' : `next${opened.length}`, events);
    opened.push(made);
    return made;
  }, { logger: silent });
  assert.equal((await app.handle(request)).body, 'first');
  reports[0]!();
  reports[0]!(); // reported again while it opens: one new app
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(opened.length, 2);
  assert.equal((await app.handle(request)).body, 'next1');
  assert.deepEqual(events, ['first drain', 'first close']);
  assert.equal(app.initialAdminKey, 'cek_first');
  assert.equal((app.store as unknown as { name: string }).name, 'next1');
  await app.close();
  assert.deepEqual(events, ['first drain', 'first close', 'next1 close']);
});

test('after an opening failed, the next one holds no request (it may fail as slowly); once one opens, holding resumes', async () => {
  const events: string[] = [];
  const clock = handTimer();
  let report: () => void = () => undefined;
  let tries = 0;
  const app = await followingApp(async (told, { first }) => {
    if (first) {
      report = told;
      return fakeApp('first', events);
    }
    tries++;
    if (tries === 1) throw new Error('the promoted server went away');
    report = told;
    await new Promise((resolve) => setImmediate(resolve));
    return fakeApp(`next${tries}`, events);
  }, { logger: silent, timer: clock.timer });
  report();
  await turns(2);
  assert.deepEqual(clock.set, [HOLD_MS]);
  report();
  assert.equal((await app.handle(request)).body, 'first', 'not held: answered by the old app while the retry opens');
  await turns(3);
  assert.equal((await app.handle(request)).body, 'next2');
  report();
  assert.deepEqual(clock.set, [HOLD_MS, HOLD_MS], 'the opening after a success holds again');
  await app.close();
});

test('an opening that fails leaves the old app answering, and its next report tries again; once replaced, its reports are not heeded', async () => {
  const events: string[] = [];
  let report: () => void = () => undefined;
  let tries = 0;
  const warnings: string[] = [];
  const app = await followingApp(async (told, { first }) => {
    if (first) {
      report = told;
      return fakeApp('first', events);
    }
    tries++;
    if (tries === 1) throw new Error('the database went away again');
    return fakeApp('second', events);
  }, { logger: { info: () => undefined, warn: (message) => void warnings.push(message) } });
  report();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal((await app.handle(request)).body, 'first');
  assert.deepEqual(warnings, ['could not start over on the promoted standby; trying again at its next probe']);
  report();
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal((await app.handle(request)).body, 'second');
  // The old app still reports until it is closed: no app more is opened for it.
  report();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(tries, 2);
  await app.close();
});

/** A following app whose second app opens only when `finishOpening()` is called; `report()` is the latest app's report. */
async function heldOpening(events: string[], timer?: Timer): Promise<{ app: App; report: () => void; finishOpening: () => void; opens: () => number }> {
  let report: () => void = () => undefined;
  let finishOpening: () => void = () => undefined;
  let opens = 0;
  const app = await followingApp(async (told, { first }) => {
    opens++;
    report = told;
    if (first) return fakeApp('first', events);
    await new Promise<void>((resolve) => (finishOpening = resolve));
    return fakeApp('second', events);
  }, { logger: silent, timer });
  return { app, report: () => report(), finishOpening: () => finishOpening(), opens: () => opens };
}

/** A timer that fires only when told: `fire()` runs what is due, `set` lists the delays asked for. */
function handTimer(): { timer: Timer; fire: () => void; set: number[]; due: () => number } {
  const due = new Set<() => void>();
  const set: number[] = [];
  const timer: Timer = (ms, then) => {
    set.push(ms);
    due.add(then);
    return () => due.delete(then);
  };
  return { timer, set, fire: () => [...due].forEach((then) => then()), due: () => due.size };
}

const turns = async (count: number): Promise<void> => {
  for (let turn = 0; turn < count; turn++) await new Promise((resolve) => setImmediate(resolve));
};

test('requests that come while the new app opens wait for it and go to it (not those whose client went away); a client error is answered at once', async () => {
  const events: string[] = [];
  const clock = handTimer();
  const { app, report, finishOpening } = await heldOpening(events, clock.timer);
  report();
  assert.deepEqual(clock.set, [HOLD_MS]);
  const answer = app.handle(request);
  app.handler({ destroyed: false } as never, {} as never);
  app.handler({ destroyed: true } as never, {} as never); // its client went away while it waited: let go
  app.checkContinue({ destroyed: false } as never, {} as never);
  app.clientError(new Error('bad framing'), {} as never);
  await turns(2);
  assert.deepEqual(events, ['first clientError'], 'nothing but the client error was answered while it opens');
  finishOpening();
  assert.equal((await answer).body, 'second');
  await turns(3);
  assert.deepEqual(events, ['first clientError', 'second handler', 'second checkContinue', 'first drain', 'first close']);
  assert.equal(clock.due(), 0, 'the hold was over with the opening: its time-out is cancelled');
  await app.close();
});

test(`an opening longer than ${HOLD_MS} ms: the requests waiting for it go to the old app then; later ones too, until it opens`, async () => {
  const events: string[] = [];
  const clock = handTimer();
  const { app, report, finishOpening } = await heldOpening(events, clock.timer);
  report();
  let answered = false;
  const waiting = Promise.resolve(app.handle(request)).then((response) => ((answered = true), response));
  await turns(3);
  assert.equal(answered, false, 'held until the time-out');
  clock.fire();
  assert.equal((await waiting).body, 'first');
  assert.equal((await app.handle(request)).body, 'first');
  finishOpening();
  await turns(3);
  assert.equal((await app.handle(request)).body, 'second');
  await app.close();
});

test('drain() while requests wait for an opening hands them to the old app as in flight, then drains it', async () => {
  const events: string[] = [];
  const { app, report, finishOpening } = await heldOpening(events, handTimer().timer);
  report();
  app.handler({ destroyed: false } as never, {} as never);
  app.drain();
  assert.deepEqual(events, ['first handler', 'first drain'], 'taken in as in flight before the drain');
  finishOpening();
  await app.close();
});

test('close() while a new app opens closes it too, and the old one, once', async () => {
  const events: string[] = [];
  const { app, report, finishOpening } = await heldOpening(events);
  report();
  const closed = app.close();
  assert.equal(app.close(), closed, 'one close');
  finishOpening();
  await closed;
  assert.deepEqual(events.sort(), ['first close', 'second close']);
});

test(`close() while the new app's opening hangs closes the old one at once, waits ${CLOSE_WAIT_MS} ms at most, and the new one closes once open`, async () => {
  const events: string[] = [];
  const clock = handTimer();
  const { app, report, finishOpening } = await heldOpening(events, clock.timer);
  report();
  const closed = app.close();
  await turns(2);
  assert.deepEqual(events, ['first close']);
  assert.deepEqual(clock.set, [HOLD_MS, CLOSE_WAIT_MS]);
  clock.fire();
  await closed;
  finishOpening();
  await turns(3);
  assert.deepEqual(events, ['first close', 'second close']);
});

test('a report while the first app opens is not heeded (its store reports again once open), and nothing throws', async () => {
  const events: string[] = [];
  let opens = 0;
  const app = await followingApp(async (report) => {
    opens++;
    report();
    await new Promise((resolve) => setImmediate(resolve));
    return fakeApp(opens === 1 ? 'first' : 'second', events);
  }, { logger: silent });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(opens, 1);
  assert.equal((await app.handle(request)).body, 'first');
  await app.close();
  assert.deepEqual(events, ['first close']);
});

test('drain() while a new app opens drains that one too once it takes over, and later reports are not heeded', async () => {
  const events: string[] = [];
  const { app, report, finishOpening, opens } = await heldOpening(events);
  report();
  app.drain();
  finishOpening();
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(events, ['first drain', 'second drain', 'first drain', 'first close']);
  report();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(opens(), 2, 'no app is opened while stopping');
  await app.close();
});

test('an old app whose close fails is logged, not thrown: the new one answers and closes', async () => {
  const events: string[] = [];
  const warnings: string[] = [];
  let report: () => void = () => undefined;
  const app = await followingApp(async (told, { first }) => {
    report = told;
    if (!first) return fakeApp('second', events);
    const made = fakeApp('first', events);
    made.close = async () => {
      throw new Error('the database is gone');
    };
    return made;
  }, { logger: { info: () => undefined, warn: (message) => void warnings.push(message) } });
  report();
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
  assert.equal((await app.handle(request)).body, 'second');
  assert.deepEqual(warnings, ['an app replaced on a promotion did not close cleanly']);
  await app.close();
  assert.deepEqual(events, ['first drain', 'second close']);
});
