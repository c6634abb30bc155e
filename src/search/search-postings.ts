// The events holding one word, as slot numbers: a bare number for one, a sorted array for a few, a bitmap for many.

/** A set of slots as bits: `has` and `add` in O(1), intersections and counts a machine word at a time. */
export class SlotBitmap {
  words: Uint32Array;
  /** Bits set. */
  count = 0;

  constructor(capacity = 0) {
    this.words = new Uint32Array((capacity + 31) >>> 5);
  }

  has(slot: number): boolean {
    // Past the end the word reads as undefined, which `&` takes as 0: not held.
    return (this.words[slot >>> 5]! & (1 << (slot & 31))) !== 0;
  }

  /** Makes room for `length` machine words (32 slots each), growing by half at least. */
  reserve(length: number): void {
    if (length <= this.words.length) return;
    const grown = new Uint32Array(Math.max(length, Math.ceil(this.words.length * 1.5)));
    grown.set(this.words);
    this.words = grown;
  }

  add(slot: number): void {
    const at = slot >>> 5;
    this.reserve(at + 1);
    const bit = 1 << (slot & 31);
    if ((this.words[at]! & bit) === 0) {
      this.words[at]! |= bit;
      this.count++;
    }
  }

  remove(slot: number): void {
    const at = slot >>> 5;
    const bit = 1 << (slot & 31);
    // Past the end the word reads as undefined (0 to `&`): nothing to remove.
    if ((this.words[at]! & bit) !== 0) {
      this.words[at]! &= ~bit;
      this.count--;
    }
  }

  /** Calls `visit` with each slot, ascending. */
  forEach(visit: (slot: number) => void): void {
    const { words } = this;
    for (let at = 0; at < words.length; at++) {
      let word = words[at]!;
      while (word !== 0) {
        const low = word & -word;
        visit((at << 5) + 31 - Math.clz32(low));
        word ^= low;
      }
    }
  }

  /** Keeps only the slots also in `other`. */
  intersect(other: SlotBitmap): void {
    const { words } = this;
    let count = 0;
    for (let at = 0; at < words.length; at++) {
      const word = words[at]! & (other.words[at] ?? 0);
      words[at] = word;
      count += popcount(word);
    }
    this.count = count;
  }

  /** Sets `count` from the bits (after bits were set in bulk). */
  recount(): void {
    let count = 0;
    for (const word of this.words) count += popcount(word);
    this.count = count;
  }

  /** How many slots are in both this and `other`. */
  countShared(other: SlotBitmap): number {
    const { words } = this;
    const length = Math.min(words.length, other.words.length);
    let count = 0;
    for (let at = 0; at < length; at++) count += popcount(words[at]! & other.words[at]!);
    return count;
  }

  /** How many slots are in this and in every one of `others`. */
  countSharedWithAll(others: readonly SlotBitmap[]): number {
    let length = this.words.length;
    for (const other of others) length = Math.min(length, other.words.length);
    let count = 0;
    // A dated `q` page counts each month as matched AND month (AND category): those two, without a loop a word.
    if (others.length === 1 || others.length === 2) {
      const { words } = this;
      const first = others[0]!.words;
      const second = others.length === 2 ? others[1]!.words : first;
      for (let at = 0; at < length; at++) count += popcount(words[at]! & first[at]! & second[at]!);
      return count;
    }
    for (let at = 0; at < length; at++) {
      let word = this.words[at]!;
      for (const other of others) word &= other.words[at]!;
      count += popcount(word);
    }
    return count;
  }

  copy(): SlotBitmap {
    const copy = new SlotBitmap();
    copy.words = this.words.slice();
    copy.count = this.count;
    return copy;
  }
}

/** Bits set in a 32-bit word. */
function popcount(word: number): number {
  word -= (word >>> 1) & 0x55555555;
  word = (word & 0x33333333) + ((word >>> 2) & 0x33333333);
  return (((word + (word >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * The slots of the events holding a word. Most words are in one event (a bare number costs no object), many in a
 * few (a sorted array); a word in more than 1/64 of the slots is a bitmap, which then costs less than the array.
 * A word indexed at start-up and not written since is a sorted run of a packed table (a Uint32Array view); the
 * first write to it turns it into an array.
 */
export type Posting = number | number[] | Uint32Array | SlotBitmap;

/** The fewest slots a word is in before its posting becomes a bitmap (fewer than this stay an array). */
const MIN_BITMAP = 256;

/** How many events hold the word. */
export function postingSize(posting: Posting): number {
  return typeof posting === 'number' ? 1 : posting instanceof SlotBitmap ? posting.count : posting.length;
}

export function postingHas(posting: Posting, slot: number): boolean {
  if (typeof posting === 'number') return posting === slot;
  if (posting instanceof SlotBitmap) return posting.has(slot);
  return posting[lowerBound(posting, slot)] === slot;
}

/** `posting` with `slot` added (the same object when it changed in place); `capacity` is the slots in use. */
export function postingAdd(posting: Posting | undefined, slot: number, capacity: number): Posting {
  if (posting === undefined) return slot;
  if (posting instanceof Uint32Array) posting = Array.from(posting);
  if (typeof posting === 'number') return posting === slot ? posting : [Math.min(posting, slot), Math.max(posting, slot)];
  if (!Array.isArray(posting)) {
    posting.add(slot);
    return posting;
  }
  const last = posting[posting.length - 1]!;
  if (last === slot) return posting;
  if (last < slot) posting.push(slot);
  else {
    const at = lowerBound(posting, slot);
    if (posting[at] === slot) return posting;
    posting.splice(at, 0, slot);
  }
  if (posting.length < Math.max(MIN_BITMAP, capacity >>> 6)) return posting;
  const bitmap = new SlotBitmap(capacity);
  for (const each of posting) bitmap.add(each);
  return bitmap;
}

/** `posting` without `slot`, or undefined when nothing is left. */
export function postingRemove(posting: Posting, slot: number, capacity: number): Posting | undefined {
  if (typeof posting === 'number') return posting === slot ? undefined : posting;
  if (posting instanceof Uint32Array) posting = Array.from(posting);
  if (Array.isArray(posting)) {
    const at = lowerBound(posting, slot);
    if (posting[at] === slot) posting.splice(at, 1);
    return posting.length === 1 ? posting[0]! : posting;
  }
  posting.remove(slot);
  // Back to an array only well below the bitmap's threshold, so a word near it does not flip on every write.
  if (posting.count >= Math.max(MIN_BITMAP, capacity >>> 6) >>> 1) return posting;
  const slots: number[] = [];
  posting.forEach((each) => slots.push(each));
  return slots.length === 0 ? undefined : slots.length === 1 ? slots[0]! : slots;
}

/** Sets in `into` every slot of `posting`; a bitmap's leave `into.count` stale: call `recount` after the last one. */
export function postingOrInto(posting: Posting, into: SlotBitmap): void {
  if (typeof posting === 'number') into.add(posting);
  else if (!(posting instanceof SlotBitmap)) for (const slot of posting) into.add(slot);
  else {
    into.reserve(posting.words.length);
    const { words } = into;
    const other = posting.words;
    for (let at = 0; at < other.length; at++) words[at]! |= other[at]!;
  }
}

/** Pushes onto `into` every slot of `posting` (unsorted across postings). */
export function postingPushInto(posting: Posting, into: number[]): void {
  if (typeof posting === 'number') into.push(posting);
  else if (!(posting instanceof SlotBitmap)) for (const slot of posting) into.push(slot);
  else posting.forEach((slot) => into.push(slot));
}

/** The first index of `sorted` (ascending by `<`) whose value is not below `value`. */
export function lowerBound<T extends number | string>(sorted: ArrayLike<T>, value: T): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}
