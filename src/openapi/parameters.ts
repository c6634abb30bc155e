// The parameters of the OpenAPI document: the event id, the query of GET /events, and the request headers the API reads.
import { CATEGORIES } from '../events/event.js';
import { seriesParameters } from './series-spec.js';
import { publishingParameters } from './publishing-spec.js';

type Parameter = Record<string, unknown>;

/** `#/components/parameters/NAME`. */
export function parameterRef(name: string): Parameter {
  return { $ref: `#/components/parameters/${name}` };
}

/** The query parameters GET /events takes; any other is refused. */
export const LIST_QUERY_PARAMETERS = ['Category', 'StartDate', 'EndDate', 'Q', 'SeriesIdQuery', 'EventStatusQuery', 'Limit', 'Page'] as const;

/** The filters GET /events.ics shares with GET /events. */
export const FEED_FILTER_PARAMETERS = ['Category', 'StartDate', 'EndDate', 'Q', 'SeriesIdQuery'] as const;

const ONE_CATEGORY = `(${CATEGORIES.join('|')})`;

const REFUSED = 'A bad value, or one that is not valid percent-encoded UTF-8 (q=50%, q=%zz), is a 400 bad_request naming the parameter.';

/** Every parameter of `components.parameters`. */
export function componentParameters(): Record<string, Parameter> {
  return {
    ...seriesParameters(),
    ...publishingParameters(),
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
    Category: {
      ...query('category', { type: 'string', pattern: `^${ONE_CATEGORY}(,${ONE_CATEGORY})*$` }, `Only events of this category, or of any of several separated by commas (academic,social). An unknown or repeated name is a 400 naming it. ${REFUSED}`),
      example: 'academic,social',
    },
    StartDate: query('start_date', { type: 'string', format: 'date' }, `A real date YYYY-MM-DD (any year from 0000 to 9999): only events whose start_time is at or after the midnight starting that day in the campus time zone (--time-zone; with the default UTC, its 00:00:00Z). After end_date: 400. ${REFUSED}`),
    EndDate: query('end_date', { type: 'string', format: 'date' }, `A real date YYYY-MM-DD (any year from 0000 to 9999): only events whose end_time is at or before the midnight ending that day in the campus time zone (with the default UTC, the next day's 00:00:00Z; an event ending at that midnight ends on that day). A day with a daylight-saving change is as long as the zone makes it (23 or 25 hours). ${REFUSED}`),
    Q: {
      ...query(
        'q',
        { type: 'string', minLength: 1, maxLength: 200 },
        'Words to find: 1–200 characters. An event matches when every word is the start of a word of its title, description, location or organizer name, compared without regard to case or accents ' +
          '(Unicode NFKD without combining marks, then full case folding: é matches e, ß matches ss, İ matches i; ø matches o, ł matches l, æ matches ae, œ matches oe). Words are split on anything that is not a letter or digit; each CJK ideograph is a word of its own (京 finds 東京大学). ' +
          `Order and paging are as without q. A q with no word (--) is a 400 naming q. ${REFUSED}`,
      ),
      example: 'chem lab',
    },
    Limit: query('limit', { type: 'integer', minimum: 1, maximum: 100, default: 50 }, `Items per page. ${REFUSED}`),
    Page: query('page', { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, default: 1 }, `The page to return, from 1; past the last page, the list is empty. ${REFUSED}`),
    FeedKey: query('key', { type: 'string', pattern: '^cek_[A-Za-z0-9_-]+$' }, 'GET /events.ics only: a key of role feed, for calendar programs that cannot send headers (security scheme feedKey). Any other role\'s key here is a 401; with an Authorization header as well, a 400. On any other path, key is an unknown parameter.'),
    Since: { ...query('since', { type: 'integer', minimum: 0 }, `Required: 0 for a full copy of the live events, else the next_since of the last answer. ${REFUSED}`), required: true },
    Copy: query('copy', { type: 'string', pattern: '^[A-Za-z0-9_-]{1,200}$' }, 'On the later pages of a full copy: the copy token of the page before, unchanged. With it, the page is refused (410) only when a deletion made after the copy began was compacted away, or the copy began over 24 hours ago; a malformed or forged token is a 400. Ignored by a stream.'),
    ChangesLimit: query('limit', { type: 'integer', minimum: 1, maximum: 1000, default: 100 }, `Entries per page. ${REFUSED}`),
    LastEventId: {
      name: 'Last-Event-ID',
      in: 'header',
      required: false,
      description: 'With Accept: text/event-stream: the id of the last change received (an SSE client sends it when it reconnects; EventSource in a browser cannot send Authorization, so follow the stream with fetch); it wins over since. An empty one counts as none (since is used); not an integer ≥ 0: 400; older than what compaction kept or newer than the last write: 410.',
      schema: { type: 'integer', minimum: 0 },
    },
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        '1–255 printable ASCII characters (else 400), e.g. a UUID the client made, sent once (two Idempotency-Key lines: 400). Spaces at either end are not part of it (HTTP drops them): "a" and " a " are one key. A retry with the same key from the same API key within 24 hours gets the first answer again (same status and body, plus Idempotent-Replayed: true) and writes nothing. ' +
        'Only a 201 is remembered. The same key with different body bytes or on another path: 422 idempotency_key_reused; while the first request is still being written: 409. ' +
        'Each API key may hold at most ceil(RATE_LIMIT × 86400 / RATE_WINDOW) live keys (answers younger than 24 hours, and requests in flight); past that, a new key is refused with 429 and Retry-After (until its oldest answer is forgotten), while retries of keys already used still replay.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
    },
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
      description: 'Apply the change only if the event (series, registration, webhook) still has one of these strong ETags (or any, with *); else 412. An unknown id is still 404. Of two writes sent with the same ETag, however close together, at most one succeeds.',
      schema: { type: 'string' },
    },
    IfNoneMatch: {
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description: 'Answer 304 with no body when the event (series, registration, webhook) still has one of these ETags (weak comparison), or any, with *.',
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
