// What the route table cannot say about each operation: its name, prose, parameters, body and the responses it can give.
import { CHECK_IN_EXAMPLES, CREATE_EXAMPLES, REGISTRATION_EXAMPLES, UPDATE_EXAMPLES } from './examples.js';
import type { OperationSpec } from './operation-spec.js';
import { FEED_FILTER_PARAMETERS, LIST_QUERY_PARAMETERS } from './parameters.js';
import { SERIES_OPERATIONS } from './series-spec.js';
import { WEBHOOK_OPERATIONS } from './webhook-operations.js';
import { PUBLISHING_OPERATIONS, VISIBILITY } from './publishing-spec.js';

/** Errors any request can get before its route is known: a request-level fault, a slow client, huge headers, a bug, shutting down. */
export const REQUEST_ERRORS: readonly number[] = [400, 408, 431, 500, 503];

/**
 * Errors any request to a route can get: those of REQUEST_ERRORS, and 415 and 413 for a body, which every
 * route checks (a route that reads none still refuses one that is not JSON or is over 64 KiB).
 */
export const ALWAYS_ERRORS: readonly number[] = [...REQUEST_ERRORS, 413, 415];

/** Errors any request to an endpoint that needs a key can get. */
export const KEY_ERRORS: readonly number[] = [401, 403, 429];

/** Errors of any request that reads a JSON body. */
export const BODY_ERRORS: readonly number[] = [413, 415];

/** API.md §3's order of faults, with the step between the owner and the fields that the operation has. */
const faultOrder = (step: string): string => `When a request has several faults, the first in this order answers: unknown path, method, key, rate, role, media type, size, JSON, unknown id, owner, ${step}, fields, state.`;
const ORDER_NOTE = faultOrder('If-Match');
/** A create honours Idempotency-Key, not If-Match. */
const CREATE_ORDER_NOTE = faultOrder('Idempotency-Key reuse (422, 409)');

/** Every operation of the contract (API.md §5). */
export const OPERATIONS: Readonly<Record<string, OperationSpec>> = {
  ...SERIES_OPERATIONS,
  ...PUBLISHING_OPERATIONS,
  'GET /events': {
    operationId: 'listEvents',
    summary: 'List events',
    description: `Events ordered by start_time, then id (plain string comparison), stable across pages. total counts every match on all pages. Any other query parameter, a parameter given twice, a bad value or start_date after end_date is a 400 naming the parameter. Without status: published and cancelled events. ${VISIBILITY}`,
    tag: 'events',
    auth: true,
    parameters: [...LIST_QUERY_PARAMETERS, 'IfNoneMatch'],
    responses: {
      '200': { description: 'One page of the matching events, with the ETag of its bytes.', schema: 'EventList', headers: ['Link', 'ETag'] },
      '304': { description: 'Not modified: If-None-Match matched the ETag of this page as it is now. No body.', headers: ['ETag'] },
    },
    errors: [],
  },
  'POST /events': {
    operationId: 'createEvent',
    summary: 'Create an event',
    description: `Any organizer or admin key; a reader gets 403. The organizer is the key's owner unless an admin sets it. status: draft or published (default; pending too under --approval required); under approval an organizer's event is pending (the answer says so) until an admin approves it, an admin's published at once. cancelled, or cancellation_reason, is a 400. ${CREATE_ORDER_NOTE}`,
    tag: 'events',
    auth: true,
    parameters: ['IdempotencyKey'],
    requestBody: { schema: 'EventCreate', description: 'The new event.', examples: CREATE_EXAMPLES },
    responses: { '201': { description: 'Created: the event, every field but organizer. A retry with the same Idempotency-Key gets this answer again, with Idempotent-Replayed: true.', schema: 'EventCreated', headers: ['Location', 'ETag', 'Idempotent-Replayed'] } },
    errors: [403, 409, 422, ...BODY_ERRORS],
  },
  'GET /events/{id}': {
    operationId: 'getEvent',
    summary: 'Read one event',
    description: `The event, with its ETag; If-None-Match with a current ETag answers 304. ${VISIBILITY}`,
    tag: 'events',
    auth: true,
    parameters: ['EventId', 'IfNoneMatch'],
    responses: {
      '200': { description: 'The event.', schema: 'Event', headers: ['ETag'] },
      '304': { description: 'Not modified: If-None-Match matched the current ETag. No body.', headers: ['ETag'] },
    },
    errors: [404],
  },
  'PUT /events/{id}': {
    operationId: 'updateEvent',
    summary: 'Update an event (partial)',
    description: `Fields absent are unchanged; the result is validated as a whole. Admins may update any event, organizers only their own (else 403). capacity below registered_count is a 409; raising capacity confirms waitlisted registrations, oldest first, up to the new capacity, in the same write. status moves: draft → published (pending for an organizer under --approval required), draft → pending and cancelled → pending (under approval), pending → draft (withdrawn), published → cancelled (with an optional cancellation_reason; the event stays in lists and feeds), cancelled → published (pending for an organizer under approval); any other move is a 409 naming both statuses. Editing a pending event keeps it pending; editing a published one under approval does not send it back. Any change drops a review_note. ${ORDER_NOTE}`,
    tag: 'events',
    auth: true,
    parameters: ['EventId', 'IfMatch'],
    requestBody: { schema: 'EventUpdate', description: 'The fields to change.', examples: UPDATE_EXAMPLES },
    responses: { '200': { description: 'The updated event, with its new ETag.', schema: 'Event', headers: ['ETag'] } },
    errors: [403, 404, 409, 412, ...BODY_ERRORS],
  },
  'DELETE /events/{id}': {
    operationId: 'deleteEvent',
    summary: 'Delete an event',
    description: `Admins may delete any event, organizers only their own (else 403). Its registrations are deleted in the same write. An occurrence of a series is deleted alone, and its start is added to the series' exdates, so a later schedule change does not bring it back. ${ORDER_NOTE}`,
    tag: 'events',
    auth: true,
    parameters: ['EventId', 'IfMatch'],
    responses: { '204': { description: 'Deleted. No body.' } },
    errors: [403, 404, 412],
  },
  'GET /events.ics': {
    operationId: 'getCalendarFeed',
    summary: 'Calendar feed (iCalendar)',
    description:
      'The events GET /events would list for the same category, start_date, end_date, q, series_id and status, as an RFC 5545 calendar that Google Calendar, Outlook and Apple Calendar can subscribe to by URL: ' +
      'published and cancelled events, each VEVENT with STATUS:CONFIRMED or STATUS:CANCELLED (a cancelled one\'s DESCRIPTION starts with "Cancelled" and its reason), so subscribed calendars show a cancellation rather than losing the event; never a draft or a pending one. ' +
      'The first 1000 matching events in list order, no paging (limit or page: 400). Without start_date the feed starts at the midnight 31 days before today in the campus time zone (--time-zone, default UTC), so past events fall away. ' +
      'Lines end in CRLF and are folded at 75 octets, never inside a UTF-8 character; times are UTC (20260901T170000Z). One VEVENT per event with UID {id}@campus-events, DTSTAMP, DTSTART, DTEND, SUMMARY, DESCRIPTION, LOCATION, CATEGORIES, ORGANIZER, CREATED and LAST-MODIFIED; ' +
      'DTSTAMP and LAST-MODIFIED are the time of the event\'s last change, registrations included (those that change registered_count; a waitlisted one or a check-in does not), so the same events in the same state give the same bytes and the same ETag whenever asked. ' +
      'Authentication: Authorization: Bearer with a key of any role, or ?key= with a key of role feed only (calendar programs cannot send headers). Another role\'s key in the URL is a 401, so a powerful key is never left in a calendar\'s settings; a key both in the header and the URL is a 400. Besides GET /me, a feed key may do nothing else (403 elsewhere). Keys are redacted from every log line.',
    tag: 'events',
    auth: true,
    security: ['apiKey', 'feedKey'],
    parameters: [...FEED_FILTER_PARAMETERS, 'FeedStatusQuery', 'FeedKey', 'CalendarIfNoneMatch'],
    responses: {
      '200': {
        description: 'The calendar.',
        headers: ['ETag', 'Cache-Control'],
        text: { mediaType: 'text/calendar', description: 'An RFC 5545 VCALENDAR (VERSION:2.0, PRODID:-//campus-events//EN, CALSCALE:GREGORIAN, METHOD:PUBLISH, X-WR-CALNAME, REFRESH-INTERVAL;VALUE=DURATION:PT1H, X-PUBLISHED-TTL:PT1H), Content-Type: text/calendar; charset=utf-8.' },
      },
      '304': { description: 'Not modified: If-None-Match matched the ETag of the calendar it would send. No body.', headers: ['ETag', 'Cache-Control'] },
    },
    errors: [403],
  },
  'POST /events/{id}/registrations': {
    operationId: 'createRegistration',
    summary: 'Register an attendee',
    description: `Any key but a feed key. confirmed while registered_count < capacity (registered_count grows by one), else waitlisted, first come first served. 409 for the same e-mail twice on the event (ignoring case; a cancelled one may register again), an event that has ended, a full waitlist (max(capacity, 1000)), or an event that is not published (a draft, pending or cancelled one: the message names its status). ${CREATE_ORDER_NOTE}`,
    tag: 'registrations',
    auth: true,
    parameters: ['EventId', 'IdempotencyKey'],
    requestBody: { schema: 'RegistrationCreate', description: 'Who registers.', examples: REGISTRATION_EXAMPLES },
    responses: { '201': { description: 'Registered: confirmed or waitlisted. A retry with the same Idempotency-Key gets this answer again, with Idempotent-Replayed: true.', schema: 'Registration', headers: ['Location', 'ETag', 'Idempotent-Replayed'] } },
    errors: [403, 404, 409, 422, ...BODY_ERRORS],
  },
  'GET /events/{id}/registrations': {
    operationId: 'listRegistrations',
    summary: "List an event's attendees",
    description: "The event's organizer or an admin (attendees' e-mails are personal data; anyone else gets 403). Ordered by creation, with the paging of GET /events and an optional status filter. With Accept: text/csv the same page comes as RFC 4180 CSV (header row id,name,email,status,created_at,checked_in_at; a cell starting with =, +, -, @, tab or CR is prefixed with ').",
    tag: 'registrations',
    auth: true,
    parameters: ['EventId', 'RegistrationStatus', 'Limit', 'Page'],
    responses: { '200': { description: 'One page of registrations.', schema: 'RegistrationList', headers: ['Link'], csv: true } },
    errors: [403, 404],
  },
  'GET /events/{id}/registrations/{reg_id}': {
    operationId: 'getRegistration',
    summary: 'Read one registration',
    description: 'Any key but a feed key: knowing the registration id is what allows reading it, so an attendee can see whether they are still waitlisted. An unknown event is a 404 before an unknown registration, each naming its id. With its ETag, which changes when it is confirmed or checked in; If-None-Match with a current one answers 304.',
    tag: 'registrations',
    auth: true,
    parameters: ['EventId', 'RegistrationId', 'IfNoneMatch'],
    responses: {
      '200': { description: 'The registration.', schema: 'Registration', headers: ['ETag'] },
      '304': { description: 'Not modified: If-None-Match matched the current ETag. No body.', headers: ['ETag'] },
    },
    errors: [403, 404],
  },
  'DELETE /events/{id}/registrations/{reg_id}': {
    operationId: 'cancelRegistration',
    summary: 'Cancel a registration',
    description: 'Any key but a feed key. A confirmed registration frees its seat, and the oldest waitlisted one is confirmed in the same write. If-Match with the ETag of a read: a 412 when it was confirmed or checked in since.',
    tag: 'registrations',
    auth: true,
    parameters: ['EventId', 'RegistrationId', 'IfMatch'],
    responses: { '204': { description: 'Cancelled. No body.' } },
    errors: [403, 404, 412],
  },
  'POST /events/{id}/registrations/{reg_id}/check-in': {
    operationId: 'checkInRegistration',
    summary: 'Check an attendee in',
    description: "The event's organizer or an admin. Sets checked_in_at to now; a second check-in answers 200 with the first time kept. A waitlisted registration is a 409.",
    tag: 'registrations',
    auth: true,
    parameters: ['EventId', 'RegistrationId', 'IfMatch'],
    requestBody: { schema: 'CheckIn', description: 'An empty body, or {}.', examples: CHECK_IN_EXAMPLES, optional: true },
    responses: { '200': { description: 'The registration, checked in, with its ETag.', schema: 'Registration', headers: ['ETag'] } },
    errors: [403, 404, 409, 412, ...BODY_ERRORS],
  },
  'GET /changes': {
    operationId: 'listChanges',
    summary: 'Change feed',
    description:
      'Any key but a feed key. For each event whose last change (its seq; a registration that changes registered_count is a change) is after since: one entry with its state now, in seq order. ' +
      'Only published and cancelled events are here, for every key: an event becoming public (published after being a draft or pending) appears as its creation, and one made a draft or pending again as a deletion. ' +
      'since=0 gives every live event (a full copy, no deletions); then ask again with since=next_since while more is true, and from then on to stay in sync. ' +
      'Each page of a full copy with more true carries a copy token: send it back as copy with since=next_since for the next page, until more is false, then go on with plain since=next_since (the newest durable write). ' +
      'A copy is refused (410) only when a deletion made after it began was compacted away (or it began over 24 hours ago); compaction of older deletions never stops it. ' +
      'A deletion is an entry with deleted true and event null; compaction forgets deletions, so since older than the newest deletion it dropped (0 < since < it), or newer than the last write (a log restored from a backup), is a 410: start again from since=0. ' +
      'With Accept: text/event-stream the same URL streams Server-Sent Events: the entries after since (or after a Last-Event-ID header, which wins), then each new change once it is durable (never before its fsync), as id: SEQ, event: change, data: {entry}; a comment line every 15 s. ' +
      'A stream counts as one request against the rate limit; at most 8 open streams per key and 1000 in all (then 429). A revoked key\'s streams close within 2 s; at shutdown every stream ends cleanly.',
    tag: 'events',
    auth: true,
    parameters: ['Since', 'ChangesLimit', 'Copy', 'LastEventId'],
    responses: {
      '200': {
        description: 'A page of changes (with Last-Seq, where the feed ends now), or (Accept: text/event-stream) a stream of them.',
        schema: 'ChangePage',
        headers: ['Last-Seq', 'Cache-Control', 'X-Accel-Buffering'],
        alternative: { mediaType: 'text/event-stream', description: 'Server-Sent Events: per change, id: SEQ, event: change, data: one ChangeEntry as JSON, then a blank line; a comment line (: keep-alive) every 15 s.' },
      },
    },
    errors: [403, 410],
  },
  'GET /me': {
    operationId: 'getMe',
    summary: 'Who is calling',
    description: 'Any key, a feed key included: the key id, its owner and its role, so a client can show who is signed in and what they may do.',
    tag: 'service',
    auth: true,
    responses: { '200': { description: 'The calling key.', schema: 'Me' } },
    errors: [],
    everyRole: true,
  },
  'GET /health': {
    operationId: 'getHealth',
    summary: 'Health check',
    description: 'Needs no key. 200 while the store is writable; 503 unavailable once a write has failed (reads still work) or while shutting down.',
    tag: 'service',
    auth: false,
    responses: { '200': { description: 'The service is healthy.', schema: 'Health' } },
    errors: [],
  },
  'GET /openapi.json': {
    operationId: 'getOpenApiDocument',
    summary: 'This OpenAPI document',
    description: 'Needs no key. The OpenAPI 3.1 document of the whole API.',
    tag: 'service',
    auth: false,
    responses: { '200': { description: 'The document.', schema: 'OpenApiDocument' } },
    errors: [],
  },
  ...WEBHOOK_OPERATIONS,
};

/**
 * The spec of a route the table does not describe yet, so the document still lists every route.
 * Its operationId is derived from method and path: `POST /events/{id}/registrations` → `postEventsByIdRegistrations`.
 */
export function undescribedOperation(method: string, path: string): OperationSpec {
  return {
    operationId: method.toLowerCase() + pathWords(path),
    summary: `${method} ${path}`,
    description: 'Not yet described in this document.',
    tag: 'events',
    auth: true,
    responses: { default: { description: 'The answer of this route.' } },
    errors: [],
  };
}

function pascalCase(text: string): string {
  return text.split(/[^A-Za-z0-9]+/).filter((word) => word !== '').map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('');
}

/** `/events/{id}` → `EventsById`: the path in an operationId. */
export function pathWords(path: string): string {
  return path.split('/').filter((segment) => segment !== '').map((segment) => {
    const parameter = /^\{(.+)\}$/.exec(segment);
    return (parameter === null ? '' : 'By') + pascalCase(parameter === null ? segment : parameter[1]!);
  }).join('');
}
