// A series' status and its occurrences' (API.md §14): a move of the series acts on every occurrence not edited on its
// own (a cancellation, on every one not started yet, and the moves after it on what it took); approve and reject
// likewise. Pure, over a planned group write.
import { isHiddenStatus, toRecord, type EventRecord, type EventStatus } from '../events/event.js';
import type { PlanContext, SeriesPlan } from './series-plan.js';
import { SERIES_COLLECTION, seriesJson, seriesStatus, type SeriesDocument } from './series-document.js';

/** What a series' move sets besides its status. */
export interface StatusChange {
  /** The series' status before the write. */
  from: EventStatus;
  /** Its status after it. */
  to: EventStatus;
  /** A reason sent with a cancellation (or to change the reason of a cancelled series). */
  cancellationReason?: string | undefined;
  /** A reviewer's reason for a rejection: the series' and its occurrences' review_note. */
  reviewNote?: string | undefined;
}

/**
 * `planned` (a write of series `planned.document`) with the status change applied to the series and to its
 * occurrences whose status is the series' former one (out of published or cancelled, only those not started at
 * `context.nowMs`: a cancellation, a restore): each takes the new status, the cancellation reason while cancelled, and
 * the review note of a rejection; any other review note goes with the change. Occurrences edited on their own are
 * passed by, except by a cancellation, which takes every one (API.md §14) and notes all it took as `carried`: they
 * follow the series back (a restore, through approval too), edited alone meanwhile or not, and are released once it is
 * published again, or one by one by a status or cancellation reason of their own.
 */
export function withStatusChange(planned: SeriesPlan, change: StatusChange, context: PlanContext): SeriesPlan {
  const document = withPublishing({ ...planned.document }, change, change.cancellationReason ?? (change.from === 'cancelled' ? planned.document.cancellation_reason : undefined));
  const events = new Map<string, EventRecord | null>(planned.plan.events.map((each) => [each.id, each.record]));
  const cancelling = change.from === 'published' && change.to === 'cancelled';
  const carried = new Set(document.carried ?? []);
  const taken: string[] = [];
  for (const id of document.occurrences) {
    const alone = Object.hasOwn(document.detached, id);
    if (alone && !cancelling && !carried.has(id)) continue;
    const planned = events.get(id);
    const event = context.view.event(id);
    const record = planned ?? (event === undefined ? undefined : toRecord(event));
    if (record === undefined || record === null) continue;
    const status = record.status ?? 'published';
    // Started occurrences are never changed (API.md §11), except out of a draft or pending state: those were never public.
    const started = Date.parse(record.start_time) <= context.nowMs;
    const moves = change.to !== change.from && status === change.from && (!started || isHiddenStatus(change.from));
    const reasonChanges = (!alone || carried.has(id)) && change.to === 'cancelled' && status === 'cancelled' && change.cancellationReason !== undefined;
    if (cancelling && moves) taken.push(id);
    if (!moves && !reasonChanges && planned === undefined) continue;
    const next: EventRecord = moves || reasonChanges ? withPublishing({ ...record }, change, change.cancellationReason ?? record.cancellation_reason) : { ...record };
    if (!moves && !reasonChanges) delete next.review_note;
    events.set(id, next);
  }
  if (cancelling) document.carried = taken;
  else if (change.to === 'published') delete document.carried;
  return {
    document,
    plan: {
      events: [...events].map(([id, record]) => ({ id, record })),
      documents: [{ collection: SERIES_COLLECTION, id: document.id, json: seriesJson(document) }],
    },
  };
}

/** A series or an occurrence with the new status, its cancellation reason (while cancelled) and review note. */
function withPublishing<T extends EventRecord | SeriesDocument>(thing: T, change: StatusChange, reason: string | undefined): T {
  if (change.to === 'published') delete thing.status;
  else thing.status = change.to;
  delete thing.review_note;
  delete thing.cancellation_reason;
  if (change.to === 'cancelled' && reason !== undefined) thing.cancellation_reason = reason;
  if (change.reviewNote !== undefined) thing.review_note = change.reviewNote;
  return thing;
}

/** The plan of an approve or a reject of a pending series: its document and occurrences, nothing else changed. */
export function planReview(current: SeriesDocument, action: 'approve' | 'reject', reason: string | undefined, context: PlanContext): SeriesPlan {
  const unchanged: SeriesPlan = { document: current, plan: { events: [], documents: [] } };
  return withStatusChange(unchanged, { from: seriesStatus(current), to: action === 'approve' ? 'published' : 'draft', reviewNote: reason }, context);
}
