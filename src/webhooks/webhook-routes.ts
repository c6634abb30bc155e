// The admin routes of API.md §13: create, list, read, change and delete webhooks, and read their delivery logs.
import { ApiError } from '../http/errors.js';
import type { HandlerResult, RequestContext, Route } from '../http/route.js';
import type { WebhookState } from '../store/webhook-state.js';
import type { HostPolicy } from './host-policy.js';
import { validateWebhook } from './webhook-input.js';
import type { WebhookInput } from './webhook-input.js';
import { clip } from '../lib/clip.js';

/** Where the routes find and change webhooks: this process's (WebhookService) or a table several instances share (SharedWebhooks). */
export interface WebhookDirectory {
  list(): WebhookState[] | Promise<WebhookState[]>;
  get(id: string): WebhookState | undefined | Promise<WebhookState | undefined>;
  create(input: WebhookInput): Promise<WebhookState>;
  update(id: string, input: WebhookInput): Promise<WebhookState | undefined>;
  remove(id: string): Promise<boolean>;
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
  const known = async (service: WebhookDirectory, context: RequestContext): Promise<WebhookState> => {
    const id = context.params['id']!;
    const state = await service.get(id);
    if (state === undefined) throw notFound(id);
    return state;
  };
  return [
    {
      method: 'POST',
      pattern: '/webhooks',
      route: route('createWebhook', true, async (context, service) => {
        const state = await service.create(validateWebhook(context.body!, deps.policy, 'create'));
        return { status: 201, body: JSON.stringify(webhookView(state, true)), headers: { Location: `${context.prefix}/webhooks/${state.id}` } };
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
      route: route('getWebhook', false, async (context, service) => ({ status: 200, body: JSON.stringify(webhookView(await known(service, context))) })),
    },
    {
      method: 'PUT',
      pattern: '/webhooks/:id',
      route: route('updateWebhook', true, async (context, service) => {
        const state = await known(service, context);
        const changed = await service.update(state.id, validateWebhook(context.body!, deps.policy, 'update', webhookView(state)));
        return { status: 200, body: JSON.stringify(webhookView(changed ?? state)) };
      }),
    },
    {
      method: 'DELETE',
      pattern: '/webhooks/:id',
      route: route('deleteWebhook', false, async (context, service) => {
        // Two DELETEs at once (on two instances): the one that found it gone by the time it deleted gets the 404.
        const { id } = await known(service, context);
        if (!(await service.remove(id))) throw notFound(id);
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
