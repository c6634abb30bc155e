// The event schema as data: which fields exist, which are required on create, which are read-only, and how each is checked.
import { CATEGORIES, EVENT_STATUSES } from './event.js';
import { type Check, integer, oneOf, person, text } from '../lib/checks.js';
import { dateTime } from './time.js';

/** How a client may use a field in a request body. */
export type FieldAccess = 'writable' | 'read-only' | 'admin-only';

export interface FieldRule {
  access: FieldAccess;
  /** Required in a POST body. */
  required: boolean;
  /** Checks and normalises a value a client sent. */
  check?: Check<unknown>;
  /** The JSON Schema of the field, for the OpenAPI document. */
  schema: Record<string, unknown>;
}

/** A text of one line: no control character (C0, DEL, C1). */
export const LINE_PATTERN = '^[^\\u0000-\\u001f\\u007f-\\u009f]*$';
/**
 * A one-line text stored trimmed: no control character, and at least one character that trimming keeps (JavaScript's
 * `\s` is the set `String.prototype.trim` removes). Its maxLength counts the spaces around too, so the schema is the
 * stricter of the two: a text it accepts the service accepts.
 */
export const TRIMMED_LINE_PATTERN = '^[^\\u0000-\\u001f\\u007f-\\u009f]*[^\\s\\u0000-\\u001f\\u007f-\\u009f][^\\u0000-\\u001f\\u007f-\\u009f]*$';
/** A text of several lines: tab, newline and carriage return, and no other control character. */
export const LINES_PATTERN = '^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]*$';

/**
 * Control characters and the invisible format characters of the Basic Multilingual Plane (Unicode's Cf there), as a
 * pattern's character class without the u flag can list them: what the service refuses in an e-mail address (the few
 * format characters above it, such as language tags, are refused too but not listed).
 */
const NOT_SHOWN = '\\u0000-\\u001f\\u007f-\\u009f\\u00ad\\u0600-\\u0605\\u061c\\u06dd\\u070f\\u0890\\u0891\\u08e2\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\ufeff\\ufff9-\\ufffb';

/**
 * An e-mail address as the service takes it (lib/checks.ts `email`): one `@`, no spaces or control characters, a domain
 * with a dot, at most 254 characters, letters outside ASCII allowed, invisible format characters refused (NOT_SHOWN).
 * Not `format: email`: validators read that as ASCII-only addresses and would refuse answers the service gives
 * (`zoë@campus.edu`).
 */
export const EMAIL_SCHEMA = {
  type: 'string',
  maxLength: 254,
  pattern: `^[^\\s@${NOT_SHOWN}]+@[^\\s@.${NOT_SHOWN}]+(\\.[^\\s@.${NOT_SHOWN}]+)+$`,
  description: 'One @, a domain with a dot, no spaces, control or invisible format characters (such as a zero-width space).',
};
const timeSchema = { type: 'string', format: 'date-time', description: 'RFC 3339 with Z or an offset; stored and returned in UTC as YYYY-MM-DDTHH:MM:SS.sssZ, years 1970-9999 (after conversion to UTC), seconds 00-59 (no leap second). Any number of fractional digits is accepted; digits past the millisecond are dropped.' };

/** Every field of an event, in the order responses carry them. */
export const EVENT_FIELDS: Readonly<Record<string, FieldRule>> = Object.freeze({
  id: { access: 'read-only', required: false, schema: { type: 'string', pattern: '^evt_[0-9A-Za-z]{16,}$' } },
  title: { access: 'writable', required: true, check: text({ min: 1, max: 200, trim: true }), schema: { type: 'string', minLength: 1, maxLength: 200, pattern: TRIMMED_LINE_PATTERN, description: 'At most 200 characters once trimmed, not only spaces; stored trimmed; no control characters.' } },
  description: { access: 'writable', required: false, check: text({ min: 0, max: 5000, multiline: true }), schema: { type: 'string', maxLength: 5000, pattern: LINES_PATTERN, default: '', description: 'Tab, newline and carriage return allowed; no other control characters.' } },
  category: { access: 'writable', required: true, check: oneOf(CATEGORIES), schema: { type: 'string', enum: [...CATEGORIES] } },
  location: { access: 'writable', required: true, check: text({ min: 1, max: 200, trim: true }), schema: { type: 'string', minLength: 1, maxLength: 200, pattern: TRIMMED_LINE_PATTERN, description: 'At most 200 characters once trimmed, not only spaces; stored trimmed; no control characters.' } },
  start_time: { access: 'writable', required: true, check: dateTime, schema: timeSchema },
  end_time: { access: 'writable', required: true, check: dateTime, schema: { ...timeSchema, description: `Strictly after start_time. ${timeSchema.description}` } },
  capacity: { access: 'writable', required: true, check: integer(1, 100_000), schema: { type: 'integer', minimum: 1, maximum: 100_000 } },
  registered_count: { access: 'read-only', required: false, schema: { type: 'integer', minimum: 0 } },
  organizer: {
    access: 'admin-only',
    required: false,
    check: person,
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'email'],
      properties: { name: { type: 'string', minLength: 1, maxLength: 200, pattern: TRIMMED_LINE_PATTERN }, email: EMAIL_SCHEMA },
      description: 'Set by an admin key; otherwise the owner of the key that created the event.',
    },
  },
  created_at: { access: 'read-only', required: false, schema: { type: 'string', format: 'date-time' } },
  series_id: { access: 'read-only', required: false, schema: { type: 'string', pattern: '^ser_[0-9A-Za-z]{16,}$', description: 'Only on an occurrence of a recurring series: the series\' id. A one-off event has no such field.' } },
  status: {
    access: 'writable',
    required: false,
    check: oneOf(EVENT_STATUSES),
    schema: {
      type: 'string',
      enum: [...EVENT_STATUSES],
      description: 'Publishing: draft, pending (waiting for an admin\'s approval), published or cancelled. Present in responses only when not published. On create: draft or published (pending too under --approval required); under approval an organizer\'s published becomes pending. On update, a move: draft → published (pending under approval), draft → pending and cancelled → pending (under approval only), pending → draft, published → cancelled, cancelled → published (pending under approval); any other move is a 409 naming both statuses.',
    },
  },
  review_note: { access: 'read-only', required: false, schema: { type: 'string', minLength: 1, maxLength: 500, description: 'Only on a draft an admin rejected: the reason given, until the event\'s next change.' } },
  cancellation_reason: {
    access: 'writable',
    required: false,
    check: text({ min: 1, max: 500 }),
    schema: { type: 'string', minLength: 1, maxLength: 500, pattern: LINE_PATTERN, description: 'Only on a cancelled event given one: why it was called off. Sent with status cancelled, or on an event already cancelled; never on create. 1–500 characters, no control characters.' },
  },
});
