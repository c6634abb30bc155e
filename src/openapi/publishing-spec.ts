// Publishing (API.md §14) in the OpenAPI document: the approve and reject operations of events and series, their
// bodies, and the `status` query parameter of the lists.
import { EVENT_STATUSES } from '../events/event.js';
import { LINE_PATTERN } from '../events/schema.js';
import type { OperationSpec } from './operation-spec.js';

type Schema = Record<string, unknown>;

const ONE_STATUS = `(${EVENT_STATUSES.join('|')})`;

/** What §14 adds to the description of a list, a read and a feed. */
export const VISIBILITY =
  'Drafts and pending events are seen only by their organizer and admins: to anyone else they do not exist (404), and they are in no list, count, search, calendar, change feed or webhook.';

/** The schemas of an approve and a reject body. */
export function publishingSchemas(): Record<string, Schema> {
  return {
    Approval: { type: 'object', description: 'An approval takes no fields: an empty body, or {}.', additionalProperties: false, properties: {} },
    Rejection: {
      type: 'object',
      description: 'Why it goes back to draft: the organizer sees it as review_note until the next change.',
      additionalProperties: false,
      required: ['reason'],
      properties: { reason: { type: 'string', minLength: 1, maxLength: 500, pattern: LINE_PATTERN, description: '1–500 characters, no control characters.' } },
    },
  };
}

/** The `status` query parameters of the lists and of the calendar feed. */
export function publishingParameters(): Record<string, Schema> {
  return {
    EventStatusQuery: {
      name: 'status',
      in: 'query',
      required: false,
      description:
        'Only events of this status, or of any of several separated by commas (draft,pending). Without it: published and cancelled events, never a draft or a pending one. ' +
        'draft and pending are the approval queue: an admin sees all of them, an organizer their own; a reader asking for them gets a 403. An unknown or repeated status is a 400 naming it.',
      schema: { type: 'string', pattern: `^${ONE_STATUS}(,${ONE_STATUS})*$` },
      example: 'pending',
    },
    FeedStatusQuery: {
      name: 'status',
      in: 'query',
      required: false,
      description: 'published or cancelled (or both, comma-separated; the default). Drafts and pending events are in no calendar: asking for draft or pending is a 403 for a reader or feed key (as on GET /events), else a 400 naming status.',
      schema: { type: 'string', pattern: '^(published|cancelled|published,cancelled|cancelled,published)$' },
    },
    SeriesStatusQuery: {
      name: 'status',
      in: 'query',
      required: false,
      description: 'Only series of this status, or of several separated by commas. Without it: published and cancelled series. draft and pending: an admin sees all, an organizer their own; a reader gets a 403.',
      schema: { type: 'string', pattern: `^${ONE_STATUS}(,${ONE_STATUS})*$` },
    },
  };
}

/** The order of a review's errors: an approval takes no field, a rejection its reason. */
function orderNote(action: 'approve' | 'reject'): string {
  const fields = action === 'approve' ? 'any field (400 validation_failed: an approval takes none)' : 'the reason (400 validation_failed)';
  return `When a request has several faults, the first in this order answers: a body that is not JSON or not an object (400) before the id is looked up; then unknown id (404), If-Match (412), ${fields}, the state (409: not pending).`;
}

/** The four review operations. */
export const PUBLISHING_OPERATIONS: Readonly<Record<string, OperationSpec>> = {
  'POST /events/{id}/approve': review('event', 'approve'),
  'POST /events/{id}/reject': review('event', 'reject'),
  'POST /series/{id}/approve': review('series', 'approve'),
  'POST /series/{id}/reject': review('series', 'reject'),
};

function review(thing: 'event' | 'series', action: 'approve' | 'reject'): OperationSpec {
  const series = thing === 'series';
  const Thing = series ? 'Series' : 'Event';
  const what = action === 'approve' ? 'pending → published: everyone sees it from now on (the change feed shows it as created, webhooks send event.created)' : 'pending → draft, with the reason as review_note until its next change';
  const occurrences = series ? ' The series and, in the same atomic write, every occurrence not edited on its own that is pending (started ones too: none was ever public).' : '';
  return {
    operationId: `${action}${Thing}`,
    summary: `${action === 'approve' ? 'Approve' : 'Reject'} a pending ${thing}`,
    description: `Admin keys only (anyone else: 403). ${what}.${occurrences} Anything but a pending ${thing} is a 409 naming its status. Honours If-Match. ${orderNote(action)}`,
    tag: series ? 'series' : 'events',
    auth: true,
    parameters: [series ? 'SeriesId' : 'EventId', 'IfMatch'],
    requestBody: action === 'approve'
      ? { schema: 'Approval', description: 'An empty body, or {}.', examples: { empty: { summary: 'No fields', value: {} } }, optional: true }
      : { schema: 'Rejection', description: 'Why.', examples: { reason: { summary: 'What to fix', value: { reason: 'Please add the room number and an end time before 22:00.' } } } },
    responses: { '200': { description: `The ${thing}, with its new ETag.`, schema: Thing, headers: ['ETag'] } },
    errors: [403, 404, 409, 412, 413, 415],
  };
}
