// A series' status and its occurrences' (API.md §14): a move of the series acts on every occurrence not edited on its
// own (a cancellation, on those not started yet); approve and reject likewise. Pure, over a planned group write.
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
 * occurrences not edited on their own whose status is the series' former one (out of published or cancelled, only
 * those not started at `context.nowMs`: a cancellation, a restore): each takes the new status, the cancellation
 * reason while cancelled, and the review note of a rejection; any other review note goes with the change.
 */
export function withStatusChange(planned: SeriesPlan, change: StatusChange, context: PlanContext): SeriesPlan {
  const document = withPublishing({ ...planned.document }, change, change.cancellationReason ?? (change.from === 'cancelled' ? planned.document.cancellation_reason : undefined));
  const events = new Map<string, EventRecord | null>(planned.plan.events.map((each) => [each.id, each.record]));
  for (const id of document.occurrences) {
    if (Object.hasOwn(document.detached, id)) continue;
    const planned = events.get(id);
    const event = context.view.event(id);
    const record = planned ?? (event === undefined ? undefined : toRecord(event));
    if (record === undefined || record === null) continue;
    const status = record.status ?? 'published';
    // Started occurrences are never changed (API.md §11), except out of a draft or pending state: those were never public.
    const started = Date.parse(record.start_time) <= context.nowMs;
    const moves = change.to !== change.from && status === change.from && (!started || isHiddenStatus(change.from));
    const reasonChanges = change.to === 'cancelled' && status === 'cancelled' && change.cancellationReason !== undefined;
    if (!moves && !reasonChanges && planned === undefined) continue;
    const next: EventRecord = moves || reasonChanges ? withPublishing({ ...record }, change, change.cancellationReason ?? record.cancellation_reason) : { ...record };
    if (!moves && !reasonChanges) delete next.review_note;
    events.set(id, next);
  }
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
