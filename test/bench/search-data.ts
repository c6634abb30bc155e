// Bench data for `q`: events whose text is drawn from a Zipf vocabulary (a few words in most events, most words rare).
import { CATEGORIES, type EventRecord } from '../../src/events/event.js';
import { mulberry32 } from '../helpers/random.js';
import { type BenchData, writeBenchFolder } from './data-generator.js';

const VOCABULARY_SIZE = 50_000;
const SYLLABLES = ['ka', 'ri', 'mo', 'chem', 'lab', 'to', 'ne', 'sa', 'yo', 'ga', 'phi', 'lo', 'so', 'bio', 'ma', 'th', 'de', 'bu', 'ré', 'ü', 'st', 'or', 'in', 'al'];
const FIRST_START_MS = Date.UTC(2026, 0, 1);
const QUARTER_HOURS_IN_TWO_YEARS = 2 * 365 * 96;

/** The words of the vocabulary, most common first (rank r is drawn with probability ∝ 1/r). */
export function vocabulary(): string[] {
  const random = mulberry32(7);
  const words = new Set<string>();
  while (words.size < VOCABULARY_SIZE) {
    let word = '';
    for (let n = 2 + Math.floor(random() * 3); n > 0; n--) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    words.add(word);
  }
  return [...words];
}

/** The words the scenarios ask for: the two most common (in most events) and a rare one (in about 1 in 2,000 events). */
export function queryWords(words: readonly string[]): { common: string; common2: string; rare: string } {
  return { common: words[0]!, common2: words[1]!, rare: words[4000]! };
}

/** Draws Zipf ranks by inverting the cumulative weights. */
function zipf(random: () => number, size: number): () => number {
  const cumulative = new Float64Array(size);
  let sum = 0;
  for (let r = 0; r < size; r++) cumulative[r] = sum += 1 / (r + 1);
  return () => {
    const target = random() * sum;
    let low = 0;
    let high = size - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (cumulative[middle]! < target) low = middle + 1;
      else high = middle;
    }
    return low;
  };
}

/** Event `i`: a title of 3–6 words, a description of 15–40, a location with a word, an organizer among 2,000 names. */
export function searchEventAt(i: number, random: () => number, words: readonly string[], rank: () => number): EventRecord {
  const text = (count: number): string => Array.from({ length: count }, () => words[rank()]).join(' ');
  let id = 'evt_';
  for (let c = 0; c < 22; c++) id += '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'[Math.floor(random() * 62)];
  const start = FIRST_START_MS + Math.floor(random() * QUARTER_HOURS_IN_TWO_YEARS) * 900_000;
  const organizer = i % 2000;
  const title = text(3 + Math.floor(random() * 4));
  return {
    id,
    title: title[0]!.toUpperCase() + title.slice(1),
    description: `${text(15 + Math.floor(random() * 26))}.`,
    category: CATEGORIES[i % CATEGORIES.length]!,
    location: `${words[rank()]} Hall ${1 + (i % 40)}, room ${100 + (i % 300)}`,
    start_time: new Date(start).toISOString(),
    end_time: new Date(start + (1 + (i % 3)) * 3_600_000).toISOString(),
    capacity: 20 + (i % 200),
    registered_count: 0,
    organizer: { name: `${words[organizer % 997]} ${words[1000 + organizer]}`, email: `organizer${organizer}@campus.example` },
    created_at: new Date(Date.UTC(2025, 11, 1) + i * 1000).toISOString(),
  };
}

/** Every event of a run of `events`, in order (for in-process profiles). */
export function* searchEvents(events: number): Generator<EventRecord> {
  const next = searchEventSource();
  for (let i = 0; i < events; i++) yield next(i);
}

/** Event after event of the Zipf data, the same run each time. */
function searchEventSource(): (i: number) => EventRecord {
  const random = mulberry32(20_261_125);
  const words = vocabulary();
  const rank = zipf(random, words.length);
  return (i) => searchEventAt(i, random, words, rank);
}

/** Writes `events` such events and one admin key into a new folder `dir`. */
export function generateSearchData(dir: string, events: number): Promise<BenchData> {
  return writeBenchFolder(dir, events, searchEventSource());
}
