// The parameters of the OpenAPI document: the event id, the query of GET /events, and the request headers the API reads.
import { CATEGORIES } from '../events/event.js';

type Parameter = Record<string, unknown>;

/** `#/components/parameters/NAME`. */
export function parameterRef(name: string): Parameter {
  return { $ref: `#/components/parameters/${name}` };
}

/** The query parameters GET /events takes; any other is refused. */
export const LIST_QUERY_PARAMETERS = ['Category', 'StartDate', 'EndDate', 'Limit', 'Page'] as const;

const REFUSED = 'A bad value is a 400 bad_request naming the parameter.';

/** Every parameter of `components.parameters`. */
export function componentParameters(): Record<string, Parameter> {
  return {
    EventId: {
      name: 'id',
      in: 'path',
      required: true,
      description: 'The event id (evt_ then at least 16 characters of [0-9A-Za-z]). Any id no event has, well-formed or not, is a 404 naming it.',
      schema: { type: 'string' },
      example: 'evt_4q0KxV7mW2dJr9TzLb8sNc',
    },
    RegistrationId: {
      name: 'reg_id',
      in: 'path',
      required: true,
      description: 'The registration id (reg_ then at least 22 characters of [0-9A-Za-z]). An id the event has no registration for is a 404 naming it.',
      schema: { type: 'string' },
      example: 'reg_0R3kq9VwLm2XbT7sNc4dJh',
    },
    RegistrationStatus: query('status', { type: 'string', enum: ['confirmed', 'waitlisted'] }, `Only registrations with this status. ${REFUSED}`),
    Category: query('category', { type: 'string', enum: [...CATEGORIES] }, `Only events of this category. ${REFUSED}`),
    StartDate: query('start_date', { type: 'string', format: 'date' }, `A real date YYYY-MM-DD (1970–9999): only events whose start_time is at or after its 00:00:00Z. After end_date: 400. ${REFUSED}`),
    EndDate: query('end_date', { type: 'string', format: 'date' }, `A real date YYYY-MM-DD (1970–9999): only events whose end_time is at or before the next day's 00:00:00Z (an event ending at midnight ends on that day). ${REFUSED}`),
    Limit: query('limit', { type: 'integer', minimum: 1, maximum: 100, default: 50 }, `Items per page. ${REFUSED}`),
    Page: query('page', { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, default: 1 }, `The page to return, from 1; past the last page, events is empty. ${REFUSED}`),
    FeedKey: query('key', { type: 'string', pattern: '^cek_[A-Za-z0-9_-]+$' }, 'GET /events.ics only: a key of role feed, for calendar programs that cannot send headers (security scheme feedKey). Any other role\'s key here is a 401; with an Authorization header as well, a 400. On any other path, key is an unknown parameter.'),
    CalendarIfNoneMatch: {
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description: 'Answer 304 with no body when the calendar it would send still has one of these ETags (weak comparison), or any, with *.',
      schema: { type: 'string' },
    },
    IfMatch: {
      name: 'If-Match',
      in: 'header',
      required: false,
      description: 'Apply the change only if the event still has one of these strong ETags (or any, with *); else 412. An unknown id is still 404.',
      schema: { type: 'string' },
    },
    IfNoneMatch: {
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description: 'Answer 304 with no body when the event still has one of these ETags (weak comparison), or any, with *.',
      schema: { type: 'string' },
    },
    XRequestId: {
      name: 'X-Request-Id',
      in: 'header',
      required: false,
      description: 'Echoed in the response when it is 1–128 characters of [A-Za-z0-9._~:/+=-]; otherwise the service makes a new one.',
      schema: { type: 'string' },
    },
  };
}

function query(name: string, schema: Record<string, unknown>, description: string): Parameter {
  return { name, in: 'query', required: false, description, schema };
}
