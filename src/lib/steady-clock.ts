// Milliseconds since the epoch on a clock that never steps: for windows that measure time passing (rate limits).

/**
 * The wall clock as this process began, moved on by the monotonic clock since. A wall clock set back (NTP
 * correcting one that ran ahead) or forward does not move it: a rate limit's window counted on Date.now would
 * free a key's requests a year late, or at once, after such a step.
 */
export function steadyNow(): number {
  return performance.timeOrigin + performance.now();
}
