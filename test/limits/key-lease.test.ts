// KeyLease: the slots one instance holds of one key's limit, and where each goes back.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyLease } from '../../src/limits/key-lease.js';

/** A lease at sub-window 600 (ranges of 6 sub-windows: 600..605 under way), recording what it gives back. */
function lease(): { lease: KeyLease; back: [number, number, number][] } {
  const back: [number, number, number][] = [];
  return { lease: new KeyLease(600, 100_000, 6, (bucket, count, span) => back.push([bucket, count, span])), back };
}

describe('KeyLease', () => {
  it('credit() puts a grant in the sub-window, the range under way, or ahead, and gives back one that passed', () => {
    const { lease: held, back } = lease();
    held.credit(600, 2, 1);
    held.credit(600, 3, 6);
    held.credit(606, 4, 6);
    held.credit(590, 5, 6);
    assert.deepEqual([held.left, held.range, [...held.ahead!]], [2, { start: 600, left: 3 }, [[606, 4]]]);
    assert.deepEqual(back, [[590, 5, 6]]);
  });

  it('use() takes the sub-window\'s own slots first, then the range\'s; advance() gives back what passed, and makes what was ahead usable', () => {
    const { lease: held, back } = lease();
    held.credit(600, 1, 1);
    held.credit(600, 2, 6);
    held.credit(606, 4, 6);
    assert.deepEqual([held.use(100_000), held.left, held.range!.left], [true, 0, 2]);
    assert.deepEqual([held.use(100_010), held.range!.left, held.usable()], [true, 1, 1]);
    held.advance(606);
    assert.deepEqual(back, [[600, 1, 6]]);
    assert.deepEqual([held.range, held.ahead, held.usable()], [{ start: 606, left: 4 }, undefined, 4]);
  });

  it('refund() puts a slot back where it was used from, so that it is given back under the row it was leased in', () => {
    const { lease: held, back } = lease();
    held.credit(600, 1, 6);
    held.use(100_000);
    held.refund();
    held.refund();
    assert.deepEqual([held.left, held.range!.left], [0, 1], 'once, into the range');
    held.advance(606);
    assert.deepEqual(back, [[600, 1, 6]]);
  });

  it('use() never takes a slot the range does not hold: one leased, one used', () => {
    const { lease: held } = lease();
    held.credit(600, 1, 6);
    assert.equal(held.use(100_000), true);
    assert.equal(held.use(100_001), false);
    assert.equal(held.range!.left, 0);
  });

  it('credit() gives back a grant whose sub-window or range ended exactly where the current sub-window starts', () => {
    const { lease: held, back } = lease();
    held.credit(599, 2, 1);
    held.credit(594, 3, 6);
    assert.deepEqual([held.left, held.range], [0, undefined]);
    assert.deepEqual(back, [[599, 2, 1], [594, 3, 6]]);
  });

  it('credit() tops up the range under way without giving back what it held', () => {
    const { lease: held, back } = lease();
    held.credit(600, 2, 6);
    held.credit(600, 3, 6);
    assert.deepEqual([held.range, back], [{ start: 600, left: 5 }, []]);
  });

  it('refund() of a sub-window\'s slot puts it back in the sub-window, not the range', () => {
    const { lease: held, back } = lease();
    held.credit(600, 1, 1);
    held.credit(600, 2, 6);
    held.use(100_000);
    held.refund();
    assert.deepEqual([held.left, held.range!.left], [1, 2]);
    held.advance(601);
    assert.deepEqual(back, [[600, 1, 1]]);
  });

  it('refund() after every slot was given back (another instance asked) neither throws nor makes one up in the range', () => {
    const { lease: held } = lease();
    held.credit(600, 1, 6);
    held.use(100_000);
    held.takeAll();
    held.refund();
    assert.equal(held.usable(), 0);
  });

  it('heldAhead() counts the slots of every later range; held() lists no empty sub-window or range', () => {
    const { lease: held } = lease();
    held.credit(612, 4, 6);
    held.credit(618, 1, 6);
    assert.equal(held.heldAhead(), 5);
    const { lease: used } = lease();
    used.credit(600, 1, 6);
    assert.deepEqual(used.held(), [[600, 1, 6]]);
    used.use(100_000);
    assert.deepEqual(used.held(), []);
  });

  it('held() lists every slot held, to give back on close', () => {
    const { lease: held } = lease();
    held.credit(600, 2, 1);
    held.credit(600, 3, 6);
    held.credit(612, 4, 6);
    assert.deepEqual(held.held(), [[600, 2, 1], [600, 3, 6], [612, 4, 6]]);
  });
});
