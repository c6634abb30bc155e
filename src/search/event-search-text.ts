// The text of an event that `q` searches (title, description, location, organizer name), read from its stored view.
import type { StoredEvent } from '../events/event.js';
import { lowerBound } from './search-postings.js';
import { searchWords } from './search-words.js';

// Inside a JSON string a quote is always escaped, so each key with its quotes occurs once, as the key.
const FIELDS = [
  [',"title":', ',"description":'],
  [',"description":', ',"category":'],
  [',"location":', ',"start_time":'],
  [',"organizer":{"name":', ',"email":'],
] as const;

/** The four searched fields of `stored`, in the order title, description, location, organizer name. */
export function searchTextOf(stored: StoredEvent): string[] {
  const { json } = stored;
  const texts: string[] = [];
  let from = 0;
  for (const [key, next] of FIELDS) {
    const at = json.indexOf(key, from);
    const end = json.indexOf(next, at);
    if (at === -1 || end === -1) throw new TypeError(`an event view without the field ${key}`);
    texts.push(textOfLiteral(json.slice(at + key.length, end)));
    from = end;
  }
  return texts;
}

/** The text of a JSON string literal: read as is unless it holds an escape (`\n` would otherwise read as the letter n). */
export function textOfLiteral(literal: string): string {
  return literal.includes('\\') ? (JSON.parse(literal) as string) : literal.slice(1, -1);
}

/** Whether two states of an event have the same searched text (a registration changes only the count). */
export function sameSearchText(a: StoredEvent, b: StoredEvent): boolean {
  if (a.json === b.json) return true;
  const left = searchTextOf(a);
  const right = searchTextOf(b);
  return left.every((text, i) => text === right[i]);
}

/**
 * Whether each of `words` starts a word of the event's text: the lists the index does not serve (a series' events,
 * a `status` list) and every list when the index is off. Each word is a binary search in the text's words sorted:
 * 200 query words against every word of 5,000 (a CJK description) took 2 s over a series' 500 events.
 */
export function hasSearchWords(stored: StoredEvent, words: readonly string[]): boolean {
  const own = sortedWordsOf(searchTextOf(stored));
  return words.every((word) => startsAWord(own, word));
}

/** The words of the last texts read, sorted, each once: the events of a series share their text. */
const recentWords = new Map<string, readonly string[]>();
const RECENT_TEXTS = 64;

function sortedWordsOf(texts: readonly string[]): readonly string[] {
  const key = texts.join('\u0000');
  let words = recentWords.get(key);
  if (words === undefined) {
    words = [...new Set(texts.flatMap(searchWords))].sort();
    if (recentWords.size === RECENT_TEXTS) recentWords.delete(recentWords.keys().next().value!);
    recentWords.set(key, words);
  }
  return words;
}

/** Whether a word of `sorted` starts with `prefix`: if one does, the first word not below `prefix` does. */
function startsAWord(sorted: readonly string[], prefix: string): boolean {
  const at = lowerBound(sorted, prefix);
  return at < sorted.length && sorted[at]!.startsWith(prefix);
}
