// The terms of a dictionary one after another: their UTF-16 units in one array, where each starts, and each hash.
import { grown } from './search-hash.js';

/**
 * What SearchTerms and the start-up build's BuildTerms both keep of their terms, numbered 0, 1, 2… as appended:
 * term i's units run from `starts[i]` to where term i + 1 starts (or to `used` for the last). The arrays are
 * handed to another thread as they are (TermParts), so they stay plain fields.
 */
export class TermArena {
  units = new Uint16Array(1 << 16);
  used = 0;
  starts = new Uint32Array(1 << 12);
  hashes = new Uint32Array(1 << 12);
  count = 0;
  /** Times an array grew (the units; the starts with the hashes): work, for tests. */
  growths = 0;

  /** Where term `id`'s units end. */
  end(id: number): number {
    return id + 1 < this.count ? this.starts[id + 1]! : this.used;
  }

  /** Appends the term spelt by `units[0, length)`, of hashUnits `hash`; returns its id. */
  append(units: Uint16Array, length: number, hash: number): number {
    if (this.used + length > this.units.length) {
      this.units = grown(this.units, this.used + length);
      this.growths++;
    }
    if (this.count === this.starts.length) {
      this.growths++;
      this.starts = grown(this.starts, this.count + 1);
      this.hashes = grown(this.hashes, this.count + 1);
    }
    const id = this.count++;
    this.starts[id] = this.used;
    this.hashes[id] = hash;
    this.units.set(units.subarray(0, length), this.used);
    this.used += length;
    return id;
  }
}
