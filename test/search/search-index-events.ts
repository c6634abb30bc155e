// Random events for the search index's tests: a searched text made of a few words, the first of them far more common.
import { CATEGORIES, type StoredEvent } from '../../src/events/event.js';
import { toStored } from '../../src/store/views/served-event.js';
import { sampleRecord } from '../store/helpers.js';

/** How the words are drawn: `skew` 2 or 3 makes the first words common (bitmaps); `digits`, how often a number follows a word. */
export interface TextShape {
  skew?: number;
  digits?: number;
  /** Events start in the first `months` months of 2026. */
  months?: number;
}

/** Event `n` written at `seq`, its title, description, location and organizer name made of `words`. */
export function randomSearchEvent(random: () => number, n: number, seq: number, words: readonly string[], { skew = 2, digits = 0.3, months = 12 }: TextShape = {}): StoredEvent {
  const text = (count: number): string => Array.from({ length: count }, () => words[Math.floor(words.length * random() ** skew)]! + (random() < digits ? String(Math.floor(random() * 40)) : '')).join(' ');
  const start = Date.UTC(2026, Math.floor(random() * months), 1 + Math.floor(random() * 28));
  const record = sampleRecord(n, {
    title: text(1 + Math.floor(random() * 3)),
    description: random() < 0.4 ? '' : text(Math.floor(random() * 6)),
    location: text(1),
    organizer: { name: text(1), email: 'org@campus.example' },
    category: CATEGORIES[Math.floor(random() * CATEGORIES.length)]!,
    start_time: new Date(start).toISOString(),
    end_time: new Date(start + 3_600_000).toISOString(),
  });
  return toStored(record, seq);
}
