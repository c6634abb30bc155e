// Webhooks on a database several instances share (API.md §12, §13): definitions in its table, and each webhook delivered by the one instance holding its lease.
import type { Precondition, SharedWebhook, SharedWebhookTable, WebhookState, WebhookStateStore } from '../store/webhook-state.js';
import { randomId } from '../lib/random-id.js';
import { StoreUnavailable } from '../store/store-errors.js';
import type { WebhookInput } from './webhook-input.js';
import { WebhookService, type WebhookServiceDeps } from './webhook-service.js';
import { newLogId, newWebhookState } from './new-webhook.js';
import { elapsedOn } from './delivery-lane.js';
import { compactionHoldOf } from './compaction-hold.js';

/** How often the list of every webhook is read again by the timer, for admins' reads while the database is away. */
const KNOWN_MS = 5_000;

export interface SharedWebhooksDeps extends Omit<WebhookServiceDeps, 'stateStore'> {
  table: SharedWebhookTable;
  /** A lease not renewed for this long lapses, and another instance takes the webhook over. Default 3000 ms. */
  leaseMs?: number;
  /** How often leases are renewed, lapsed ones taken and admins' changes picked up. Default 500 ms. */
  tickMs?: number;
}

/**
 * The webhooks of one instance among several: admins' reads and changes go to the shared table (so every instance
 * sees them at once); a timer renews this instance's leases, takes free or lapsed ones, and hands the webhooks it
 * holds to a WebhookService, which delivers them and saves their progress to the table while the lease is held.
 */
export class SharedWebhooks {
  readonly #deps: SharedWebhooksDeps;
  readonly #owner: string;
  readonly #leaseMs: number;
  #service!: WebhookService;
  /** The webhooks delivered here, with the version of the admin's change last applied to each. */
  readonly #held = new Map<string, number>();
  #timer: unknown;
  /** Fires when the leases held here may be about to lapse (no renewal came back in time): delivery here stops. */
  #watchdog: unknown;
  /** When the last renewal that came back was sent (elapsed time); -Infinity before the first. */
  #renewedAt = -Infinity;
  #ticking: Promise<void> | undefined;
  /** Webhooks deleted here that a tick in flight may still return: never taken up again. */
  readonly #deleted = new Set<string>();
  #warned = false;
  #closed = false;
  /** Every webhook as last read from the table, and when (elapsed time): what an admin's read gets while the database is away. */
  #known: SharedWebhook[] | undefined;
  #knownAt = -Infinity;

  private constructor(deps: SharedWebhooksDeps) {
    this.#deps = deps;
    this.#leaseMs = deps.leaseMs ?? 3000;
    this.#owner = randomId('run', deps.randomBytes);
  }

  /** Opens the service over the table and takes the leases it can at once. */
  static async open(deps: SharedWebhooksDeps): Promise<SharedWebhooks> {
    const shared = new SharedWebhooks(deps);
    const logId = await deps.table.logId(newLogId(deps.randomBytes));
    const stateStore: WebhookStateStore = {
      load: () => Promise.resolve({ webhooks: [], compactedThrough: 0, logId }),
      save: async (snapshot) => {
        const held = snapshot.webhooks.map((state) => ({ state, version: shared.#held.get(state.id) ?? 0 }));
        for (const id of await deps.table.saveProgress(shared.#owner, held)) shared.#drop(id, 'it was deleted, or another instance took its lease');
      },
    };
    shared.#service = await WebhookService.open({ ...deps, stateStore, saveEveryMs: deps.saveEveryMs ?? 250 });
    // Webhooks delivered by other instances hold this one's checkpoints back too (as last read, at most KNOWN_MS old;
    // until the list is read, any may be behind). Kept after close, as WebhookService keeps its own.
    deps.history?.holdCompaction(() =>
      shared.#known === undefined ? { reason: 'the list of webhooks is not read yet', lasting: false } : compactionHoldOf(shared.#known.map((webhook) => shared.#fresh(webhook)), deps.lastSeq()),
    );
    await shared.#tick();
    await shared.#all().catch(() => undefined);
    shared.#schedule();
    return shared;
  }

  /**
   * Every webhook, oldest first: the table's, with the progress of those delivered here as it is now. While the
   * database cannot be reached, the list as last read (at most KNOWN_MS old before the outage): a read needs no database.
   */
  async list(): Promise<WebhookState[]> {
    return (await this.#all()).filter((webhook) => !this.#deleted.has(webhook.state.id)).map((webhook) => this.#fresh(webhook));
  }

  /**
   * A webhook as the table has it; while the database cannot be reached, as last read, unless `forChange` (a change
   * judges the webhook as it is: an If-Match judged on an old copy would be a 412 where the 503 is due).
   */
  async get(id: string, forChange = false): Promise<WebhookState | undefined> {
    let webhook: SharedWebhook | undefined;
    try {
      webhook = await this.#deps.table.get(id);
    } catch (error) {
      webhook = error instanceof StoreUnavailable && !forChange ? this.#known?.find((known) => known.state.id === id && !this.#deleted.has(id)) : undefined;
      if (webhook === undefined) throw error;
    }
    return webhook === undefined ? undefined : this.#fresh(webhook);
  }

  /** The table's webhooks, remembered; the ones last read when the database cannot be reached. */
  async #all(): Promise<SharedWebhook[]> {
    const at = elapsedOn(this.#deps.clock);
    try {
      const all = await this.#deps.table.list();
      this.#known = all;
      this.#knownAt = at;
      return all;
    } catch (error) {
      if (!(error instanceof StoreUnavailable) || this.#known === undefined) throw error;
      return this.#known;
    }
  }

  /** Adds a webhook, delivered here until this instance stops or loses its lease; resolves once it is in the table. */
  async create(input: WebhookInput): Promise<WebhookState> {
    const sentAt = elapsedOn(this.#deps.clock);
    const state = await this.#deps.table.insert(newWebhookState(input, this.#deps, () => false), this.#owner, this.#leaseMs);
    // Leased by the insert: when no renewal is due to be watched (the database failed meanwhile), watch this lease.
    if (this.#watchdog === undefined) this.#watch(sentAt);
    this.#held.set(state.id, 0);
    await this.#adopt(structuredClone(state));
    return state;
  }

  /**
   * Changes a webhook in the table; the instance delivering it follows at once (here) or on its next tick (elsewhere),
   * which the answer waits for when the change bears on delivery, so no message of a later write misses it.
   */
  async update(id: string, input: WebhookInput, precondition?: Precondition): Promise<WebhookState | undefined> {
    const bearsOnDelivery = input.url !== undefined || input.events !== undefined || input.status !== undefined;
    const elsewhere = bearsOnDelivery && !this.#held.has(id) && (await this.#deps.table.heldElsewhere(id, this.#owner));
    const changed = await this.#changeIf(id, precondition, (version) => this.#deps.table.change(id, input, version));
    if (changed === undefined) return undefined;
    if (this.#held.has(id)) {
      this.#held.set(id, changed.version);
      this.#service.redefine(id, input);
    }
    if (elsewhere) await this.#handOver();
    return this.#fresh(changed);
  }

  /** Deletes a webhook; as for a change, the answer waits for the instance delivering it elsewhere to stop. */
  async remove(id: string, precondition?: Precondition): Promise<boolean> {
    const elsewhere = !this.#held.has(id) && (await this.#deps.table.heldElsewhere(id, this.#owner));
    const removed = (await this.#changeIf(id, precondition, async (version) => (await this.#deps.table.delete(id, version)) || undefined)) === true;
    this.#deleted.add(id);
    this.#drop(id);
    if (removed && elsewhere) await this.#handOver();
    return removed;
  }

  /**
   * Makes an admin's change (`change`, given the version it must find) once `precondition` holds for the webhook as the
   * table has it: another admin's change made meanwhile, on any instance, has it judged again on that version, so an
   * If-Match is never judged on a version read before the one changed. Without a precondition, the change as it comes.
   */
  async #changeIf<T>(id: string, precondition: Precondition | undefined, change: (version?: number) => Promise<T | undefined>): Promise<T | undefined> {
    if (precondition === undefined) return change();
    for (;;) {
      const current = await this.#deps.table.get(id);
      if (current === undefined) return undefined;
      precondition(this.#fresh(current));
      const done = await change(current.version);
      if (done !== undefined) return done;
    }
  }

  /**
   * Waits two ticks: the instance delivering a webhook reads admins' changes (a deletion included) on each of its
   * ticks, so by then it has stopped sending what the change rules out, and the admin's answer comes after that.
   */
  #handOver(): Promise<void> {
    return new Promise((resolve) => this.#deps.clock.setTimeout(resolve, 2 * (this.#deps.tickMs ?? 500)));
  }

  /** Saves the progress of the webhooks delivered here and gives up their leases, so another instance goes on at once. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#deps.clock.clearTimeout(this.#timer);
    await this.#ticking;
    this.#deps.clock.clearTimeout(this.#watchdog);
    // An attempt on the wire may wait for its answer until the watchdog would have stopped it (2/3 of a lease after the
    // last renewal was sent, at most a third of a lease): the lease outlasts the wait, as it outlasts delivery.
    await this.#service.close(Math.max(0, Math.min(this.#leaseMs / 3, this.#renewedAt + (this.#leaseMs * 2) / 3 - elapsedOn(this.#deps.clock))));
    await this.#deps.table.release(this.#owner).catch((error: unknown) => this.#deps.logger.warn('could not give up the leases of webhooks on stop; other instances take them over once they lapse', { reason: (error as Error).message }));
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#timer = this.#deps.clock.setTimeout(() => {
      this.#ticking = this.#tick().finally(() => {
        this.#ticking = undefined;
        this.#schedule();
      });
    }, this.#deps.tickMs ?? 500);
  }

  /** Renews and takes leases; starts the webhooks newly held, stops those no longer held, applies admins' changes made elsewhere. */
  async #tick(): Promise<void> {
    const sentAt = elapsedOn(this.#deps.clock);
    // What this renewal asks for: a webhook created meanwhile (leased by its insert) is not let go for missing from it.
    const asked = new Set(this.#held.keys());
    let held: SharedWebhook[];
    try {
      held = await this.#deps.table.lease(this.#owner, this.#leaseMs);
    } catch (error) {
      if (!this.#warned) this.#deps.logger.warn('could not renew the leases of webhooks; their delivery stops here until the database answers', { reason: (error as Error).message });
      this.#warned = true;
      return;
    }
    this.#warned = false;
    if (this.#closed) return;
    this.#watch(sentAt);
    if (sentAt - this.#knownAt > KNOWN_MS) void this.#all().catch(() => undefined);
    const ids = new Set(held.map((webhook) => webhook.state.id));
    for (const id of [...this.#held.keys()]) if (!ids.has(id) && asked.has(id)) this.#drop(id);
    for (const id of [...this.#deleted]) if (!ids.has(id)) this.#deleted.delete(id);
    for (const webhook of held) {
      const { id } = webhook.state;
      if (this.#deleted.has(id)) continue;
      const applied = this.#held.get(id);
      this.#held.set(id, Math.max(applied ?? 0, webhook.version));
      // Not awaited: reading a webhook's past back may take a while, and the leases must be renewed meanwhile.
      if (applied === undefined) void this.#adopt(webhook.state);
      else if (webhook.version > applied) this.#follow(webhook, applied);
    }
  }

  /**
   * The leases held here were renewed by the database after `sentAt` (elapsed time, which never steps): delivery here stops 2/3 of a lease later unless
   * a renewal comes back meanwhile, well before they can lapse there, so two instances never deliver one webhook together.
   */
  #watch(sentAt: number): void {
    this.#renewedAt = sentAt;
    this.#deps.clock.clearTimeout(this.#watchdog);
    this.#watchdog = this.#deps.clock.setTimeout(() => {
      this.#watchdog = undefined;
      for (const id of [...this.#held.keys()]) this.#drop(id, 'its lease could not be renewed in time');
    }, sentAt + (this.#leaseMs * 2) / 3 - elapsedOn(this.#deps.clock));
  }

  /** Starts delivering a webhook from its saved state; if its past cannot be read now, it is let go and taken again on the next tick. */
  async #adopt(state: WebhookState): Promise<void> {
    try {
      await this.#service.adopt(state);
    } catch (error) {
      this.#deps.logger.warn('could not start delivering a webhook; trying again shortly', { webhook: state.id, reason: (error as Error).message });
      this.#drop(state.id);
    }
  }

  /** An admin changed a webhook delivered here, on another instance, after version `applied`: a status set then applies as set here would. */
  #follow(webhook: SharedWebhook, applied: number): void {
    const { state } = webhook;
    const status = webhook.statusVersion > applied && state.status !== 'failing' ? state.status : undefined;
    this.#service.redefine(state.id, { url: state.url, events: state.events as WebhookInput['events'], description: state.description, status });
  }

  /** Stops delivering a webhook here (deleted, or no longer held). */
  #drop(id: string, why?: string): void {
    if (!this.#held.delete(id)) return;
    this.#service.release(id);
    if (why !== undefined) this.#deps.logger.info('stopped delivering a webhook here', { webhook: id, reason: why });
  }

  /** A webhook as the table holds it, with the progress of delivery here when this instance delivers it (newer than the last save). */
  #fresh(webhook: SharedWebhook): WebhookState {
    const here = this.#service.get(webhook.state.id);
    if (here === undefined) return webhook.state;
    return { ...webhook.state, cursor: { ...here.cursor }, attempts: here.attempts, firstFailureMs: here.firstFailureMs, deliveries: [...here.deliveries] };
  }
}
