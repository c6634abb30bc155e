// Every folded word of the live events with its posting, found whole in O(1) and by prefix through sorted buckets.
import { lowerBound, type Posting } from './search-postings.js';
import { flatCopy } from './view-scan.js';

/** The words sharing their first two UTF-16 units, sorted when a prefix lookup needs them (not on each new word). */
interface Bucket {
  words: string[];
  /** False after a word was added: the next lookup sorts (and drops words gone from the vocabulary). */
  sorted: boolean;
  /** Words removed from the vocabulary since the last sort, still in `words`. */
  stale: number;
}

/**
 * The vocabulary of the search index. A word is added in O(1) (a map entry, a push onto its bucket); a bucket is
 * sorted on the first prefix lookup after it changed, so start-up sorts nothing and a burst of writes sorts once.
 */
export class SearchVocabulary {
  readonly #postings = new Map<string, Posting>();
  readonly #buckets = new Map<string, Bucket>();
  /** The buckets of each first unit: where a one-letter query word looks. */
  readonly #bucketsByFirst = new Map<string, Bucket[]>();

  /** Distinct words. */
  get size(): number {
    return this.#postings.size;
  }

  get(word: string): Posting | undefined {
    return this.#postings.get(word);
  }

  /** Sets the posting of `word`; undefined removes the word. */
  set(word: string, posting: Posting | undefined): void {
    if (posting === undefined) {
      // Its bucket keeps the word until the next sort drops it, which comes early once half the bucket is stale.
      if (!this.#postings.delete(word)) return;
      const bucket = this.#bucketOf(word);
      bucket.sorted = false;
      if (++bucket.stale > 32 && bucket.stale * 2 > bucket.words.length) this.#sortedWords(bucket);
      return;
    }
    if (this.#postings.has(word)) {
      this.#postings.set(word, posting);
      return;
    }
    // A long word cut from a text by a regular expression points into that whole text: keep a copy of its own.
    word = word.length >= 13 ? flatCopy(word) : word;
    this.#postings.set(word, posting);
    const bucket = this.#bucketOf(word);
    bucket.words.push(word);
    bucket.sorted = false;
  }

  /** The postings of every word starting with `prefix` (a folded query word). */
  postingsStartingWith(prefix: string): Posting[] {
    const out: Posting[] = [];
    const buckets = prefix.length >= 2 ? [this.#buckets.get(prefix.slice(0, 2))] : (this.#bucketsByFirst.get(prefix) ?? []);
    for (const bucket of buckets) {
      if (bucket === undefined) continue;
      const words = this.#sortedWords(bucket);
      for (let at = lowerBound(words, prefix); at < words.length && words[at]!.startsWith(prefix); at++) out.push(this.#postings.get(words[at]!)!);
    }
    return out;
  }

  #bucketOf(word: string): Bucket {
    const key = word.slice(0, 2);
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      bucket = { words: [], sorted: true, stale: 0 };
      this.#buckets.set(key, bucket);
      const first = key.slice(0, 1);
      const siblings = this.#bucketsByFirst.get(first);
      if (siblings === undefined) this.#bucketsByFirst.set(first, [bucket]);
      else siblings.push(bucket);
    }
    return bucket;
  }

  #sortedWords(bucket: Bucket): string[] {
    if (!bucket.sorted) {
      // A word removed and added again sits in the bucket twice: drop repeats as well as words gone.
      bucket.words = [...new Set(bucket.words.filter((word) => this.#postings.has(word)))].sort(compareUnits);
      bucket.sorted = true;
      bucket.stale = 0;
    }
    return bucket.words;
  }
}

/** Plain UTF-16 order, the order `startsWith` ranges are contiguous in. */
function compareUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
