// What a series write changes, decided against the latest state: which occurrences to create, change and delete (API.md §11). Pure.
import { ApiError } from '../http/errors.js';
import { toRecord, type EventRecord, type StoredEvent } from '../events/event.js';
import { formatTime } from '../events/time.js';
import type { GroupPlan, GroupView } from '../store/event-store.js';
import { occurrenceEnds, ruleStarts, type Occurrence } from './expand.js';
import { MAX_OCCURRENCES, parseRecurrence } from './recurrence-rule.js';
import { SERIES_COLLECTION, seriesJson, seriesStatus, type SeriesDocument, type SharedFields } from './series-document.js';
import type { SeriesInput } from './series-input.js';

/** What a plan needs from the world: the time now, new event ids, and the latest state. */
export interface PlanContext {
  nowMs: number;
  newEventId: () => string;
  view: GroupView;
}

/** A group write and the series document it leaves. */
export interface SeriesPlan {
  plan: GroupPlan;
  document: SeriesDocument;
}

/** A new series `id` and every occurrence its input makes, each a new event. */
export function planCreate(id: string, createdAt: string, input: SeriesInput, context: PlanContext): SeriesPlan {
  const events: { id: string; record: EventRecord }[] = input.occurrences.map((occurrence) => {
    const eventId = context.newEventId();
    return { id: eventId, record: occurrenceRecord(eventId, id, input.shared, occurrence, createdAt, { status: input.status }) };
  });
  const document: SeriesDocument = { id, ...input.shared, ...input.schedule, created_at: createdAt, occurrences: events.map((each) => each.id), detached: {} };
  if (input.status !== 'published') document.status = input.status;
  return { plan: { events, documents: [{ collection: SERIES_COLLECTION, id, json: seriesJson(document) }] }, document };
}

/**
 * A change of `current` to `input`. Occurrences that have started are never changed. The others keep their id
 * and registrations while the new schedule has an occurrence at their start (the start the schedule gave them,
 * for one edited alone); they take the shared fields unless edited alone, and the new end unless their own start
 * or end was edited. The rest are deleted (409 when one holds registrations), and starts with no occurrence yet get a
 * new one. A capacity below an occurrence's registered_count is a 409 naming it.
 */
export function planUpdate(current: SeriesDocument, input: SeriesInput, context: PlanContext): SeriesPlan {
  const { view, nowMs } = context;
  const wanted = new Map(input.occurrences.map((occurrence) => [occurrence.startMs, occurrence]));
  const covered = new Set<number>();
  const events: { id: string; record: EventRecord | null }[] = [];
  const occurrences: string[] = [];
  const detached: Record<string, string> = {};
  const endBefore = occurrenceEnds({ startMs: Date.parse(current.start_time), endMs: Date.parse(current.end_time), zone: current.time_zone });
  for (const id of current.occurrences) {
    const event = view.event(id);
    if (event === undefined) continue;
    const slot = current.detached[id];
    const slotMs = slot === undefined ? event.startMs : Date.parse(slot);
    const next = wanted.get(slotMs);
    if (event.startMs <= nowMs || next !== undefined) {
      covered.add(slotMs);
      occurrences.push(id);
      if (slot !== undefined) detached[id] = slot;
      if (event.startMs <= nowMs) continue;
      if (slot !== undefined) {
        // Edited alone: its own fields stay, and its times too once its own start or end was edited; else a new length reaches it.
        const timesAsScheduled = current.retimed?.includes(id) !== true && event.startMs === slotMs && event.endMs === endBefore(slotMs);
        if (timesAsScheduled && next!.endMs !== event.endMs) events.push({ id, record: { ...toRecord(event), end_time: formatTime(next!.endMs) } });
        continue;
      }
      const record: EventRecord = { ...toRecord(event), ...input.shared, start_time: formatTime(next!.startMs), end_time: formatTime(next!.endMs) };
      if (record.capacity < record.registered_count) {
        throw new ApiError('conflict', `capacity cannot be ${record.capacity}: occurrence "${id}" (${record.start_time}) already has ${record.registered_count} attendees registered.`);
      }
      events.push({ id, record });
      continue;
    }
    const roster = view.roster(id);
    const holding = roster.confirmed + roster.waitlisted;
    if (holding > 0) {
      throw new ApiError('conflict', `The new schedule would delete occurrence "${id}" (${formatTime(event.startMs)}), which holds ${holding} registration${holding === 1 ? '' : 's'}; cancel them first, or keep that date.`);
    }
    events.push({ id, record: null });
  }
  const made: string[] = [];
  for (const occurrence of input.occurrences) {
    if (covered.has(occurrence.startMs) || occurrence.startMs <= nowMs) continue;
    const eventId = context.newEventId();
    // With the series' status before this write: a status the write moves it to is applied after (series-publishing.ts).
    events.push({ id: eventId, record: occurrenceRecord(eventId, current.id, input.shared, occurrence, new Date(nowMs).toISOString(), current) });
    occurrences.push(eventId);
    made.push(eventId);
  }
  const document: SeriesDocument = { ...current, ...input.shared, ...input.schedule, occurrences, detached };
  if (current.retimed !== undefined) document.retimed = current.retimed.filter((id) => Object.hasOwn(detached, id));
  // New occurrences of a series its cancellation moved (cancelled, or on its way back) are the cancellation's too: they
  // follow the series back, edited alone meanwhile or not.
  const kept = new Set(occurrences);
  if (current.carried !== undefined) document.carried = current.carried.filter((id) => kept.has(id));
  if (seriesStatus(current) === 'cancelled' || (current.carried?.length ?? 0) > 0) document.carried = [...(document.carried ?? []), ...made];
  return { plan: { events, documents: [{ collection: SERIES_COLLECTION, id: current.id, json: seriesJson(document) }] }, document };
}

/** The series and every occurrence (their registrations with them). */
export function planDelete(current: SeriesDocument, view: GroupView): GroupPlan {
  return {
    events: current.occurrences.filter((id) => view.event(id) !== undefined).map((id) => ({ id, record: null })),
    documents: [{ collection: SERIES_COLLECTION, id: current.id, json: null }],
  };
}

/** The series after its occurrence `event` is deleted alone: its start joins the exdates, so no later schedule change brings it back. */
export function withoutOccurrence(series: SeriesDocument, event: StoredEvent): SeriesDocument {
  const slot = series.detached[event.id] ?? formatTime(event.startMs);
  const detached = { ...series.detached };
  delete detached[event.id];
  const rule = parseRecurrence(series.recurrence);
  // Only a start the rule still makes is an exdate (one from an older schedule, kept because it had started, is not).
  const stored = new Set(series.exdates.map((each) => Date.parse(each)));
  const starts = Array.isArray(rule) ? new Set<number>() : new Set(ruleStarts({ startMs: Date.parse(series.start_time), zone: series.time_zone, rule }, stored));
  let exdates = starts.has(Date.parse(slot)) && !series.exdates.includes(slot) ? [...series.exdates, slot].sort() : series.exdates;
  // Past the 500 a body may send, the exdates the rule no longer makes (kept from older schedules) make room first.
  if (exdates.length > MAX_OCCURRENCES) exdates = exdates.filter((each) => starts.has(Date.parse(each)));
  const after: SeriesDocument = { ...series, exdates, occurrences: series.occurrences.filter((id) => id !== event.id), detached };
  if (series.carried !== undefined) after.carried = series.carried.filter((id) => id !== event.id);
  if (series.retimed !== undefined) after.retimed = series.retimed.filter((id) => id !== event.id);
  return after;
}

/**
 * The series after its occurrence `event` is edited alone into `next`: shared-field changes pass it by from now on
 * (and a new length too, once its own start or end was set); a status or cancellation reason of its own takes it out
 * of what the series' cancellation carried: from then on only its own moves move it.
 */
export function withDetached(series: SeriesDocument, event: StoredEvent, next: EventRecord): SeriesDocument {
  const ownStatus = (next.status ?? 'published') !== (event.status ?? 'published') || next.cancellation_reason !== toRecord(event).cancellation_reason;
  const released = ownStatus && series.carried?.includes(event.id) === true;
  const retimed = (Date.parse(next.start_time) !== event.startMs || Date.parse(next.end_time) !== event.endMs) && series.retimed?.includes(event.id) !== true;
  if (Object.hasOwn(series.detached, event.id) && !released && !retimed) return series;
  const after = { ...series, detached: { ...series.detached, [event.id]: series.detached[event.id] ?? formatTime(event.startMs) } };
  if (released) after.carried = series.carried!.filter((id) => id !== event.id);
  if (retimed) after.retimed = [...(series.retimed ?? []), event.id];
  return after;
}

function occurrenceRecord(id: string, seriesId: string, shared: SharedFields, occurrence: Occurrence, createdAt: string, publishing: Pick<SeriesDocument, 'status' | 'cancellation_reason'>): EventRecord {
  const record: EventRecord = {
    id,
    title: shared.title,
    description: shared.description,
    category: shared.category,
    location: shared.location,
    start_time: formatTime(occurrence.startMs),
    end_time: formatTime(occurrence.endMs),
    capacity: shared.capacity,
    registered_count: 0,
    organizer: { name: shared.organizer.name, email: shared.organizer.email },
    created_at: createdAt,
    series_id: seriesId,
  };
  const { status, cancellation_reason: reason } = publishing;
  if (status !== undefined && status !== 'published') record.status = status;
  // A new occurrence of a cancelled series is cancelled too, with the series' reason, as every other occurrence it cancelled.
  if (status === 'cancelled' && reason !== undefined) record.cancellation_reason = reason;
  return record;
}
