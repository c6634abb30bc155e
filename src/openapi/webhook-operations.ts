// The webhooks of API.md §13 in the OpenAPI document: the admin operations, their schemas, and the outgoing message as a `webhooks` entry.
import { MESSAGE_TYPES } from '../webhooks/messages.js';
import { LINES_PATTERN } from '../events/schema.js';
import type { Example } from './examples.js';
import type { OperationSpec } from './operation-spec.js';

type Schema = Record<string, unknown>;
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

const ADMIN = 'Admin keys only (any other role: 403).';
const CREATE_EXAMPLES: Readonly<Record<string, Example>> = {
  signage: { summary: 'Every change, to the signage in the student union', value: { url: 'https://signage.campus.edu/hooks/events', description: 'Student union signage' } },
  seats: { summary: 'Only seats freeing up', value: { url: 'https://chat.campus.edu/hooks/seats', events: ['registration.cancelled', 'registration.promoted'] } },
};
const UPDATE_EXAMPLES: Readonly<Record<string, Example>> = {
  pause: { summary: 'Hold messages for a while', value: { status: 'paused' } },
  resume: { summary: 'Send again (also after failing)', value: { status: 'active' } },
};

/** The admin operations, keyed as OPERATIONS keys them. */
export const WEBHOOK_OPERATIONS: Readonly<Record<string, OperationSpec>> = {
  'POST /webhooks': {
    operationId: 'createWebhook',
    summary: 'Register a webhook',
    description: `${ADMIN} The url's host must be allowed by --webhook-hosts (else 400 validation_failed naming it; none is allowed by default). The answer is the only one that shows the secret: receivers verify each message with it (Standard Webhooks). The webhook hears every change durable after it was created. Unlike the creates of events, registrations and series, it takes no Idempotency-Key (one sent is ignored): after a time-out, look for the url in GET /webhooks before sending it again, or two webhooks will deliver every change twice.`,
    tag: 'webhooks',
    auth: true,
    requestBody: { schema: 'WebhookCreate', description: 'Where to send, and which message types.', examples: CREATE_EXAMPLES },
    responses: { '201': { description: 'Registered; active.', schema: 'WebhookCreated', headers: ['Location', 'ETag'] } },
    errors: [403],
  },
  'GET /webhooks': {
    operationId: 'listWebhooks',
    summary: 'List webhooks',
    description: `${ADMIN} Oldest first, without secrets.`,
    tag: 'webhooks',
    auth: true,
    responses: { '200': { description: 'Every webhook.', schema: 'WebhookList' } },
    errors: [403],
  },
  'GET /webhooks/{id}': {
    operationId: 'getWebhook',
    summary: 'Read a webhook',
    description: `${ADMIN} Without its secret, with its ETag (it changes whenever what this read shows does: an admin's change, or its becoming failing); If-None-Match with a current ETag answers 304.`,
    tag: 'webhooks',
    auth: true,
    parameters: ['IfNoneMatch'],
    responses: {
      '200': { description: 'The webhook.', schema: 'Webhook', headers: ['ETag'] },
      '304': { description: 'Not modified: If-None-Match matched the current ETag. No body.', headers: ['ETag'] },
    },
    errors: [403, 404],
  },
  'PUT /webhooks/{id}': {
    operationId: 'updateWebhook',
    summary: 'Change a webhook',
    description: `${ADMIN} Any of url, events, description, status. paused holds the messages; active sends them, in order (and starts the retry schedule afresh for a failing webhook). A new url on an active webhook is tried at once, the schedule afresh. If-Match with the ETag of your read makes it a 412 instead of overwriting another admin's change.`,
    tag: 'webhooks',
    auth: true,
    parameters: ['IfMatch'],
    requestBody: { schema: 'WebhookUpdate', description: 'The fields to change.', examples: UPDATE_EXAMPLES },
    responses: { '200': { description: 'The webhook as changed, with its new ETag.', schema: 'Webhook', headers: ['ETag'] } },
    errors: [403, 404, 412],
  },
  'DELETE /webhooks/{id}': {
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook',
    description: `${ADMIN} Its undelivered messages are dropped with it. If-Match as for a change.`,
    tag: 'webhooks',
    auth: true,
    parameters: ['IfMatch'],
    responses: { '204': { description: 'Deleted. No body.' } },
    errors: [403, 404, 412],
  },
  'GET /webhooks/{id}/deliveries': {
    operationId: 'listWebhookDeliveries',
    summary: "A webhook's delivery log",
    description: `${ADMIN} Its last 100 attempts, newest first.`,
    tag: 'webhooks',
    auth: true,
    responses: { '200': { description: 'The attempts.', schema: 'WebhookDeliveries' } },
    errors: [403, 404],
  },
};

const url = { type: 'string', maxLength: 2000, format: 'uri', pattern: '^[hH][tT][tT][pP][sS]?://[^/\\s\\\\][^\\s\\\\]*$', description: 'http:// or https:// then the host, at most 2000 characters, without spaces, control characters, backslashes or a third slash after the scheme (which a URL parser would quietly rewrite), without a user name or password (the receiver checks the signature instead); its host must be allowed by --webhook-hosts.' };
const events = { type: 'array', minItems: 1, items: { type: 'string', enum: [...MESSAGE_TYPES] }, description: 'The message types to send. Default: all.' };
const description = { type: 'string', maxLength: 500, pattern: LINES_PATTERN, description: 'At most 500 characters; tab, newline and carriage return allowed, no other control characters.' };
const webhookProperties = {
  id: { type: 'string', pattern: '^whk_[0-9A-Za-z]{16,}$' },
  url,
  events,
  description,
  created_at: { type: 'string', format: 'date-time' },
  status: { type: 'string', enum: ['active', 'paused', 'failing'], description: 'failing: 3 days without an acknowledgement; deliveries stop until it is set active.' },
};
const WEBHOOK_REQUIRED = ['id', 'url', 'events', 'description', 'created_at', 'status'];

/** The schemas of the webhook operations and of the message. */
export function webhookSchemas(): Record<string, Schema> {
  return {
    WebhookCreate: { type: 'object', additionalProperties: false, required: ['url'], properties: { url, events, description } },
    WebhookUpdate: {
      type: 'object',
      description: 'The fields to change. id, created_at and a failing status may be sent back as read (unchanged), so a webhook read can be sent back whole.',
      additionalProperties: false,
      properties: { id: webhookProperties.id, url, events, description, created_at: webhookProperties.created_at, status: { type: 'string', enum: ['active', 'paused', 'failing'], description: 'active or paused; failing only sent back unchanged.' } },
    },
    Webhook: { type: 'object', description: 'A webhook (never its secret).', additionalProperties: false, required: WEBHOOK_REQUIRED, properties: webhookProperties },
    WebhookCreated: {
      type: 'object',
      description: 'A webhook just created, with its secret (shown this once).',
      additionalProperties: false,
      required: [...WEBHOOK_REQUIRED, 'secret'],
      properties: { ...webhookProperties, secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9+/]{32,}={0,2}$', description: 'whsec_ + base64 of 32 random bytes.' } },
    },
    WebhookList: { type: 'object', additionalProperties: false, required: ['webhooks'], properties: { webhooks: { type: 'array', items: ref('Webhook') } } },
    WebhookDeliveries: {
      type: 'object',
      additionalProperties: false,
      required: ['deliveries'],
      properties: {
        deliveries: {
          type: 'array',
          maxItems: 100,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['message_id', 'type', 'attempt', 'status', 'response_status', 'error', 'at'],
            properties: {
              message_id: { type: ['string', 'null'], description: 'The webhook-id; null for a gap (messages compaction took before they were sent).' },
              type: { type: ['string', 'null'] },
              attempt: { type: 'integer', minimum: 0, description: '1 for the first attempt at a message since its retry schedule began (setting the webhook active, or a new url, begins it afresh); 0 for a gap.' },
              status: { type: 'string', enum: ['succeeded', 'failed'] },
              response_status: { type: ['integer', 'null'], description: "The receiver's HTTP status, when it answered." },
              error: { type: ['string', 'null'], description: 'Why the attempt failed.' },
              at: { type: 'string', format: 'date-time', description: 'When the attempt ended: its answer, or the 10 s it waited for one.' },
            },
          },
        },
      },
    },
    WebhookMessage: {
      type: 'object',
      description: 'The body of a delivery. data: the event as a single read gives it (event.created, event.updated), {id} for event.deleted, {event_id, registration} for registration types.',
      additionalProperties: false,
      required: ['type', 'timestamp', 'data'],
      properties: {
        type: { type: 'string', enum: [...MESSAGE_TYPES] },
        timestamp: { type: 'string', format: 'date-time', description: 'When the change happened.' },
        data: {
          oneOf: [
            ref('Event'),
            { type: 'object', additionalProperties: false, required: ['id'], properties: { id: { type: 'string', pattern: '^evt_[0-9A-Za-z]{16,}$' } } },
            { type: 'object', additionalProperties: false, required: ['event_id', 'registration'], properties: { event_id: { type: 'string' }, registration: ref('Registration') } },
          ],
        },
      },
    },
  };
}

/** The OpenAPI 3.1 `webhooks` entry: the POST each receiver gets. */
export function webhookEntries(): Record<string, Schema> {
  const header = (name: string, description: string, example: string): Schema => ({ name, in: 'header', required: true, description, schema: { type: 'string' }, example });
  return {
    change: {
      post: {
        operationId: 'receiveChange',
        summary: 'A change, sent to each webhook that selects its type',
        description:
          'Standard Webhooks: verify webhook-signature with the secret before trusting the body (the standardwebhooks package does it). At least once, in write order, one at a time per webhook: the same message may come again (after a timeout, a lost answer or a restart) with the same webhook-id, so deduplicate on it. Answer 2xx within 10 s to acknowledge; anything else is retried after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, then every 10 h, for 3 days, after which the webhook is failing. Redirects are not followed; at most 64 KiB of the answer is read.',
        tags: ['webhooks'],
        security: [],
        parameters: [
          header('webhook-id', 'The message id, msg_{log}_{seq}_{n}_{crc}: the same on every attempt at one message, and after a restart; never the id of another message, even after a restore from a backup.', 'msg_k3J9x2Qa_42_0_1k3f9z'),
          header('webhook-timestamp', 'Unix seconds of this attempt.', '1788282000'),
          header('webhook-signature', 'v1, + base64(HMAC-SHA256(secret bytes, "{webhook-id}.{webhook-timestamp}.{body}")); the secret bytes are the base64 after whsec_.', 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4='),
        ],
        requestBody: { required: true, content: { 'application/json': { schema: ref('WebhookMessage') } } },
        responses: { '200': { description: 'Any 2xx acknowledges the message.' }, default: { description: 'Anything else (or no answer within 10 s) is retried.' } },
      },
    },
  };
}
