// The text of an event that `q` searches (title, description, location, organizer name), read from its stored view.
import type { StoredEvent } from '../events/event.js';
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

/** Whether each of `words` starts a word of the event's text: the scan of a short list, or of all when the index is off. */
export function hasSearchWords(stored: StoredEvent, words: readonly string[]): boolean {
  const own = searchTextOf(stored).flatMap(searchWords);
  return words.every((word) => own.some((each) => each.startsWith(word)));
}
