// The component schemas of the OpenAPI document, generated from EVENT_FIELDS and ERROR_CATALOG so they cannot drift from the validators.
import { EMAIL_SCHEMA, EVENT_FIELDS, TRIMMED_LINE_PATTERN, type FieldRule } from '../events/schema.js';
import { seriesSchemas } from './series-spec.js';
import { ERROR_CATALOG } from '../http/errors.js';
import { webhookSchemas } from './webhook-operations.js';
import { publishingSchemas } from './publishing-spec.js';

type Schema = Record<string, unknown>;

/** `#/components/schemas/NAME`. */
export function schemaRef(name: string): Schema {
  return { $ref: `#/components/schemas/${name}` };
}

/** Every schema of `components.schemas`. */
export function componentSchemas(): Record<string, Schema> {
  return {
    ...seriesSchemas(),
    EventCreate: requestSchema('create'),
    EventUpdate: requestSchema('update'),
    Event: responseSchema(
      'An event as a list item, a single read and an update response carry it: every field but created_at.',
      (field) => field !== 'created_at',
    ),
    EventCreated: responseSchema(
      'The event as the create response carries it: every field but organizer.',
      (field) => field !== 'organizer',
    ),
    EventList: pageSchema('events', 'Event', 'One page of events, ordered by start_time then id.'),
    ...webhookSchemas(),
    ...publishingSchemas(),
    ChangeEntry: {
      type: 'object',
      description: 'The latest change of one event: its state now, or a deletion.',
      additionalProperties: false,
      required: ['seq', 'id', 'deleted', 'event'],
      properties: {
        seq: { type: 'integer', minimum: 1, description: "The sequence number of the event's last change." },
        id: { type: 'string', pattern: '^evt_[0-9A-Za-z]{16,}$' },
        deleted: { type: 'boolean' },
        event: { oneOf: [schemaRef('Event'), { type: 'null' }], description: 'The event as a single read gives it; null once deleted.' },
      },
    },
    ChangePage: {
      type: 'object',
      description: 'A page of the change feed, in seq order.',
      additionalProperties: false,
      required: ['changes', 'next_since', 'more'],
      properties: {
        changes: { type: 'array', items: schemaRef('ChangeEntry') },
        next_since: { type: 'integer', minimum: 0, description: "The since of the next request: while more is true, the last entry's seq; when more is false, the seq of the newest durable write (at least the last entry's, or since), so going on from it never meets a 410 for a deletion the client could not have seen." },
        more: { type: 'boolean', description: 'True when more entries follow: ask again at once with since=next_since (and copy, when the page has one).' },
        copy: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,200}$', description: 'Only on a page of a full copy (since=0, then the pages that follow it) with more true: an opaque token to send back unchanged as copy with the next page, so compaction during the copy cannot stop it.' },
      },
    },
    Error: errorSchema(),
    FieldProblem: {
      type: 'object',
      description: 'One problem with one field of a request body.',
      additionalProperties: false,
      required: ['field', 'message'],
      properties: {
        field: { type: 'string', description: 'The field at fault.' },
        message: { type: 'string', description: 'What is wrong with it, quoting the value.' },
      },
    },
    Health: {
      type: 'object',
      additionalProperties: false,
      required: ['status'],
      properties: { status: { type: 'string', const: 'ok' } },
    },
    RegistrationCreate: {
      type: 'object',
      description: 'Who registers. Unknown fields fail validation.',
      additionalProperties: false,
      required: ['name', 'email'],
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 200, pattern: TRIMMED_LINE_PATTERN, description: 'At most 200 characters once trimmed, not only spaces; stored trimmed; no control characters.' },
        email: { ...EMAIL_SCHEMA, description: `${EMAIL_SCHEMA.description} One registration per e-mail per event, compared without regard to case.` },
      },
    },
    Registration: {
      type: 'object',
      description: 'A registration for an event.',
      additionalProperties: false,
      required: ['id', 'event_id', 'name', 'email', 'status', 'created_at', 'checked_in_at'],
      properties: {
        id: { type: 'string', pattern: '^reg_[0-9A-Za-z]{22,}$', description: 'reg_ + 22 characters carrying 128 random bits: knowing it allows reading and cancelling.' },
        event_id: { type: 'string', pattern: '^evt_[0-9A-Za-z]{16,}$' },
        name: { type: 'string' },
        email: EMAIL_SCHEMA,
        status: { type: 'string', enum: ['confirmed', 'waitlisted'] },
        created_at: { type: 'string', format: 'date-time' },
        checked_in_at: { type: ['string', 'null'], format: 'date-time', description: 'null until check-in.' },
      },
    },
    RegistrationList: pageSchema('registrations', 'Registration', 'One page of registrations, in creation order.'),
    CheckIn: { type: 'object', description: 'A check-in takes no fields.', additionalProperties: false, properties: {} },
    Me: {
      type: 'object',
      description: 'The key that made the request.',
      additionalProperties: false,
      required: ['key_id', 'name', 'email', 'role'],
      properties: {
        key_id: { type: 'string' },
        name: { type: 'string' },
        email: EMAIL_SCHEMA,
        role: { type: 'string', enum: ['admin', 'organizer', 'reader', 'feed'] },
      },
    },
    OpenApiDocument: { type: 'object', description: 'This OpenAPI 3.1 document.', required: ['openapi', 'info', 'paths'] },
  };
}

/**
 * A request body schema: the fields a client may send, unknown fields refused. On create the fields with
 * `required: true` are required and `id` and `created_at` are refused; on update nothing is required (a partial
 * update). Read-only fields are not marked `readOnly` here: the API accepts them sent back with their stored
 * value (API.md §4), and validators refuse `readOnly` properties in requests. No `default` either: code
 * generators make a property with a default required in request types.
 */
function requestSchema(kind: 'create' | 'update'): Schema {
  const properties: Record<string, Schema> = {};
  for (const [field, rule] of Object.entries(EVENT_FIELDS)) {
    if (kind === 'create' && rule.access === 'read-only' && field !== 'registered_count') continue;
    // A new event is never cancelled (API.md §14), so it carries no reason.
    if (kind === 'create' && field === 'cancellation_reason') continue;
    properties[field] = requestProperty(field, rule, kind);
  }
  const schema: Schema = {
    type: 'object',
    additionalProperties: false,
    properties,
  };
  if (kind === 'create') {
    schema['description'] = 'A new event. Unknown fields, wrong types (a number as a string, null) and id or created_at fail validation, every problem listed in details.';
    schema['required'] = Object.entries(EVENT_FIELDS).filter(([, rule]) => rule.required).map(([field]) => field);
  } else {
    schema['description'] = 'A partial update: absent fields are unchanged, and the result is validated as a whole (end_time after start_time). An empty object is a valid no-op. An event as read may be sent back whole: its read-only fields pass when they carry their stored values.';
  }
  return schema;
}

/** One field of a request body, with what its access rule means for this kind of request. */
function requestProperty(field: string, rule: FieldRule, kind: 'create' | 'update'): Schema {
  const { default: byDefault, ...property }: Schema = { ...rule.schema };
  if (byDefault !== undefined) property['description'] = joinSentences(rule.schema['description'], `Default ${JSON.stringify(byDefault)} when absent on create.`);
  if (rule.access === 'read-only') {
    if (kind === 'create' && field === 'registered_count') {
      property['const'] = 0;
      property['description'] = joinSentences(rule.schema['description'], 'Set by the service; may be sent on create only as 0, what the service sets.');
    } else {
      property['description'] = joinSentences(rule.schema['description'], 'Read-only: may be sent only with its stored value (so a client can send back what it read); any other value fails validation.');
    }
  } else if (kind === 'create' && field === 'status') {
    // A new event is never cancelled (API.md §14); pending is taken only under --approval required.
    property['enum'] = ['draft', 'pending', 'published'];
  } else if (rule.access === 'admin-only') {
    const stored = kind === 'create' ? "the key's owner" : 'its stored value';
    property['description'] = joinSentences(property['description'], `Admin keys only; any other key may send it only with ${stored}.`);
  }
  return property;
}

/** The fields a response carries only sometimes. */
const OPTIONAL_IN_RESPONSES = new Set(['series_id', 'status', 'review_note', 'cancellation_reason']);

/** A response schema over the fields `include` keeps, every one of them always present. */
function responseSchema(description: string, include: (field: string) => boolean): Schema {
  const fields = Object.keys(EVENT_FIELDS).filter(include);
  return {
    type: 'object',
    description,
    additionalProperties: false,
    // series_id is there only on an occurrence of a series (API.md §4); status only when not published, review_note
    // and cancellation_reason only when given (§14).
    required: fields.filter((field) => !OPTIONAL_IN_RESPONSES.has(field)),
    properties: Object.fromEntries(fields.map((field) => [field, EVENT_FIELDS[field]!.access === 'read-only' ? { ...EVENT_FIELDS[field]!.schema, readOnly: true } : { ...EVENT_FIELDS[field]!.schema }])),
  };
}

/** A page of a list (API.md §5): `{ITEMS: [...], total, page}`. */
function pageSchema(items: string, schema: string, description: string): Schema {
  return {
    type: 'object',
    description,
    additionalProperties: false,
    required: [items, 'total', 'page'],
    properties: {
      [items]: { type: 'array', items: schemaRef(schema), description: 'Empty past the last page.' },
      total: { type: 'integer', minimum: 0, description: 'Every match on all pages.' },
      page: { type: 'integer', minimum: 1, description: 'The page returned.' },
    },
  };
}

/** `{error, message, details?}`; `error` is one of the catalog's codes, and validation_failed always has details. */
function errorSchema(): Schema {
  return {
    type: 'object',
    description: 'Every error response. message is a sentence a person can act on, naming the field, parameter, header or id at fault.',
    additionalProperties: false,
    required: ['error', 'message'],
    properties: {
      error: { type: 'string', enum: Object.keys(ERROR_CATALOG) },
      message: { type: 'string' },
      details: { type: 'array', items: schemaRef('FieldProblem'), description: 'One entry per problem found, all of them.' },
    },
    if: { properties: { error: { const: 'validation_failed' } }, required: ['error'] },
    then: { required: ['details'] },
  };
}

function joinSentences(first: unknown, second: string): string {
  return typeof first === 'string' && first.length > 0 ? `${first} ${second}` : second;
}
