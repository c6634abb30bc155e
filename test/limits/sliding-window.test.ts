// Tests for SlidingWindowLimiter: exact counts at chosen instants, bounded memory, and a seeded property check.

import assert from "node:assert/strict";
import { test } from "node:test";
import { SlidingWindowLimiter } from "../../src/limits/sliding-window.js";
import { mulberry32 } from '../helpers/random.js';

const HOUR = 3_600_000;

test("take() lets the 1000th request inside the window through and refuses the 1001st", () => {
  const limiter = new SlidingWindowLimiter({ limit: 1000, windowMs: HOUR });
  for (let i = 0; i < 999; i++) assert.equal(limiter.take("k", i * 3000).allowed, true, `request ${i + 1}`);
  const thousandth = limiter.take("k", 999 * 3000);
  assert.deepEqual({ allowed: thousandth.allowed, remaining: thousandth.remaining }, { allowed: true, remaining: 0 });
  assert.equal(limiter.take("k", HOUR - 1).allowed, false);
});

test("take() does not count a refused request", () => {
  const limiter = new SlidingWindowLimiter({ limit: 3, windowMs: 60_000 }); // buckets of 1 s
  for (let i = 0; i < 3; i++) assert.equal(limiter.take("k", 0).allowed, true);
  for (let i = 0; i < 50; i++) assert.equal(limiter.take("k", 30_000).allowed, false);
  // Bucket 0 has left the span; had the refusals at 30 s counted, this would still be refused.
  for (let i = 0; i < 3; i++) assert.equal(limiter.take("k", 61_000).allowed, true, `request ${i + 1} at 61 s`);
  assert.equal(limiter.take("k", 61_000).allowed, false);
});

test("take() admits again exactly a window after the first burst, not before", () => {
  const limiter = new SlidingWindowLimiter({ limit: 5, windowMs: 60_000 });
  for (let i = 0; i < 5; i++) limiter.take("k", 0);
  assert.equal(limiter.take("k", 59_999).allowed, false);
  assert.equal(limiter.take("k", 60_000).allowed, true);
});

test("take() frees a bucket a window after its latest request (at most windowMs/60 late for the earliest)", () => {
  const limiter = new SlidingWindowLimiter({ limit: 2, windowMs: 60_000 }); // buckets of 1 s
  limiter.take("k", 100);
  limiter.take("k", 900);
  assert.equal(limiter.take("k", 60_100).allowed, false, "the request at 900 ms still counts at 60.1 s");
  assert.equal(limiter.take("k", 60_899).allowed, false);
  assert.equal(limiter.take("k", 60_900).allowed, true);
});

test("take() gives exact remaining and resetSeconds at chosen instants", () => {
  const limiter = new SlidingWindowLimiter({ limit: 3, windowMs: 60_000 });
  const at = (nowMs: number) => {
    const { allowed, remaining, resetSeconds } = limiter.take("k", nowMs);
    return { allowed, remaining, resetSeconds };
  };
  // Bucket 0 (its latest request at 0) stops counting a window later, at 60 s.
  assert.deepEqual(at(0), { allowed: true, remaining: 2, resetSeconds: 60 });
  assert.deepEqual(at(30_500), { allowed: true, remaining: 1, resetSeconds: 30 });
  assert.deepEqual(at(30_500), { allowed: true, remaining: 0, resetSeconds: 30 });
  assert.deepEqual(at(40_000), { allowed: false, remaining: 0, resetSeconds: 20 });
  assert.deepEqual(at(59_999), { allowed: false, remaining: 0, resetSeconds: 1 });
  // Bucket 30 (two requests, the latest at 30.5 s) stops at 90.5 s.
  assert.deepEqual(at(60_000), { allowed: true, remaining: 0, resetSeconds: 31 });
  assert.equal(limiter.take("k", 60_000).limit, 3);
});

test("take() reports resetSeconds 0 and full remaining once everything has expired", () => {
  const limiter = new SlidingWindowLimiter({ limit: 2, windowMs: 60_000 });
  limiter.take("k", 0);
  assert.deepEqual(limiter.peek("k", 10 * 60_000), { allowed: true, limit: 2, remaining: 2, resetSeconds: 0 });
});

test("peek() neither counts nor creates a key", () => {
  const limiter = new SlidingWindowLimiter({ limit: 1, windowMs: 1000 });
  assert.deepEqual(limiter.peek("k", 0), { allowed: true, limit: 1, remaining: 1, resetSeconds: 0 });
  assert.equal(limiter.size, 0);
  assert.equal(limiter.take("k", 0).allowed, true);
  assert.equal(limiter.peek("k", 0).allowed, false);
  assert.equal(limiter.peek("k", 0).resetSeconds, 1, "the request at 0 stops counting at 1000 ms");
});

test("record() counts without checking and resetSeconds waits until enough has freed", () => {
  const limiter = new SlidingWindowLimiter({ limit: 2, windowMs: 60_000 });
  limiter.record("k", 0);
  limiter.record("k", 10_000);
  limiter.record("k", 10_000);
  // Three counted, limit two: bucket 0 leaving (60 s) is not enough, bucket 10 leaving (70 s) is.
  assert.deepEqual(limiter.peek("k", 20_000), { allowed: false, limit: 2, remaining: 0, resetSeconds: 50 });
  assert.equal(limiter.take("k", 69_999).allowed, false);
  assert.equal(limiter.take("k", 70_000).allowed, true);
});

test("take() keeps keys apart", () => {
  const limiter = new SlidingWindowLimiter({ limit: 1, windowMs: 60_000 });
  assert.equal(limiter.take("a", 0).allowed, true);
  assert.equal(limiter.take("b", 0).allowed, true);
  assert.equal(limiter.take("a", 0).allowed, false);
});

test("take() treats a time earlier than the last seen as the last seen", () => {
  const limiter = new SlidingWindowLimiter({ limit: 1, windowMs: 60_000 });
  assert.equal(limiter.take("k", 100_000).allowed, true);
  assert.equal(limiter.take("k", 0).allowed, false);
});

test("size stays <= maxKeys under 100k distinct keys and the most recent keys survive", () => {
  const limiter = new SlidingWindowLimiter({ limit: 1, windowMs: HOUR, maxKeys: 1000 });
  limiter.take("kept", 0);
  for (let i = 0; i < 100_000; i++) {
    limiter.take(`key-${i}`, i);
    if (i % 500 === 0) limiter.take("kept", i);
    assert.ok(limiter.size <= 1000, `size ${limiter.size} after ${i + 1} keys`);
  }
  assert.ok(limiter.size >= 500 && limiter.size <= 1000, `size ${limiter.size}: between one and two generations of 500`);
  assert.equal(limiter.peek("kept", 100_000).allowed, false, "a recently used key is not evicted");
  assert.equal(limiter.peek("key-0", 100_000).allowed, true, "the oldest key was evicted");
});

test("take() drops keys left idle for a whole generation (maxKeys/2 new keys)", () => {
  const limiter = new SlidingWindowLimiter({ limit: 1, windowMs: 60_000, maxKeys: 20 });
  for (let i = 0; i < 10; i++) limiter.take(`idle-${i}`, 0);
  assert.equal(limiter.size, 10);
  for (let i = 0; i < 20; i++) limiter.take(`new-${i}`, 1);
  assert.ok(limiter.size <= 20);
  for (let i = 0; i < 10; i++) assert.equal(limiter.peek(`idle-${i}`, 1).remaining, 1, `idle-${i} was dropped`);
  assert.equal(limiter.peek("new-19", 1).remaining, 0, "the newest key is kept");
});

test("take() costs the same whatever the table holds: 200,000 distinct keys through a table of 1,000 stay fast", () => {
  // Regression: evicting by walking a Map from its front was quadratic once deleted entries piled up there.
  const limiter = new SlidingWindowLimiter({ limit: 5, windowMs: 60_000, maxKeys: 1000 });
  for (let i = 0; i < 200_000; i++) limiter.take(`flood-${i}`, i);
  assert.ok(limiter.size <= 1000);
});

test("SlidingWindowLimiter rejects bad options, naming them", () => {
  assert.throws(() => new SlidingWindowLimiter({ limit: 0, windowMs: 1000 }), /limit must be .* got 0/);
  assert.throws(() => new SlidingWindowLimiter({ limit: 1.5, windowMs: 1000 }), /limit must be/);
  assert.throws(() => new SlidingWindowLimiter({ limit: 1, windowMs: 0 }), /windowMs must be .* got 0/);
  assert.throws(() => new SlidingWindowLimiter({ limit: 1, windowMs: Number.NaN }), /windowMs must be/);
  assert.throws(() => new SlidingWindowLimiter({ limit: 1, windowMs: 1000, maxKeys: 0 }), /maxKeys must be/);
});


/** A non-decreasing list of request times mixing bursts at bucket edges, trickles and random gaps. */
function schedule(random: () => number, limit: number, windowMs: number, length: number): number[] {
  const int = (n: number) => Math.floor(random() * n);
  const bucketMs = windowMs / 60;
  const times: number[] = [];
  let now = int(windowMs);
  while (times.length < length) {
    const mode = int(4);
    if (mode === 0) {
      // A burst just before, on, or just after a bucket edge (edges are fractional when 60 does not divide windowMs).
      const edge = (Math.floor(now / bucketMs) + 1 + int(61)) * bucketMs;
      now = Math.max(now, Math.floor(edge) + int(3) - 1);
      for (let i = int(limit * 2) + 1; i > 0; i--) times.push(now);
    } else if (mode === 1) {
      // A steady trickle around the sustainable rate.
      const gap = Math.max(1, Math.round((windowMs / limit) * (0.5 + random())));
      for (let i = int(3 * limit) + 1; i > 0; i--) times.push((now += gap));
    } else if (mode === 2) {
      times.push((now += int(2 * windowMs)));
    } else {
      times.push((now += int(Math.ceil(bucketMs) + 1)));
    }
  }
  return times.slice(0, length);
}

test("take() never admits more than limit in any window and refuses at most windowMs/60 late (property, seeded)", () => {
  for (let seed = 1; seed <= 1500; seed++) {
    const random = mulberry32(seed);
    const limit = 1 + Math.floor(random() * 20);
    const windowMs = 600 + Math.floor(random() * 59_401);
    const limiter = new SlidingWindowLimiter({ limit, windowMs });
    const admitted: number[] = [];
    let oldestRecent = 0; // first admitted index inside (t - windowMs - windowMs/60, t]
    for (const t of schedule(random, limit, windowMs, 400)) {
      const decision = limiter.take("k", t);
      // s is inside (t - 61/60 windowMs, t]  <=>  60 (t - s) < 61 windowMs, kept in integers.
      while (oldestRecent < admitted.length && 60 * (t - (admitted[oldestRecent] ?? 0)) >= 61 * windowMs) oldestRecent++;
      const recent = admitted.length - oldestRecent;
      const context = `seed ${seed} (limit ${limit}, windowMs ${windowMs}) at t=${t}`;
      if (decision.allowed) {
        admitted.push(t);
        assert.ok(decision.remaining >= 0 && decision.remaining < limit, `remaining ${decision.remaining}, ${context}`);
      } else {
        assert.ok(recent >= limit, `refused with only ${recent} admitted in the last window + 1/60, ${context}`);
        assert.ok(decision.resetSeconds >= 1, `resetSeconds ${decision.resetSeconds} on refusal, ${context}`);
      }
    }
    // Any interval [t, t + windowMs) holding the most admissions can start at an admitted time.
    let end = 0;
    for (let start = 0; start < admitted.length; start++) {
      const from = admitted[start] ?? 0;
      while (end < admitted.length && (admitted[end] ?? 0) < from + windowMs) end++;
      assert.ok(end - start <= limit, `seed ${seed} (limit ${limit}, windowMs ${windowMs}): ${end - start} admitted in [${from}, ${from + windowMs})`);
    }
  }
});

test("take() keeps a key's count when it moves from the old generation back to the young one", () => {
  const limiter = new SlidingWindowLimiter({ limit: 2, windowMs: 60_000, maxKeys: 4 }); // generations of 2
  limiter.take("moved", 0);
  limiter.take("moved", 0);
  limiter.take("a", 1);
  limiter.take("b", 2); // "moved" and "a" are now the old generation
  const decision = limiter.take("moved", 3); // found in the old generation, moved back to the young one
  assert.deepEqual({ allowed: decision.allowed, remaining: decision.remaining }, { allowed: false, remaining: 0 });
  limiter.take("c", 4);
  limiter.take("d", 5); // another generation turn: "moved" survives it, being young
  assert.equal(limiter.peek("moved", 6).allowed, false, "the count survived both moves");
});

test("take() refusal: waiting exactly resetSeconds is always enough, one second less never is, and it never exceeds the window (seeded)", () => {
  for (let seed = 1; seed <= 400; seed++) {
    const random = mulberry32(seed);
    const limit = 1 + Math.floor(random() * 10);
    const windowSeconds = 1 + Math.floor(random() * 120);
    const windowMs = windowSeconds * 1000;
    const limiter = new SlidingWindowLimiter({ limit, windowMs });
    let now = Math.floor(random() * windowMs * 3);
    let refusals = 0;
    while (refusals < 5) {
      now += Math.floor(random() * (windowMs / limit));
      const decision = limiter.take("k", now);
      if (decision.allowed) continue;
      refusals++;
      const context = `seed ${seed} (limit ${limit}, window ${windowSeconds} s) refused at ${now}, resetSeconds ${decision.resetSeconds}`;
      assert.ok(decision.resetSeconds >= 1 && decision.resetSeconds <= windowSeconds, context);
      assert.equal(limiter.peek("k", now + (decision.resetSeconds - 1) * 1000).allowed, false, `${context}: one second early`);
      now += decision.resetSeconds * 1000;
      assert.equal(limiter.take("k", now).allowed, true, `${context}: waited exactly`);
    }
  }
});

test('refund() gives back the latest counted request, so a refused one does not count', () => {
  const limiter = new SlidingWindowLimiter({ limit: 2, windowMs: 60_000 });
  assert.equal(limiter.take('k', 1_000).remaining, 1);
  assert.equal(limiter.take('k', 2_000).remaining, 0);
  limiter.refund('k', 2_500);
  assert.equal(limiter.peek('k', 2_500).remaining, 1);
  assert.equal(limiter.take('k', 3_000).allowed, true);
  assert.equal(limiter.take('k', 3_500).allowed, false);
  limiter.refund('unknown', 3_500);
  assert.equal(limiter.peek('unknown', 3_500).remaining, 2);
});

test("save() and restore(): a limiter restored from another's saved counts decides as that one would, from then on (seeded)", () => {
  const seed = Number(process.env["LIMITER_SEED"] ?? Math.floor(Math.random() * 2 ** 31));
  const random = mulberry32(seed);
  for (let round = 0; round < 50; round++) {
    const windowMs = [60_000, 3_600_000, 7_000][Math.floor(random() * 3)]!;
    const limit = 1 + Math.floor(random() * 20);
    const before = new SlidingWindowLimiter({ limit, windowMs });
    let now = Math.floor(random() * 1e12);
    const keys = ["a", "b", "c", "d"];
    // Requests taken, and failures recorded past the limit (as the throttle counts them), then what each key has left.
    const kinds = Array.from({ length: 200 }, () => (random() < 0.2 ? "record" : "take"));
    const step = (limiter: SlidingWindowLimiter, i: number, key: string, at: number) => {
      if (kinds[i] === "record") limiter.record(key, at);
      else return limiter.take(key, at);
      return limiter.peek(key, at);
    };
    const times: number[] = [];
    for (let i = 0; i < 200; i++) times.push((now += Math.floor(random() * (windowMs / 20))));
    const picks = times.map(() => keys[Math.floor(random() * keys.length)]!);
    const cut = Math.floor(random() * times.length);
    for (let i = 0; i < cut; i++) step(before, i, picks[i]!, times[i]!);
    const after = new SlidingWindowLimiter({ limit, windowMs });
    // Through JSON, as the file holds it.
    after.restore(JSON.parse(JSON.stringify(before.save())), times[cut]!);
    for (let i = cut; i < times.length; i++) {
      const key = picks[i]!;
      assert.deepEqual(step(after, i, key, times[i]!), step(before, i, key, times[i]!), `LIMITER_SEED=${seed}: round ${round}, ${kinds[i]} ${i} (saved after ${cut}) of key ${key}`);
      const other = keys[(keys.indexOf(key) + 1) % keys.length]!;
      assert.deepEqual(after.peek(other, times[i]!), before.peek(other, times[i]!), `LIMITER_SEED=${seed}: round ${round}, key ${other} after ${i}`);
    }
  }
});

test("restore() keeps nothing of another window's counts, nor a malformed entry, and leaves a key already counted as it is", () => {
  const minute = new SlidingWindowLimiter({ limit: 2, windowMs: 60_000 });
  minute.take("k", 1_000);
  minute.take("k", 1_500);
  const saved = minute.save();
  // Head bucket 1 (of 1 s), the oldest counted 1; 0 back from the head: 2 requests, the latest 500 ms into it.
  assert.deepEqual(saved, { windowMs: 60_000, keys: [["k", [1, 1, 0, 2, 500]]] });
  const hour = new SlidingWindowLimiter({ limit: 2, windowMs: HOUR });
  assert.equal(hour.restore(saved, 3_000), false);
  assert.equal(hour.take("k", 3_000).remaining, 1);
  const other = new SlidingWindowLimiter({ limit: 2, windowMs: 60_000 });
  other.take("k", 2_500);
  assert.equal(other.restore({ windowMs: 60_000, keys: [["k", [0, 0, 0, 2, 1_000]], ["bad", [0, 0, 61, 1, 0]], ["worse", [0.5, 0]], ["zero", [0, 0, 0, 0, 0]]] }, 3_000), true);
  assert.equal(other.take("k", 3_000).remaining, 0, "k kept its own single request");
  assert.equal(other.size, 1);
  const fresh = new SlidingWindowLimiter({ limit: 2, windowMs: 60_000 });
  assert.equal(fresh.restore(saved, 3_000), true);
  assert.equal(fresh.size, 1);
  // Saved more than a window before the start, a key's counts have all left the window: it is not kept.
  const later = new SlidingWindowLimiter({ limit: 2, windowMs: 60_000 });
  assert.equal(later.restore(saved, 200_000), true);
  assert.equal(later.size, 0);
  // Freed a window after the latest request: 61.5 s, 58.5 s from now.
  assert.deepEqual(fresh.take("k", 3_000), { allowed: false, limit: 2, remaining: 0, resetSeconds: 59 });
  assert.equal(fresh.take("k", 61_499).allowed, false);
  assert.equal(fresh.take("k", 61_500).allowed, true);
});

test("restore() shifts counts saved ahead of now (a clock that ran ahead, then was set right) back to now: they free within a window", () => {
  const ahead = new SlidingWindowLimiter({ limit: 2, windowMs: 60_000 });
  ahead.take("k", 600_500);
  ahead.take("k", 600_700);
  const restored = new SlidingWindowLimiter({ limit: 2, windowMs: 60_000 });
  // Restored at 100.3 s, ten minutes before the requests' time: refused, but only for the window the answer says.
  assert.equal(restored.restore(ahead.save(), 100_300), true);
  assert.deepEqual(restored.take("k", 100_300), { allowed: false, limit: 2, remaining: 0, resetSeconds: 60 });
  assert.equal(restored.take("k", 160_299).allowed, false);
  assert.equal(restored.take("k", 160_300).allowed, true, "waiting out the reset it said is enough");
  // A hand-edited head at the largest safe integer is no block for ever either.
  const edited = new SlidingWindowLimiter({ limit: 1, windowMs: 60_000 });
  edited.restore({ windowMs: 60_000, keys: [["k", [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 0, 1, 4_000_000_000]]] }, 100_000);
  assert.equal(edited.take("k", 100_000).allowed, false);
  assert.equal(edited.take("k", 100_000).resetSeconds, 60);
  assert.equal(edited.take("k", 160_000).allowed, true);
});
