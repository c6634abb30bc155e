// Builds the webhooks of an app: the state store beside the event store, the HTTP client under --webhook-hosts, the service and its routes.
import type { EventStore } from '../store/event-store.js';
import { memoryWebhookState } from '../store/webhook-state.js';
import { fileWebhookState } from '../store/file/file-webhook-state.js';
import type { Logger } from '../log/logger.js';
import type { Route } from '../http/route.js';
import { hostPolicy } from './host-policy.js';
import { httpDeliveryClient, type DeliveryClient } from './delivery-client.js';
import { realClock, type WebhookClock } from './delivery-lane.js';
import { WebhookService } from './webhook-service.js';
import { webhookRoutes, type WebhookDirectory } from './webhook-routes.js';
import { SharedWebhooks } from './shared-webhooks.js';

/** Test only (internal, not API): the clock, the client, and how often cursors are saved. */
export interface WebhookInternals {
  clock?: WebhookClock;
  client?: DeliveryClient;
  saveEveryMs?: number;
  maxBacklog?: number;
}

export interface OpenWebhooksOptions {
  store: EventStore;
  dataDir: string;
  /** The memory store: the webhooks' state lives in memory too. */
  memory: boolean;
  sync: boolean;
  hosts: readonly string[];
  randomBytes: (size: number) => Uint8Array;
  logger: Logger;
  internal: WebhookInternals | undefined;
}

/** The running webhooks and their routes: in the store's shared table when it has one (PostgreSQL), else this process's own. */
export async function openWebhooks(options: OpenWebhooksOptions): Promise<{ service: WebhookDirectory; routes: { method: string; pattern: string; route: Route }[] }> {
  const policy = hostPolicy(options.hosts);
  const { store } = options;
  const deps = {
    history: store.history,
    lastSeq: () => store.changes.lastSeq,
    client: options.internal?.client ?? httpDeliveryClient(policy),
    clock: options.internal?.clock ?? realClock,
    randomBytes: options.randomBytes,
    logger: options.logger,
    saveEveryMs: options.internal?.saveEveryMs,
    maxBacklog: options.internal?.maxBacklog,
  };
  const service: WebhookDirectory =
    store.webhookTable !== undefined
      ? await SharedWebhooks.open({ ...deps, table: store.webhookTable })
      : await WebhookService.open({ ...deps, stateStore: options.memory ? memoryWebhookState() : fileWebhookState(options.dataDir, { sync: options.sync }) });
  await warnOfHostsNotAllowed(service, policy, options.logger);
  return { service, routes: webhookRoutes({ service, policy }) };
}

/**
 * A webhook kept from before (a migrated or restored folder, a changed flag) whose host --webhook-hosts does not allow
 * fails every attempt, and its messages wait for their retries, hours apart: said at start, so the flag is set first.
 */
async function warnOfHostsNotAllowed(service: WebhookDirectory, policy: ReturnType<typeof hostPolicy>, logger: Logger): Promise<void> {
  for (const webhook of await service.list()) {
    const host = new URL(webhook.url).hostname;
    if (!policy.allowsHost(host)) {
      logger.warn(`webhook ${webhook.id} sends to ${host}, which --webhook-hosts does not allow: each attempt fails and its messages wait for their retries until the flag allows it (allowed: ${policy.description})`, { webhook: webhook.id });
    }
  }
}
