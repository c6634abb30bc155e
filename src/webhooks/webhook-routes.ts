// The admin routes of API.md §13: create, list, read, change and delete webhooks, and read their delivery logs.
import { createHash } from 'node:crypto';
import { ApiError } from '../http/errors.js';
import { checkIfMatch, matchesNoneMatch } from '../http/conditional.js';
import type { HandlerResult, RequestContext, Route } from '../http/route.js';
import type { Precondition, WebhookState } from '../store/webhook-state.js';
import type { HostPolicy } from './host-policy.js';
import { validateWebhook } from './webhook-input.js';
import type { WebhookInput } from './webhook-input.js';
import { clip } from '../lib/clip.js';

/** Where the routes find and change webhooks: this process's (WebhookService) or a table several instances share (SharedWebhooks). */
export interface WebhookDirectory {
  list(): WebhookState[] | Promise<WebhookState[]>;
  /** `forChange`: read for a change, so never an old copy kept for reads while a shared table is out of reach. */
  get(id: string, forChange?: boolean): WebhookState | undefined | Promise<WebhookState | undefined>;
  create(input: WebhookInput): Promise<WebhookState>;
  /** Changes a webhook; `precondition` judges it as it is at the change itself (throwing refuses it). Undefined for an unknown id. */
  update(id: string, input: WebhookInput, precondition?: Precondition): Promise<WebhookState | undefined>;
  remove(id: string, precondition?: Precondition): Promise<boolean>;
  close(): Promise<void>;
}

export interface WebhookRouteDeps {
  service: WebhookDirectory;
  policy: HostPolicy;
}

/** A webhook as the API shows it: `{id, url, events, description, created_at, status}`, with `secret` after `description` only when just created (API.md §13's order). */
export function webhookView(state: WebhookState, withSecret = false): Record<string, unknown> {
  const secret = withSecret ? { secret: state.secret } : {};
  return { id: state.id, url: state.url, events: state.events, description: state.description, ...secret, created_at: state.created_at, status: state.status };
}

/**
 * A webhook's strong ETag: a digest of what GET shows of it, so it changes whenever that does (an admin's change, or
 * delivery failing long enough to make it `failing`); the same webhook in the same state has the same one everywhere.
 */
export function webhookEtag(state: WebhookState): string {
  return `"${createHash('sha256').update(JSON.stringify(webhookView(state))).digest('base64url').slice(0, 22)}"`;
}

/** The six webhook routes, admin only. */
export function webhookRoutes(deps: WebhookRouteDeps): { method: string; pattern: string; route: Route }[] {
  const route = (name: string, body: boolean, handle: (context: RequestContext, service: WebhookDirectory) => Promise<HandlerResult>): Route => ({
    name,
    auth: true,
    action: 'webhooks',
    body,
    handle: (context) => handle(context, deps.service),
  });
  const notFound = (id: string): ApiError => new ApiError('not_found', `No webhook has the id "${clip(id)}".`);
  const known = async (service: WebhookDirectory, context: RequestContext, forChange = false): Promise<WebhookState> => {
    const id = context.params['id']!;
    const state = await service.get(id, forChange);
    if (state === undefined) throw notFound(id);
    return state;
  };
  /** The If-Match of a PUT or DELETE (RFC 9110 §13.1.1): judged on the webhook as read, then again at the change itself. */
  const ifMatch = (context: RequestContext, state: WebhookState): Precondition | undefined => {
    const header = context.request.headers['if-match'];
    if (header === undefined) return undefined;
    const precondition: Precondition = (current) => checkIfMatch(header, webhookEtag(current), `webhook "${current.id}"`);
    precondition(state);
    return precondition;
  };
  const read = (state: WebhookState): HandlerResult => ({ status: 200, body: JSON.stringify(webhookView(state)), headers: { ETag: webhookEtag(state) } });
  return [
    {
      method: 'POST',
      pattern: '/webhooks',
      route: route('createWebhook', true, async (context, service) => {
        const state = await service.create(validateWebhook(context.body!, deps.policy, 'create'));
        return { status: 201, body: JSON.stringify(webhookView(state, true)), headers: { Location: `${context.prefix}/webhooks/${state.id}`, ETag: webhookEtag(state) } };
      }),
    },
    {
      method: 'GET',
      pattern: '/webhooks',
      route: route('listWebhooks', false, async (_context, service) => ({ status: 200, body: JSON.stringify({ webhooks: (await service.list()).map((state) => webhookView(state)) }) })),
    },
    {
      method: 'GET',
      pattern: '/webhooks/:id',
      route: route('getWebhook', false, async (context, service) => {
        const state = await known(service, context);
        const etag = webhookEtag(state);
        if (matchesNoneMatch(context.request.headers['if-none-match'], etag)) return { status: 304, body: null, headers: { ETag: etag } };
        return read(state);
      }),
    },
    {
      method: 'PUT',
      pattern: '/webhooks/:id',
      route: route('updateWebhook', true, async (context, service) => {
        const state = await known(service, context, true);
        const precondition = ifMatch(context, state);
        const changed = await service.update(state.id, validateWebhook(context.body!, deps.policy, 'update', webhookView(state)), precondition);
        // Deleted meanwhile (another admin, another instance): the change found nothing to change.
        if (changed === undefined) throw notFound(state.id);
        return read(changed);
      }),
    },
    {
      method: 'DELETE',
      pattern: '/webhooks/:id',
      route: route('deleteWebhook', false, async (context, service) => {
        // Two DELETEs at once (on two instances): the one that found it gone by the time it deleted gets the 404.
        const state = await known(service, context, true);
        if (!(await service.remove(state.id, ifMatch(context, state)))) throw notFound(state.id);
        return { status: 204, body: null };
      }),
    },
    {
      method: 'GET',
      pattern: '/webhooks/:id/deliveries',
      route: route('listWebhookDeliveries', false, async (context, service) => ({ status: 200, body: JSON.stringify({ deliveries: (await known(service, context)).deliveries }) })),
    },
  ];
}
