// The term ids of texts met lately, by a numeric key, in typed arrays: no object per entry, so nothing for the GC.

/** Entries (direct-mapped: a key's place is fixed, a newcomer there replaces the one before). */
const ENTRIES = 1 << 14;
/** Term ids held in all (1 MiB); when full, the whole cache starts over. */
const POOL = 1 << 18;

/**
 * A cache of term-id lists keyed by a text's key (PackedEvent.searchTextKey: equal keys, equal text), so a
 * replayed building, room or organizer name is scanned once while it keeps coming back.
 */
export class TermsByKey {
  readonly #keys = new Float64Array(ENTRIES).fill(-1);
  readonly #starts = new Uint32Array(ENTRIES);
  readonly #lengths = new Uint32Array(ENTRIES);
  readonly #pool = new Uint32Array(POOL);
  #used = 0;

  /** Pushes onto `out` the term ids cached for `key` and returns true, or returns false when none are. */
  pushInto(key: number, out: number[]): boolean {
    const entry = place(key);
    if (this.#keys[entry] !== key) return false;
    const start = this.#starts[entry]!;
    const end = start + this.#lengths[entry]!;
    for (let at = start; at < end; at++) out.push(this.#pool[at]!);
    return true;
  }

  /** Caches `terms[from…]` as the term ids of `key`. */
  set(key: number, terms: readonly number[], from: number): void {
    const length = terms.length - from;
    if (length > POOL / 16) return;
    if (this.#used + length > POOL) {
      this.#keys.fill(-1);
      this.#used = 0;
    }
    const entry = place(key);
    this.#keys[entry] = key;
    this.#starts[entry] = this.#used;
    this.#lengths[entry] = length;
    for (let at = from; at < terms.length; at++) this.#pool[this.#used++] = terms[at]!;
  }
}

/** The entry of `key`: its low 32 bits and its high bits mixed, masked. */
function place(key: number): number {
  const low = key % 2 ** 32;
  const high = (key - low) / 2 ** 32;
  return (Math.imul(low ^ Math.imul(high, 0x9e3779b1), 0x85ebca6b) >>> 18) & (ENTRIES - 1);
}
