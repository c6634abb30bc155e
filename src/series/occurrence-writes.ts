// A change to one occurrence through /events (API.md §11): written with its series, which notes it edited alone or cancelled.
import { viewJson, type StoredEvent } from '../events/event.js';
import type { EventChange, EventStore } from '../store/event-store.js';
import { parseSeries, SERIES_COLLECTION, seriesJson } from './series-document.js';
import { withDetached, withoutOccurrence } from './series-plan.js';

/**
 * Applies `change` to occurrence `id` of series `seriesId` in one atomic write with the series: an edit that
 * changes the event detaches it from later shared-field changes; a delete adds its start to the series' exdates.
 * Resolves like EventStore.write.
 */
export async function writeOccurrence(store: EventStore, id: string, seriesId: string, change: EventChange): Promise<StoredEvent | null> {
  const result = await store.writeGroup((view) => {
    const current = view.event(id);
    const next = change(current);
    const stored = view.document(SERIES_COLLECTION, seriesId);
    if (stored === undefined || current === undefined || (next !== null && viewJson(next) === current.json)) return { events: [{ id, record: next }], documents: [] };
    const series = parseSeries(stored);
    const after = next === null ? withoutOccurrence(series, current) : withDetached(series, current, next);
    return { events: [{ id, record: next }], documents: after === series ? [] : [{ collection: SERIES_COLLECTION, id: seriesId, json: seriesJson(after) }] };
  });
  const state = result.events.get(id);
  return state === undefined ? (store.get(id) ?? null) : state;
}

/**
 * Writes `change` to event `id`: an occurrence of a series with its series (see writeOccurrence), any other event alone.
 * Which it is, is known for sure only where the write is decided: an instance that had not read the occurrence's
 * creation yet (PostgreSQL, another instance made it) learns it there, and the write goes with its series after all.
 */
export async function writeAnyEvent(store: EventStore, id: string, change: EventChange): Promise<StoredEvent | null> {
  const seriesId = store.get(id)?.seriesId;
  if (seriesId !== undefined) return writeOccurrence(store, id, seriesId, change);
  try {
    return await store.write(id, (current) => {
      if (current?.seriesId !== undefined) throw new AnOccurrence(current.seriesId);
      return change(current);
    });
  } catch (error) {
    if (error instanceof AnOccurrence) return writeOccurrence(store, id, error.seriesId, change);
    throw error;
  }
}

/** Thrown out of a lone event's write that found an occurrence: nothing is written, and writeAnyEvent writes it with its series. */
class AnOccurrence extends Error {
  constructor(readonly seriesId: string) {
    super(`event is an occurrence of series ${seriesId}`);
  }
}
