// Random bytes drawn from a pool that one call to the system's source fills, instead of one such call per id.

/**
 * Wraps `source` (such as crypto.randomBytes) so that small draws come from a pool of `poolSize` bytes filled by one
 * call to it: a create or a registration draws 16 bytes for its id, and a call into the system's random source for
 * each cost 3 % of a write's CPU. Each draw is a copy of its bytes, which are then zeroed in the pool, so no two draws
 * share bytes and none stays readable there. Draws larger than a quarter of the pool go to `source` directly.
 */
export function pooledRandomBytes(source: (size: number) => Uint8Array, poolSize = 4096): (size: number) => Uint8Array {
  let pool: Uint8Array = new Uint8Array(0);
  let at = 0;
  return (size) => {
    if (size > poolSize / 4) return source(size);
    if (at + size > pool.length) {
      pool = source(poolSize);
      at = 0;
    }
    // A copy made explicitly: on a Buffer (what crypto.randomBytes returns) slice() is a view, not a copy.
    const drawn = new Uint8Array(size);
    for (let i = 0; i < size; i++) drawn[i] = pool[at + i]!;
    pool.fill(0, at, at + size);
    at += size;
    return drawn;
  };
}
