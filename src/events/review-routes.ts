// POST /events/{id}/approve and /reject (API.md §14): an admin decides on a pending event, as one write.
import { ApiError, type FieldProblem } from '../http/errors.js';
import type { RequestContext, Route } from '../http/route.js';
import type { EventStore } from '../store/event-store.js';
import { writeAnyEvent } from '../series/occurrence-writes.js';
import type { EventRecord } from './event.js';
import { etagOf } from './event-etag.js';
import { checkAccess } from './handlers.js';
import { text, Problem } from '../lib/checks.js';
import { notPending } from './publishing.js';

/** A reviewer's reason: 1–500 characters, no control characters (API.md §14). */
const reasonCheck = text({ min: 1, max: 500 });

/** The body of an approve (nothing, or `{}`) or a reject (`{reason}`): every problem named, a `validation_failed`. */
export function reviewBody(body: Record<string, unknown>, action: 'approve' | 'reject', thing: 'event' | 'series'): { reason?: string } {
  const problems: FieldProblem[] = [];
  let reason: string | undefined;
  for (const [field, value] of Object.entries(body)) {
    if (action === 'reject' && field === 'reason') {
      const checked = reasonCheck(value, 'reason');
      if (checked instanceof Problem) problems.push({ field: checked.field, message: checked.message });
      else reason = checked;
    } else {
      problems.push({ field, message: action === 'approve' ? `an approval takes no fields; got "${field}"` : `a rejection takes only reason; got "${field}"` });
    }
  }
  if (action === 'reject' && !Object.hasOwn(body, 'reason')) problems.push({ field: 'reason', message: 'reason is required: say what to fix (1–500 characters); the organizer sees it as review_note' });
  if (problems.length > 0) {
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''} in details)` : '';
    throw new ApiError('validation_failed', `The ${action === 'approve' ? 'approval' : 'rejection'} of the ${thing} is not valid: ${problems[0]!.message}${more}.`, { details: problems });
  }
  return reason === undefined ? {} : { reason };
}

/** The record after an approve (pending → published) or a reject (pending → draft, with the reason as review_note). */
export function reviewed(record: EventRecord, action: 'approve' | 'reject', reason: string | undefined): EventRecord {
  const next: EventRecord = { ...record, status: action === 'approve' ? 'published' : 'draft' };
  delete next.review_note;
  delete next.cancellation_reason;
  if (reason !== undefined) next.review_note = reason;
  return next;
}

/** The two review routes of events, keyed by method and pattern (admin only: the role table's `review`). */
export function reviewRoutes(deps: { store: EventStore }): { method: string; pattern: string; route: Route }[] {
  const route = (action: 'approve' | 'reject'): Route => ({
    name: action === 'approve' ? 'approveEvent' : 'rejectEvent',
    auth: true,
    action: 'review',
    body: action === 'approve' ? 'optional' : true,
    async handle(context: RequestContext) {
      const id = context.params['id']!;
      const stored = await writeAnyEvent(deps.store, id, (current) => {
        // An admin may update any event: checkAccess gives 404 and 412 here.
        const record = checkAccess(current, id, context.principal!, 'update', context);
        const { reason } = reviewBody(context.body!, action, 'event');
        const status = record.status ?? 'published';
        if (status !== 'pending') throw notPending(`event "${id}"`, status, action);
        return reviewed(record, action, reason);
      });
      return { status: 200, body: stored!.json, headers: { ETag: etagOf(stored!) } };
    },
  });
  return [
    { method: 'POST', pattern: '/events/:id/approve', route: route('approve') },
    { method: 'POST', pattern: '/events/:id/reject', route: route('reject') },
  ];
}
