// Checks the bodies of POST and PUT /webhooks (API.md §13): every problem named by its field, the host checked against --webhook-hosts.
import { ApiError, type FieldProblem } from '../http/errors.js';
import { Problem, quote, text } from '../lib/checks.js';
import { MESSAGE_TYPES, type MessageType } from './messages.js';
import type { HostPolicy } from './host-policy.js';

/** What a webhook body yields; on PUT only the fields sent. */
export interface WebhookInput {
  url?: string;
  events?: MessageType[];
  description?: string;
  status?: 'active' | 'paused';
}

const MAX_URL_LENGTH = 2000;
const description = text({ min: 0, max: 500, multiline: true });
/** Whitespace, C0 and C1 controls, DEL and backslashes: what a URL parser drops or rewrites. */
const UNCLEAN_URL = /[\s\u0000-\u001f\u007f-\u009f\\]/;
const CREATE_FIELDS = ['url', 'events', 'description'];
const UPDATE_FIELDS = [...CREATE_FIELDS, 'status'];

/**
 * Validates a create (`url` required) or an update (any of url, events, description, status); throws
 * `validation_failed` with every problem. On an update, a field of `stored` (the webhook as read) sent back unchanged
 * is accepted, read-only or not (`id`, `created_at`, a `failing` status), as events take what a client read back.
 */
export function validateWebhook(body: Record<string, unknown>, policy: HostPolicy, mode: 'create' | 'update', stored?: Readonly<Record<string, unknown>>): WebhookInput {
  const problems: FieldProblem[] = [];
  const fields = mode === 'create' ? CREATE_FIELDS : UPDATE_FIELDS;
  const unchanged = (field: string): boolean => stored !== undefined && Object.hasOwn(stored, field) && typeof body[field] !== 'object' && body[field] === stored[field];
  for (const field of Object.keys(body)) {
    if (fields.includes(field) || unchanged(field)) continue;
    const readOnly = ['id', 'secret', 'created_at'].includes(field) || (field === 'status' && mode === 'create');
    problems.push({ field, message: readOnly ? `${field} is read-only` : `${quote(field)} is not a field of a webhook; it takes ${fields.join(', ')}` });
  }
  const input: WebhookInput = {};
  const keep = <T>(checked: T | Problem, set: (value: T) => void): void => {
    if (checked instanceof Problem) problems.push({ field: checked.field, message: checked.message });
    else set(checked);
  };
  // A url sent back as read is no change, so it is not judged again: a PUT of what GET gave goes through after
  // --webhook-hosts changed (the start's warning names the webhook, and its attempts fail until its url is changed).
  if (Object.hasOwn(body, 'url') && !unchanged('url')) keep(checkUrl(body['url'], policy), (value) => (input.url = value));
  else if (mode === 'create') problems.push({ field: 'url', message: 'url is required' });
  if (Object.hasOwn(body, 'events')) keep(checkEvents(body['events']), (value) => (input.events = value));
  if (Object.hasOwn(body, 'description')) keep(description(body['description'], 'description'), (value) => (input.description = value));
  if (Object.hasOwn(body, 'status') && !unchanged('status')) keep(checkStatus(body['status']), (value) => (input.status = value));
  if (problems.length > 0) {
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''} in details)` : '';
    throw new ApiError('validation_failed', `The webhook is not valid: ${problems[0]!.message}${more}.`, { details: problems });
  }
  return input;
}

function checkUrl(value: unknown, policy: HostPolicy): string | Problem {
  if (typeof value !== 'string') return new Problem('url', `url must be an http or https URL, got ${quote(value)}`);
  if (value.length > MAX_URL_LENGTH) return new Problem('url', `url must be at most ${MAX_URL_LENGTH} characters, got ${value.length}`);
  // The URL parser would quietly drop spaces, tabs and line breaks, read \ as /, and skip a third slash after the
  // scheme's two (other parsers read an empty host there): the webhook would then be stored as sent yet called as
  // something else, which misleads whoever reads it back. Such a URL is refused instead.
  if (UNCLEAN_URL.test(value) || !/^https?:\/\/(?!\/)/i.test(value)) {
    return new Problem('url', `url must be an absolute http:// or https:// URL (two slashes, then the host) without spaces, control characters or backslashes, got ${quote(value)}`);
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return new Problem('url', `url must be an absolute http or https URL, got ${quote(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return new Problem('url', `url must use http or https, got ${quote(url.protocol.slice(0, -1))}`);
  if (url.username !== '' || url.password !== '') return new Problem('url', 'url must not hold a user name or password (they would travel with every delivery); put a token in the path instead');
  if (url.port === '0') return new Problem('url', 'url must not name port 0, which no receiver can listen on');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!policy.allowsHost(host)) return new Problem('url', `the host ${quote(host)} is not allowed by --webhook-hosts (allowed: ${policy.description})`);
  return value;
}

function checkEvents(value: unknown): MessageType[] | Problem {
  const expected = `events must be a non-empty array of ${MESSAGE_TYPES.join(', ')}`;
  if (!Array.isArray(value)) return new Problem('events', `${expected}, got ${quote(value)}`);
  if (value.length === 0) return new Problem('events', `${expected}, got an empty array`);
  const chosen: MessageType[] = [];
  for (const item of value) {
    if (typeof item !== 'string' || !(MESSAGE_TYPES as readonly string[]).includes(item)) return new Problem('events', `${expected}, got ${quote(item)}`);
    if (!chosen.includes(item as MessageType)) chosen.push(item as MessageType);
  }
  return chosen;
}

function checkStatus(value: unknown): 'active' | 'paused' | Problem {
  if (value === 'active' || value === 'paused') return value;
  return new Problem('status', `status must be "active" or "paused", got ${quote(value)}`);
}
