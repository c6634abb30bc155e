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

/** Writes `change` to event `id`: an occurrence of a series with its series (see writeOccurrence), any other event alone. */
export function writeAnyEvent(store: EventStore, id: string, change: EventChange): Promise<StoredEvent | null> {
  const seriesId = store.get(id)?.seriesId;
  return seriesId === undefined ? store.write(id, change) : writeOccurrence(store, id, seriesId, change);
}
