// The recurring series of API.md §11 in the OpenAPI document: its operations, schemas and parameters.
import { EVENT_FIELDS } from '../events/schema.js';
import type { Example } from './examples.js';
import type { OperationSpec } from './operation-spec.js';

type Schema = Record<string, unknown>;

const SERIES_ID = '^ser_[0-9A-Za-z]{16,}$';
const RULES =
  'Expansion follows RFC 5545 in time_zone: the first occurrence is exactly the start_time and end_time sent; every other starts at the first\'s local wall-clock time and lasts as long in local terms (where the first\'s local length is not positive, as it ends in the second pass of a repeated hour: as long in elapsed time); dates that do not exist (BYMONTHDAY=31 in April) and local times in a spring-forward gap are skipped and not counted; an ambiguous local time is its first instant. A value listed twice in BYDAY or BYMONTHDAY counts once. ' +
  'At most 500 occurrences once exdates are left out, the last within 1096 days of the first, none ending after 9999-12-31T23:59:59.999Z.';

/** Example bodies of POST /series (each valid: a test runs them through the validators). */
export const SERIES_EXAMPLES: Readonly<Record<string, Example>> = {
  term: {
    summary: 'A lecture every Tuesday and Thursday of a term, 10:00–11:30 Berlin time',
    value: {
      title: 'Distributed Systems (lecture)',
      category: 'academic',
      location: 'Hall A',
      start_time: '2027-10-19T10:00:00+02:00',
      end_time: '2027-10-19T11:30:00+02:00',
      capacity: 120,
      time_zone: 'Europe/Berlin',
      recurrence: 'FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20280212',
    },
  },
  club: {
    summary: 'A club on the first Monday of each month, ten times',
    value: { title: 'Chess club', category: 'social', location: 'Room 12', start_time: '2027-11-01T18:00:00Z', end_time: '2027-11-01T20:00:00Z', capacity: 30, recurrence: 'FREQ=MONTHLY;BYDAY=1MO;COUNT=10' },
  },
};

const SHARED = ['title', 'description', 'category', 'location', 'capacity', 'organizer'] as const;
const SCHEDULE: Record<string, Schema> = {
  time_zone: { type: 'string', minLength: 1, maxLength: 64, description: 'An IANA zone name (Europe/Berlin); default the campus zone (--time-zone).' },
  recurrence: {
    type: 'string',
    minLength: 1,
    maxLength: 1000,
    description: 'An RFC 5545 RRULE value without "RRULE:": FREQ (DAILY, WEEKLY, MONTHLY), INTERVAL (1–99), BYDAY (MO…SU; with MONTHLY an ordinal too: 1MO, -1FR), BYMONTHDAY (MONTHLY: 1–31, -31…-1), WKST, and exactly one of COUNT (1–500) or UNTIL (20270115T000000Z, or a date 20270115: through that local day). start_time must be its first occurrence.',
    examples: ['FREQ=WEEKLY;BYDAY=TU,TH;COUNT=28'],
  },
  exdates: {
    type: 'array',
    items: { type: 'string', format: 'date-time' },
    description:
      'Occurrence starts left out, each equal to a start the rule makes. They follow the first start when a change moves it; one the rule no longer makes is kept (not applied), so a later rule that makes it again does not bring the occurrence back. A body sends at most 500, or as many as the series holds: occurrences deleted one by one (DELETE /events/{id}) may take it past 500.',
  },
};

function eventField(field: string): Schema {
  return { ...EVENT_FIELDS[field]!.schema };
}

function bodySchema(kind: 'create' | 'update'): Schema {
  const properties: Schema = {};
  for (const field of [...SHARED, 'start_time', 'end_time']) properties[field] = eventField(field);
  Object.assign(properties, SCHEDULE);
  properties['status'] = { ...eventField('status'), ...(kind === 'create' ? { enum: ['draft', 'pending', 'published'] } : {}), description: kind === 'create' ? 'draft or published (default; pending too under --approval required): the series and every occurrence get it; under approval an organizer\'s series is pending until an admin approves it.' : 'A move, as for an event (updateEvent), made by the series and every occurrence not edited on its own whose status is the series\'. A cancellation takes every occurrence not started yet, those edited alone too (but for one cancelled alone), and a restore brings back what it took. Any other move is a 409 naming both statuses.' };
  if (kind === 'update') {
    properties['cancellation_reason'] = { ...eventField('cancellation_reason'), description: 'Why the series was called off: sent with status cancelled, or on a series already cancelled (to change it); it goes to every occurrence the cancellation moves, and to new ones made while cancelled. 1–500 characters, no control characters.' };
    properties['review_note'] = { ...eventField('review_note'), description: 'Read-only: may be sent only with its stored value.' };
    properties['id'] = { type: 'string', pattern: SERIES_ID, description: 'Read-only: may be sent only with its stored value.' };
    properties['occurrence_count'] = { type: 'integer', minimum: 0, description: 'Read-only: may be sent only with its stored value.' };
    properties['created_at'] = { type: 'string', format: 'date-time', description: 'Read-only: may be sent only with its stored value.' };
  }
  const schema: Schema = { type: 'object', additionalProperties: false, properties };
  if (kind === 'create') {
    properties['exdates'] = { ...SCHEDULE['exdates'], maxItems: 500 };
    schema['required'] = ['title', 'category', 'location', 'start_time', 'end_time', 'capacity', 'recurrence'];
    schema['description'] = `A new series: the event fields (start_time and end_time are the first occurrence's) and its schedule. ${RULES}`;
  } else {
    schema['description'] = 'A partial update, validated as a whole. Shared fields change every occurrence that has not started and was not edited alone; a new schedule is expanded again, keeping the id and registrations of occurrences whose start stays; they take its end (one edited alone too, unless its own times were edited).';
  }
  return schema;
}

/** The series schemas of components.schemas. */
export function seriesSchemas(): Record<string, Schema> {
  const properties: Schema = { id: { type: 'string', pattern: SERIES_ID, readOnly: true } };
  for (const field of [...SHARED, 'start_time', 'end_time']) properties[field] = eventField(field);
  Object.assign(properties, SCHEDULE);
  properties['occurrence_count'] = { type: 'integer', minimum: 0, readOnly: true, description: 'Its occurrences: all of them for its organizer and admins; for anyone else those they may see (a draft or pending occurrence, one edited on its own, is in no count of theirs).' };
  properties['created_at'] = { type: 'string', format: 'date-time', readOnly: true };
  const required = Object.keys(properties);
  for (const field of ['status', 'review_note', 'cancellation_reason']) properties[field] = field === 'review_note' ? { ...eventField(field), readOnly: true } : eventField(field);
  return {
    SeriesCreate: bodySchema('create'),
    SeriesUpdate: bodySchema('update'),
    Series: { type: 'object', description: `A recurring series; its occurrences are events (GET /events?series_id=). status only when not published, review_note and cancellation_reason only when given. ${RULES}`, additionalProperties: false, required, properties },
    SeriesList: {
      type: 'object',
      description: 'One page of series, ordered by created_at then id.',
      additionalProperties: false,
      required: ['series', 'total', 'page'],
      properties: {
        series: { type: 'array', items: { $ref: '#/components/schemas/Series' }, description: 'Empty past the last page.' },
        total: { type: 'integer', minimum: 0 },
        page: { type: 'integer', minimum: 1 },
      },
    },
  };
}

/** The series parameters of components.parameters. */
export function seriesParameters(): Record<string, Schema> {
  return {
    SeriesId: { name: 'id', in: 'path', required: true, description: 'The series id (ser_ then at least 16 characters of [0-9A-Za-z]). An id no series has is a 404 naming it.', schema: { type: 'string' }, example: 'ser_4q0KxV7mW2dJr9TzLb8sNc' },
    SeriesIdQuery: { name: 'series_id', in: 'query', required: false, description: 'Only the occurrences of this series (ser_…), in the same order. A malformed id is a 400; an unknown one matches nothing.', schema: { type: 'string', pattern: SERIES_ID } },
  };
}

const ORDER = 'When a request has several faults, the first in this order answers: a body that is not JSON or not an object (400) before the id is looked up; then unknown id (404), not the owner (403), If-Match (412), fields (400 validation_failed), state (409).';

/** The /series operations. */
export const SERIES_OPERATIONS: Readonly<Record<string, OperationSpec>> = {
  'GET /series': {
    operationId: 'listSeries',
    summary: 'List series',
    description: 'Series ordered by created_at then id, with limit and page as GET /events. Occurrences: GET /events?series_id=. Without status: published and cancelled series; a draft or pending one is seen only by its organizer and admins.',
    tag: 'series',
    auth: true,
    parameters: ['SeriesStatusQuery', 'Limit', 'Page'],
    responses: { '200': { description: 'One page of series.', schema: 'SeriesList', headers: ['Link'] } },
    errors: [],
  },
  'POST /series': {
    operationId: 'createSeries',
    summary: 'Create a recurring series and all its occurrences',
    description: `Organizer or admin keys. The series and every occurrence (each an event with its own id, registered_count 0 and series_id) are written in one atomic write. An Idempotency-Key makes a retry after a time-out safe, as for POST /events: the same key from the same API key within 24 hours gets the first answer again, with no second series; with another body or on another path, 422; while the first is still being written, 409. ${RULES}`,
    tag: 'series',
    auth: true,
    parameters: ['IdempotencyKey'],
    requestBody: { schema: 'SeriesCreate', description: 'The new series.', examples: SERIES_EXAMPLES },
    responses: { '201': { description: 'Created: the series. A retry with the same Idempotency-Key gets this answer again, with Idempotent-Replayed: true.', schema: 'Series', headers: ['Location', 'ETag', 'Idempotent-Replayed'] } },
    errors: [403, 409, 413, 415, 422],
  },
  'GET /series/{id}': {
    operationId: 'getSeries',
    summary: 'Read one series',
    description: 'The series, with its ETag; If-None-Match with a current ETag answers 304. A draft or pending series is a 404 to anyone but its organizer and admins.',
    tag: 'series',
    auth: true,
    parameters: ['SeriesId', 'IfNoneMatch'],
    responses: {
      '200': { description: 'The series.', schema: 'Series', headers: ['ETag'] },
      '304': { description: 'Not modified. No body.', headers: ['ETag'] },
    },
    errors: [404],
  },
  'PUT /series/{id}': {
    operationId: 'updateSeries',
    summary: 'Change a series and its future occurrences',
    description: `Its organizer or an admin; one atomic write. Occurrences that have started are never changed. A capacity below an occurrence's registered_count, or a schedule that would delete an occurrence holding registrations, is a 409 naming it. ${ORDER}`,
    tag: 'series',
    auth: true,
    parameters: ['SeriesId', 'IfMatch'],
    requestBody: { schema: 'SeriesUpdate', description: 'The fields to change.', examples: { room: { summary: 'Move every future lecture to another room', value: { location: 'Hall B' } } } },
    responses: { '200': { description: 'The series, with its new ETag.', schema: 'Series', headers: ['ETag'] } },
    errors: [403, 404, 409, 412, 413, 415],
  },
  'DELETE /series/{id}': {
    operationId: 'deleteSeries',
    summary: 'Delete a series, every occurrence and their registrations',
    description: `Its organizer or an admin; one atomic write. ${ORDER}`,
    tag: 'series',
    auth: true,
    parameters: ['SeriesId', 'IfMatch'],
    responses: { '204': { description: 'Deleted. No body.' } },
    errors: [403, 404, 412],
  },
};
