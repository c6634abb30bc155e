// StallGuard with an injected clock: no wait while the beat keeps time; after a stall, one catch-up that every request waits for.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StallGuard } from '../../src/lib/stall-guard.js';

/** A guard on a clock the test moves, and the catch-ups it started (each resolved by the test). */
function guarded(options: { maxWaitMs?: number } = {}): { guard: StallGuard; advance: (ms: number) => void; catchUps: (() => void)[] } {
  let now = 1_000;
  const catchUps: (() => void)[] = [];
  const guard = new StallGuard({ clock: () => now, intervalMs: 60_000, thresholdMs: 300, catchUp: () => new Promise<void>((resolve) => catchUps.push(resolve)), ...options });
  return { guard, advance: (ms) => (now += ms), catchUps };
}

test('StallGuard.check() asks no wait while beats come on time', () => {
  const { guard, advance, catchUps } = guarded();
  try {
    for (let i = 0; i < 10; i++) {
      advance(100);
      guard.beat();
      assert.equal(guard.check(), undefined);
    }
    advance(300);
    assert.equal(guard.check(), undefined, 'exactly the threshold is no stall');
    assert.equal(catchUps.length, 0);
  } finally {
    guard.close();
  }
});

test('StallGuard.check() after a stall: every request waits for one catch-up, started after the stall; then none waits', async () => {
  const { guard, advance, catchUps } = guarded();
  try {
    advance(5_000);
    const first = guard.check();
    const second = guard.check();
    assert.ok(first !== undefined && second === first, 'both wait for the same catch-up');
    guard.beat();
    assert.equal(guard.check(), first, 'a beat on time does not end the wait: the catch-up has not finished');
    assert.equal(catchUps.length, 1);
    let settled = false;
    void first.then(() => (settled = true));
    await Promise.resolve();
    assert.equal(settled, false);
    catchUps[0]!();
    await first;
    assert.equal(guard.check(), undefined);
  } finally {
    guard.close();
  }
});

test('StallGuard: a late beat starts the catch-up itself; a failed catch-up still lets requests through', async () => {
  let now = 0;
  const guard = new StallGuard({ clock: () => now, intervalMs: 60_000, catchUp: () => Promise.reject(new Error('database away')) });
  try {
    now += 2_000;
    guard.beat();
    const waiting = guard.check();
    assert.ok(waiting !== undefined);
    await waiting;
    assert.equal(guard.check(), undefined);
  } finally {
    guard.close();
  }
});

test('StallGuard: a catch-up that does not finish holds requests at most maxWaitMs', async () => {
  const { guard, advance } = guarded({ maxWaitMs: 20 });
  try {
    advance(1_000);
    const waiting = guard.check();
    assert.ok(waiting !== undefined);
    await waiting;
    assert.equal(guard.check(), undefined);
  } finally {
    guard.close();
  }
});
