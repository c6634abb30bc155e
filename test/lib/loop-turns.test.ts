// LoopTurns and runInSlices(): long work shares the event loop one slice per turn, and an answer never mixes two states.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LoopTurns, runAtOnce, runInSlices, type Steps } from '../../src/lib/loop-turns.js';

/** Counts `n` steps, reading `state.value` at each: the answer is every value read. */
function* reading(state: { value: number }, n: number, log: string[]): Steps<number[]> {
  const seen: number[] = [];
  for (let step = 0; step < n; step++) {
    seen.push(state.value);
    log.push(`step ${step}`);
    yield;
  }
  return seen;
}

/** A clock that moves `stepMs` each time it is read: every slice is over its budget after one step. */
function ticking(stepMs: number): () => number {
  let now = 0;
  return () => (now += stepMs);
}

test('runInSlices() gives one slice per turn of the loop: work queued meanwhile (an answered read) runs between slices', async () => {
  const log: string[] = [];
  const state = { value: 1 };
  const answer = runInSlices(() => reading(state, 3, log), { version: () => 0, now: ticking(10), turns: new LoopTurns() });
  setImmediate(() => log.push('other'));
  assert.deepEqual(await answer, [1, 1, 1]);
  assert.ok(log.indexOf('other') > 0 && log.indexOf('other') < log.indexOf('step 2'), `the other work ran between the slices: ${log.join(', ')}`);
});

test('runInSlices() starts over when the state changed between two slices, so the answer is that of one state (issue 33.8)', async () => {
  const log: string[] = [];
  const state = { value: 1 };
  let version = 0;
  const turns = new LoopTurns();
  const answer = runInSlices(() => reading(state, 4, log), { version: () => version, now: ticking(10), turns });
  // A write commits while the steps wait for their second turn.
  await turns.next();
  state.value = 2;
  version++;
  assert.deepEqual(await answer, [2, 2, 2, 2], 'no answer mixes 1 and 2');
  assert.ok(log.filter((entry) => entry === 'step 0').length >= 2, 'it started over');
});

test('runInSlices() ends at once after maxRestarts, so a busy writer cannot starve a reader', async () => {
  const state = { value: 0 };
  let version = 0;
  const turns = new LoopTurns();
  // The state changes on every turn of the loop.
  let writing = true;
  const writer = (): void => {
    if (!writing) return;
    state.value++;
    version++;
    setImmediate(writer);
  };
  setImmediate(writer);
  const seen = await runInSlices(() => reading(state, 5, []), { version: () => version, now: ticking(10), turns, maxRestarts: 2 });
  writing = false;
  assert.equal(new Set(seen).size, 1, `the last run went to its end at once: ${seen.join(', ')}`);
});

test('runInSlices() within its budget answers in one slice, and runAtOnce() answers now', async () => {
  const log: string[] = [];
  const state = { value: 7 };
  assert.deepEqual(await runInSlices(() => reading(state, 50, log), { version: () => 0, now: () => 0 }), new Array(50).fill(7));
  assert.deepEqual(runAtOnce(reading(state, 3, [])), [7, 7, 7]);
});

test('LoopTurns.next() resolves the waiters one per turn, oldest first', async () => {
  const turns = new LoopTurns();
  const order: string[] = [];
  const first = turns.next().then(() => order.push('first'));
  const second = turns.next().then(() => order.push('second'));
  setImmediate(() => order.push('immediate queued after both'));
  await Promise.all([first, second]);
  assert.deepEqual(order, ['first', 'immediate queued after both', 'second']);
  assert.equal(turns.waiting, 0);
});

test('runInSlices() runs its first slice at once when no other long work waits for the loop, and behind it when some does', async () => {
  const log: string[] = [];
  const state = { value: 1 };
  const turns = new LoopTurns();
  // Alone: one slice (a clock that never moves), done before runInSlices returns.
  const alone = runInSlices(() => reading(state, 2, log), { version: () => 0, now: () => 0, turns });
  assert.deepEqual(log, ['step 0', 'step 1'], 'a search of one slice waits for no turn');
  assert.deepEqual(await alone, [1, 1]);
  // Behind another waiting for its turn: nothing runs until that one has had it.
  log.length = 0;
  const other = turns.next().then(() => log.push('other'));
  const behind = runInSlices(() => reading(state, 2, log), { version: () => 0, now: () => 0, turns });
  assert.deepEqual(log, []);
  await Promise.all([other, behind]);
  assert.deepEqual(log, ['other', 'step 0', 'step 1']);
});
