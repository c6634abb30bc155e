// aheadWants: the ranges an instance leases ahead for a key so that it can go on through an outage of the database.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { aheadWants, HORIZON_MS, type AheadInput } from '../../src/limits/lease-ahead.js';

/** A 10 s window: sub-windows of 1/6 s, ranges of 6 of them (a second). */
const BUCKET_MS = 10_000 / 60;
const SPAN = 6;
/** 0.4 s into the range of sub-windows 6000..6005 (1,000,000 ms), for a key making 5 requests a second. */
function input(fields: Partial<AheadInput> = {}): AheadInput {
  const nowMs = 1_000_400;
  const bucket = Math.floor(nowMs / BUCKET_MS);
  return { nowMs, bucket, bucketMs: BUCKET_MS, span: SPAN, perMs: 5 / 1000, margin: 1.5, most: 15 / 1000, held: undefined, current: undefined, aheadTo: Math.floor(bucket / SPAN) * SPAN - SPAN, ...fields };
}

describe('aheadWants', () => {
  it('asks for the rest of the range under way and each range of the next 15 s: half again the key\'s rate, rounded up', () => {
    const { wants, aheadTo } = aheadWants(input());
    // The rest of the range under way: 0.6 s at 7.5 a second, rounded up; then 7.5 rounded up.
    assert.deepEqual(wants[0], { bucket: 6_000, want: 5, span: SPAN });
    assert.ok(wants.slice(1).every((want) => want.want === 8 && want.span === SPAN), JSON.stringify(wants));
    assert.deepEqual(wants.map((want) => want.bucket).slice(0, 3), [6_000, 6_006, 6_012]);
    assert.equal(aheadTo, Math.floor((1_000_400 + HORIZON_MS) / BUCKET_MS / SPAN) * SPAN);
    assert.equal(wants.length, 16);
  });

  it('with margin 1 (a key at its limit) asks for the key\'s rate alone', () => {
    assert.ok(aheadWants(input({ margin: 1 })).wants.slice(1).every((want) => want.want === 5));
  });

  it('asks for no more than `most` a ms, whatever the rate (half the limit\'s: the rest is the other instances\')', () => {
    assert.ok(aheadWants(input({ perMs: 40 / 1000 })).wants.slice(1).every((want) => want.want === 15));
  });

  it('tops up the ranges of the next 3 s to their whole share, later ones once a quarter short; once anything is asked for, every short range rides along', () => {
    const asked = aheadWants(input());
    const whole = new Map<number, number>(asked.wants.slice(1).map((want) => [want.bucket, want.want]));
    const after = { aheadTo: asked.aheadTo, current: { start: 6_000, left: 5 } };
    // One short 4 s ahead and later, nothing nearer: not asked for (a rate that wavers asks for no single slot).
    const later = new Map(whole);
    for (const bucket of [6_024, 6_030, 6_060]) later.set(bucket, whole.get(bucket)! - 1);
    assert.deepEqual(aheadWants(input({ held: later, ...after })).wants, []);
    // One short 2 s ahead: asked for, and the later ones with it, each to its whole share.
    later.set(6_012, whole.get(6_012)! - 1);
    assert.deepEqual(aheadWants(input({ held: later, ...after })).wants, [{ bucket: 6_012, want: 1, span: SPAN }, { bucket: 6_024, want: 1, span: SPAN }, { bucket: 6_030, want: 1, span: SPAN }, { bucket: 6_060, want: 1, span: SPAN }]);
    // Two short 10 s ahead (a quarter of its 8): asked for on its own.
    const quarter = new Map(whole);
    quarter.set(6_060, 8 - 2);
    assert.deepEqual(aheadWants(input({ held: quarter, ...after })).wants, [{ bucket: 6_060, want: 2, span: SPAN }]);
  });

  it('keeps the range under way at the share of what is left of it as the key uses it', () => {
    const asked = aheadWants(input());
    const held = new Map<number, number>(asked.wants.slice(1).map((want) => [want.bucket, want.want]));
    assert.deepEqual(aheadWants(input({ held, aheadTo: asked.aheadTo, current: { start: 6_000, left: 5 } })).wants, []);
    assert.deepEqual(aheadWants(input({ held, aheadTo: asked.aheadTo, current: { start: 6_000, left: 2 } })).wants, [{ bucket: 6_000, want: 3, span: SPAN }]);
  });

  it('with sub-windows of a second or more (ranges of one), leaves the sub-window under way to its own batch', () => {
    // A window of an hour: sub-windows of a minute, 5 s before the next one begins.
    const bucketMs = 60_000;
    const nowMs = 17 * bucketMs - 5_000;
    const { wants } = aheadWants({ ...input(), nowMs, bucketMs, span: 1, bucket: 16, aheadTo: 15 });
    assert.deepEqual(wants, [{ bucket: 17, want: Math.ceil(bucketMs * 0.0075), span: 1 }]);
  });
  it('at the first sub-window of a range, counts that range as under way (what the current lease holds), not as one ahead', () => {
    // 1,000,000 ms is the first sub-window, 6000, of the range 6000..6005.
    const atStart = (fields: Partial<AheadInput> = {}): AheadInput => input({ nowMs: 1_000_000, bucket: 6_000, aheadTo: 5_994, ...fields });
    const first = aheadWants(atStart());
    assert.deepEqual(first.wants[0], { bucket: 6_000, want: 8, span: SPAN });
    const held = new Map(first.wants.slice(1).map((want) => [want.bucket, want.want]));
    const again = aheadWants(atStart({ held, aheadTo: first.aheadTo, current: { start: 6_000, left: 8 } }));
    assert.deepEqual(again.wants, [], 'everything is held already: asking again would hold twice the share');
  });
  it('asks for short ranges once less than 11 s is held ahead, then several at once; not each second as one enters the horizon', () => {
    const first = aheadWants(input());
    const ahead = new Map(first.wants.slice(1).map((want) => [want.bucket, want.want]));
    /** The lease as it stands at `nowMs`: the range under way taken out of what is held ahead. */
    const at = (nowMs: number): AheadInput => {
      const bucket = Math.floor(nowMs / BUCKET_MS);
      const start = Math.floor(bucket / SPAN) * SPAN;
      const held = new Map([...ahead].filter(([from]) => from > start));
      return input({ nowMs, bucket, held, current: { start, left: ahead.get(start) ?? 0 }, aheadTo: first.aheadTo });
    };
    // A second later one more range is within 15 s, but 14 s are still held: nothing is asked for.
    assert.deepEqual(aheadWants(at(1_001_400)).wants, []);
    // Five seconds later less than 11 s is held: the five ranges that entered the horizon meanwhile, at once.
    const later = aheadWants(at(1_005_400));
    assert.deepEqual(later.wants.map((want) => [want.bucket, want.want]), [[6_096, 8], [6_102, 8], [6_108, 8], [6_114, 8], [6_120, 8]]);
  });

  it('with sub-windows of a minute, asks for the next one as it enters the 15 s horizon, not before', () => {
    const bucketMs = 60_000;
    const hour = (nowMs: number): AheadInput => ({ ...input(), nowMs, bucketMs, span: 1, bucket: 16, aheadTo: 16 });
    assert.deepEqual(aheadWants(hour(17 * bucketMs - 16_000)).wants, []);
    assert.deepEqual(aheadWants(hour(17 * bucketMs - 13_000)).wants, [{ bucket: 17, want: 450, span: 1 }]);
  });
});
