// A recurring series as the store keeps it (one document), and the view a client reads (API.md §11).
import type { Category, EventStatus, Person } from '../events/event.js';
import type { StoredDocument } from '../store/event-store.js';
import { crc32 } from '../lib/crc32.js';

/** The store's collection of series documents. */
export const SERIES_COLLECTION = 'series';

/** The fields every occurrence takes from its series, unless it was edited on its own. */
export interface SharedFields {
  title: string;
  description: string;
  category: Category;
  location: string;
  capacity: number;
  organizer: Person;
}

/** The schedule of a series: its first occurrence, zone, rule and the starts left out (UTC `YYYY-MM-DDTHH:MM:SS.sssZ`). */
export interface ScheduleFields {
  time_zone: string;
  start_time: string;
  end_time: string;
  recurrence: string;
  exdates: string[];
}

/** A series document: what a client reads, plus which events are its occurrences and which were edited alone. */
export interface SeriesDocument extends SharedFields, ScheduleFields {
  id: string;
  created_at: string;
  /** Ids of its live occurrences. */
  occurrences: string[];
  /** Occurrences edited on their own (id → the start the schedule gave them): shared changes pass them by. */
  detached: Record<string, string>;
  /**
   * Occurrences the series' cancellation took with it (API.md §14 cancels every occurrence not started), edited alone
   * or not: they follow the series' moves until it is published again, unless given a status or reason of their own.
   * Absent when none.
   */
  carried?: string[];
  /**
   * Occurrences edited alone whose own start or end was set: a new length passes them by, also once a schedule gives
   * the times they have. Absent when none (and in series written before 2026-12-02, whose times tell it instead).
   */
  retimed?: string[];
  /** API.md §14: absent means `published` (and a published series holds none). */
  status?: EventStatus;
  /** Why a reviewer sent it back to `draft`, until its next change. */
  review_note?: string;
  /** Why it was called off: only on a cancelled series given one. */
  cancellation_reason?: string;
}

/** The status of a series: `published` when its document holds none (every series made before API.md §14). */
export function seriesStatus(series: SeriesDocument): EventStatus {
  return series.status ?? 'published';
}

/** The document read back from the store. */
export function parseSeries(stored: StoredDocument): SeriesDocument {
  return JSON.parse(stored.json) as SeriesDocument;
}

/**
 * The JSON the store keeps, fields in a fixed order and `detached` by id: one series, one text, however its map was
 * built (a PUT that changes nothing is found by comparing them).
 */
export function seriesJson(series: SeriesDocument): string {
  const detached: Record<string, string> = {};
  for (const id of Object.keys(series.detached).sort()) detached[id] = series.detached[id]!;
  return JSON.stringify({
    ...viewFields(series),
    occurrences: series.occurrences,
    detached,
    ...(series.carried === undefined || series.carried.length === 0 ? {} : { carried: series.carried }),
    ...(series.retimed === undefined || series.retimed.length === 0 ? {} : { retimed: [...series.retimed].sort() }),
  });
}

/**
 * What GET /series/{id} answers; `seen`, when given, is the reader's occurrence_count: the occurrences they may see
 * (a draft or pending one is in no count of anyone but its organizer and admins, API.md §14).
 */
export function seriesViewJson(series: SeriesDocument, seen?: number): string {
  const view = viewFields(series);
  if (seen !== undefined) view['occurrence_count'] = seen;
  return JSON.stringify(view);
}

function viewFields(series: SeriesDocument): Record<string, unknown> {
  return {
    id: series.id,
    title: series.title,
    description: series.description,
    category: series.category,
    location: series.location,
    capacity: series.capacity,
    organizer: { name: series.organizer.name, email: series.organizer.email },
    time_zone: series.time_zone,
    start_time: series.start_time,
    end_time: series.end_time,
    recurrence: series.recurrence,
    exdates: series.exdates,
    occurrence_count: series.occurrences.length,
    created_at: series.created_at,
    ...publishingFields(series),
  };
}

/** `status` (when not published), `review_note` and `cancellation_reason` (when present), as an event carries them. */
function publishingFields(series: SeriesDocument): Record<string, unknown> {
  if (series.status === undefined || series.status === 'published') return {};
  return {
    status: series.status,
    ...(series.review_note === undefined ? {} : { review_note: series.review_note }),
    ...(series.cancellation_reason === undefined ? {} : { cancellation_reason: series.cancellation_reason }),
  };
}

/**
 * The strong ETag of a series: the seq of its document's last write, which every change of it makes anew, and the
 * document's CRC-32, which tells apart two states given one seq (a folder restored from an older backup gives again
 * the seqs of the writes it lost).
 */
export function seriesEtag(stored: StoredDocument, seen?: number): string {
  const version = `s${stored.seq.toString(36)}-${crc32(stored.json).toString(36)}`;
  // A reader who sees fewer occurrences than there are gets another ETag, which changes as that count does.
  return seen === undefined ? `"${version}"` : `"${version}.${seen.toString(36)}"`;
}
