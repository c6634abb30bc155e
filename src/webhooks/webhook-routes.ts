// The admin routes of API.md §13: create, list, read, change and delete webhooks, and read their delivery logs.
import { ApiError } from '../http/errors.js';
import type { HandlerResult, RequestContext, Route } from '../http/route.js';
import type { WebhookState } from '../store/webhook-state.js';
import type { HostPolicy } from './host-policy.js';
import { validateWebhook } from './webhook-input.js';
import type { WebhookService } from './webhook-service.js';

export interface WebhookRouteDeps {
  service: WebhookService;
  policy: HostPolicy;
}

/** A webhook as the API shows it: `{id, url, events, description, created_at, status}`, and `secret` only when just created. */
export function webhookView(state: WebhookState, withSecret = false): Record<string, unknown> {
  const view: Record<string, unknown> = { id: state.id, url: state.url, events: state.events, description: state.description, created_at: state.created_at, status: state.status };
  if (withSecret) view['secret'] = state.secret;
  return view;
}

/** The six webhook routes, admin only. */
export function webhookRoutes(deps: WebhookRouteDeps): { method: string; pattern: string; route: Route }[] {
  const route = (name: string, body: boolean, handle: (context: RequestContext, service: WebhookService) => Promise<HandlerResult>): Route => ({
    name,
    auth: true,
    action: 'webhooks',
    body,
    handle: (context) => handle(context, deps.service),
  });
  const known = (service: WebhookService, context: RequestContext): WebhookState => {
    const id = context.params['id']!;
    const state = service.get(id);
    if (state === undefined) throw new ApiError('not_found', `No webhook has the id "${id.length > 60 ? `${id.slice(0, 57)}...` : id}".`);
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
      route: route('listWebhooks', false, async (_context, service) => ({ status: 200, body: JSON.stringify({ webhooks: service.list().map((state) => webhookView(state)) }) })),
    },
    {
      method: 'GET',
      pattern: '/webhooks/:id',
      route: route('getWebhook', false, async (context, service) => ({ status: 200, body: JSON.stringify(webhookView(known(service, context))) })),
    },
    {
      method: 'PUT',
      pattern: '/webhooks/:id',
      route: route('updateWebhook', true, async (context, service) => {
        const state = known(service, context);
        const changed = await service.update(state.id, validateWebhook(context.body!, deps.policy, 'update'));
        return { status: 200, body: JSON.stringify(webhookView(changed ?? state)) };
      }),
    },
    {
      method: 'DELETE',
      pattern: '/webhooks/:id',
      route: route('deleteWebhook', false, async (context, service) => {
        await service.remove(known(service, context).id);
        return { status: 204, body: null };
      }),
    },
    {
      method: 'GET',
      pattern: '/webhooks/:id/deliveries',
      route: route('listWebhookDeliveries', false, async (context, service) => ({ status: 200, body: JSON.stringify({ deliveries: known(service, context).deliveries }) })),
    },
  ];
}
