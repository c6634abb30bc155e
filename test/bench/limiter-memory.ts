// Child script: heap growth of the rate limiter with 10,000 active keys and of the failure throttle under 1,000,000 bad keys.
// Run: node --expose-gc --import tsx test/bench/limiter-memory.ts   (prints one JSON line)
import { SlidingWindowLimiter } from '../../src/limits/sliding-window.js';
import { AuthFailureThrottle } from '../../src/limits/auth-failures.js';

const gc = globalThis.gc;
if (gc === undefined) {
  process.stderr.write('run with node --expose-gc\n');
  process.exit(2);
}

/** Heap plus array-buffer bytes (each key's ring is a Uint32Array whose store may live outside the heap). */
function usedBytes(): number {
  gc!();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

const MiB = 1024 * 1024;
const now = Date.UTC(2026, 0, 1);

// 10,000 keys, each with requests in several buckets of the window, as busy keys have.
let base = usedBytes();
const limiter = new SlidingWindowLimiter({ limit: 1000, windowMs: 3_600_000 });
for (let minute = 0; minute < 5; minute++) {
  for (let key = 0; key < 10_000; key++) limiter.take(`key_${key.toString(36).padStart(12, '0')}`, now + minute * 60_000);
}
const activeKeysMiB = (usedBytes() - base) / MiB;

// A brute-force run: 1,000,000 different wrong keys, each from its own IPv6 /64 (the worst case for the table), as the pipeline does.
base = usedBytes();
const throttle = new AuthFailureThrottle();
const startedAt = performance.now();
for (let attempt = 0; attempt < 1_000_000; attempt++) {
  const address = `2001:db8:${(attempt >>> 16).toString(16)}:${(attempt & 0xffff).toString(16)}::1`;
  const at = now + attempt;
  if (!throttle.isBlocked(address, at).blocked) throttle.recordFailure(address, at);
}
const badKeysMicrosEach = ((performance.now() - startedAt) * 1000) / 1_000_000;
const badKeysMiB = (usedBytes() - base) / MiB;

process.stdout.write(
  `${JSON.stringify({
    // Read only now, so the first limiter stays alive (and out of the second measurement) until here.
    activeKeys: limiter.size,
    activeKeysMiB,
    badKeys: 1_000_000,
    badKeysAddressesHeld: throttle.size,
    badKeysMiB,
    badKeysMicrosEach,
  })}\n`,
);
