// The webhooks of a running service: their durable state, the shared backlog fed by the store's durable changes, and one delivery lane each.
import type { ChangeHistorySource, CompactionHoldHandle } from '../store/views/change-history.js';
import type { Precondition, WebhookState, WebhookStateStore } from '../store/webhook-state.js';
import type { Logger } from '../log/logger.js';
import { DeliveryLane, type WebhookClock } from './delivery-lane.js';
import { StateSaver } from './state-saver.js';
import type { DeliveryClient } from './delivery-client.js';
import { doneThrough, LINE_DONE } from './message-backlog.js';
import { MessageFeed } from './message-feed.js';
import { isAfter, type Cursor } from './messages.js';
import { newLogId, newWebhookState } from './new-webhook.js';
import { CatchUps } from './catch-up.js';
import { compactionHoldOf, settleForCompaction, SETTLE_MS } from './compaction-hold.js';
import type { WebhookInput } from './webhook-input.js';

/** How long a stop waits for the answers of attempts on the wire (within the stop's own bound, see server.ts). */
const FINISH_MS = 2_000;

export interface WebhookServiceDeps {
  /** The store's durable changes; without it (an engine that has none) webhooks hear nothing. */
  history: ChangeHistorySource | undefined;
  /** The seq of the last durable line. */
  lastSeq: () => number;
  stateStore: WebhookStateStore;
  client: DeliveryClient;
  clock: WebhookClock;
  randomBytes: (size: number) => Uint8Array;
  logger: Logger;
  /** Cursors and delivery logs are saved at most this often (definitions at once). Default 1000 ms. */
  saveEveryMs?: number;
  /** How long a compaction waits for webhooks to acknowledge what it rewrote (default SETTLE_MS; tests shorten it). */
  settleMs?: number;
  /** Messages held in memory at most (default MAX_BACKLOG); a webhook behind them reads them back from the log. */
  maxBacklog?: number;
  /** Changes read back into the shared backlog at a start at most (default START_READ_BACK), for tests. */
  startReadBack?: number;
}

/** The webhooks, their deliveries and their durable state. */
export class WebhookService {
  readonly #deps: WebhookServiceDeps;
  readonly #lanes = new Map<string, DeliveryLane>();
  /** Lanes whose delete is being saved, by id, with that save (see remove). */
  readonly #leaving = new Map<string, { lane: DeliveryLane; saved: Promise<void> }>();
  readonly #feed: MessageFeed;
  readonly #stopCompactionWatch: (() => void) | undefined;
  readonly #compactionHold: CompactionHoldHandle | undefined;
  #compactedThrough: number;
  #logId: string;
  readonly #saver: StateSaver;
  #closed = false;
  readonly #catchUps: CatchUps;

  private constructor(deps: WebhookServiceDeps, compactedThrough: number, logId: string | undefined) {
    this.#deps = deps;
    this.#compactedThrough = compactedThrough;
    this.#logId = logId ?? newLogId(deps.randomBytes);
    this.#saver = new StateSaver({
      stateStore: deps.stateStore,
      clock: deps.clock,
      logger: deps.logger,
      saveEveryMs: deps.saveEveryMs ?? 1000,
      snapshot: () => ({ webhooks: this.list().map((state) => structuredClone(state)), compactedThrough: this.#compactedThrough, logId: this.#logId }),
      released: () => {
        for (const lane of this.#lanes.values()) lane.poke();
      },
      // Webhooks that caught up may have been all that held a compaction due back.
      saved: () => this.#compactionHold?.recheck(),
    });
    this.#feed = new MessageFeed({
      history: deps.history,
      lastSeq: deps.lastSeq,
      maxBacklog: deps.maxBacklog,
      startReadBack: deps.startReadBack,
      oldestCursor: () => this.#oldestCursor(),
      compactedThrough: () => this.#compactedThrough,
      heard: () => this.#heard(),
    });
    this.#stopCompactionWatch = deps.history?.onCompacted((throughSeq) => this.#compacted(throughSeq));
    this.#compactionHold = deps.history?.holdCompaction(
      () => compactionHoldOf(this.list(), deps.lastSeq()),
      (throughSeq, forced) => this.#settleForCompaction(throughSeq, forced),
    );
    this.#catchUps = new CatchUps({
      history: deps.history,
      shared: () => this.#feed.backlog,
      compactedThrough: () => this.#compactedThrough,
      lane: (id) => this.#lanes.get(id),
      logger: deps.logger,
    });
  }

  /** Loads the saved webhooks, reads back from the log what they had not acknowledged, and starts delivering. */
  static async open(deps: WebhookServiceDeps): Promise<WebhookService> {
    const snapshot = await deps.stateStore.load();
    const service = new WebhookService(deps, snapshot.compactedThrough, snapshot.logId);
    for (const state of snapshot.webhooks) service.#addLane(state);
    if (service.#rewound()) await service.#saver.save();
    if (service.#lanes.size > 0) await service.#ensureFeed(true);
    return service;
  }

  /** Every webhook, oldest first. */
  list(): WebhookState[] {
    return [...this.#lanes.values()].map((lane) => lane.state);
  }

  get(id: string): WebhookState | undefined {
    return this.#lanes.get(id)?.state;
  }

  /** Creates a webhook that hears every change made from now on; resolves once it is saved. */
  async create(input: WebhookInput): Promise<WebhookState> {
    if (this.#feed.backlog === undefined) await this.#ensureFeed(false);
    const state = newWebhookState(input, this.#deps, (id) => this.#lanes.has(id));
    const { id } = state;
    this.#addLane(state);
    await this.#saveOrUndo(() => {
      this.#lanes.get(id)?.stop();
      this.#lanes.delete(id);
      this.#stopFeedIfIdle();
    });
    return state;
  }

  /** Changes a webhook's url, events, description or status; resolves once saved (undefined for an unknown id). */
  async update(id: string, input: WebhookInput, precondition?: Precondition): Promise<WebhookState | undefined> {
    // No await unless a delete is being saved: the change must see the webhook as a delete started meanwhile left it.
    if (this.#leaving.has(id) && (await this.#leftAfterSave(id))) return undefined;
    const lane = this.#lanes.get(id);
    if (lane === undefined) return undefined;
    precondition?.(lane.state);
    const before = { url: lane.state.url, events: lane.state.events, description: lane.state.description, status: lane.state.status };
    lane.redefine(input);
    await this.#saveOrUndo(() => {
      Object.assign(lane.state, before);
      lane.poke();
    });
    return lane.state;
  }

  /** Deletes a webhook (its undelivered messages with it); resolves once saved. */
  async remove(id: string, precondition?: Precondition): Promise<boolean> {
    if (this.#leaving.has(id) && (await this.#leftAfterSave(id))) return false;
    const lane = this.#lanes.get(id);
    if (lane === undefined) return false;
    precondition?.(lane.state);
    const at = [...this.#lanes.keys()].indexOf(id);
    this.#lanes.delete(id);
    // Out of the list the save writes, but its messages are kept until the delete is saved. A refused save puts it back
    // where it was, so the list (and webhooks.json) keeps its oldest-first order, and it goes on from where it was.
    const undo = (): void => {
      if (this.#closed) return;
      const entries = [...this.#lanes];
      entries.splice(at, 0, [id, lane]);
      this.#lanes.clear();
      for (const [key, value] of entries) this.#lanes.set(key, value);
      lane.poke();
    };
    const saved = this.#saveOrUndo(undo).finally(() => this.#leaving.delete(id));
    this.#leaving.set(id, { lane, saved });
    await saved;
    lane.stop();
    this.#catchUps.forget(id);
    this.#stopFeedIfIdle();
    this.#trim();
    return true;
  }

  /**
   * Waits for the save of a delete of `id` under way, if any: true when it went through (the webhook is gone), false
   * when there was none or it was refused (the webhook is back). A second delete or a change meanwhile is then answered
   * for what is, not a 404 for a webhook whose delete may yet fail.
   */
  #leftAfterSave(id: string): Promise<boolean> {
    return this.#leaving.get(id)?.saved.then(() => true, () => false) ?? Promise.resolve(false);
  }

  /**
   * Starts delivering a webhook this instance now holds (several instances on one database: its lease was taken),
   * from the state its last holder saved. Its state is saved with the others'.
   */
  async adopt(state: WebhookState): Promise<void> {
    if (this.#closed || this.#lanes.has(state.id)) return;
    this.#addLane(state);
    await this.#ensureFeed(true);
    this.#lanes.get(state.id)?.poke();
  }

  /** An admin changed a webhook this instance delivers, on another instance: the lane follows. */
  redefine(id: string, input: WebhookInput): void {
    const lane = this.#lanes.get(id);
    lane?.redefine(input);
  }

  /** Stops delivering a webhook (deleted, or its lease lost): what is in flight is abandoned, nothing is saved. */
  release(id: string): void {
    const lane = this.#lanes.get(id);
    if (lane === undefined) return;
    lane.stop();
    this.#lanes.delete(id);
    this.#catchUps.forget(id);
    this.#stopFeedIfIdle();
    this.#trim();
  }

  /**
   * Gives attempts on the wire a moment (`finishMs`) for their answer, then abandons the rest (sent again after the next
   * start), saves the cursors and stops: abandoned, an attempt the receiver had already acknowledged came again.
   */
  async close(finishMs = FINISH_MS): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    let timer: NodeJS.Timeout | undefined;
    const lanes = [...this.#lanes.values()];
    if (lanes.some((lane) => lane.busy)) await Promise.race([Promise.all(lanes.map((lane) => lane.finishing())), new Promise((resolve) => (timer = setTimeout(resolve, finishMs)))]);
    clearTimeout(timer);
    for (const lane of this.#lanes.values()) lane.stop();
    for (const { lane } of this.#leaving.values()) lane.stop();
    this.#feed.stop();
    this.#stopCompactionWatch?.();
    // The hold stays: the store may still run a moment after the webhooks stop (a shutdown closes them first), and
    // nothing they had not acknowledged may be compacted away meanwhile.
    this.#deps.client.close();
    await this.#saver.close();
  }

  /** Before a compaction through `throughSeq`: waits for the webhooks (see settleForCompaction), then saves their positions. */
  async #settleForCompaction(throughSeq: number, forced: boolean): Promise<void> {
    await settleForCompaction(() => this.list(), { throughSeq, forced, settleMs: this.#deps.settleMs ?? SETTLE_MS, stopping: () => this.#closed });
    await this.#saver.save();
  }

  /**
   * A log older than the cursors (restored from a backup): its next writes reuse sequence numbers the webhooks
   * already passed. Each webhook goes on from the log's end, saying so in its delivery log, and message ids get a new
   * log name, so a receiver's memory of ids never swallows a new message. True when it happened.
   */
  #rewound(): boolean {
    const lastSeq = this.#deps.lastSeq();
    const behind = [...this.#lanes.values()].filter((lane) => lane.state.cursor.seq > lastSeq);
    for (const lane of behind) {
      lane.record({
        message_id: null,
        type: null,
        attempt: 0,
        status: 'failed',
        response_status: null,
        error: `the event log ends at seq ${lastSeq}, before this webhook's position ${lane.state.cursor.seq} (restored from a backup?); delivery goes on from its end`,
        at: new Date(this.#deps.clock.now()).toISOString(),
      });
      lane.state.cursor = { seq: lastSeq, index: LINE_DONE };
    }
    if (behind.length === 0) return false;
    this.#logId = newLogId(this.#deps.randomBytes);
    this.#compactedThrough = Math.min(this.#compactedThrough, lastSeq);
    return true;
  }

  #addLane(state: WebhookState): void {
    const lane = new DeliveryLane(state, {
      backlog: () => this.#catchUps.backlogFor(state.id),
      recover: () => this.#catchUps.recover(state.id),
      client: this.#deps.client,
      clock: this.#deps.clock,
      changed: (now) => this.#laneChanged(now === true),
      holding: () => this.#saver.holding(),
      logId: () => this.#logId,
      failed: (webhook) => this.#deps.logger.warn('a webhook is failing: its receiver has not acknowledged a message for 3 days; set its status to active to try again', { webhook: webhook.id }),
      // Only a log compacted by a build that did not hold back for webhooks, or by hand, leaves such a gap: say so where the operator looks.
      lost: (webhook, afterSeq, throughSeq) =>
        this.#deps.logger.warn('a webhook cannot be sent messages that were compacted out of the log before delivery; its delivery log says so', { webhook: webhook.id, after_seq: afterSeq, through_seq: throughSeq }),
    });
    this.#lanes.set(state.id, lane);
  }

  /** Starts the feed unless it runs; waits for a start under way (and starts again if it was stopped meanwhile while webhooks remain). */
  async #ensureFeed(readBack: boolean): Promise<void> {
    while (this.#feed.backlog === undefined && !this.#closed) {
      await this.#feed.start(readBack);
      if (this.#lanes.size === 0) return;
    }
  }

  /** Stops the feed once no webhook is left, none whose delete may yet be refused included. */
  #stopFeedIfIdle(): void {
    if (this.#lanes.size === 0 && this.#leaving.size === 0) this.#feed.stop();
  }

  /** A durable batch joined the backlog: every lane looks for its next message. */
  #heard(): void {
    for (const lane of this.#lanes.values()) lane.poke();
    this.#trim();
  }

  /** A lane's change: saved (batched, or at once when `now`), and the backlog trimmed to what every webhook still needs. */
  #laneChanged(now: boolean): void {
    this.#saver.changed(now);
    this.#trim();
  }

  /** Drops from the backlog what every webhook is past. */
  #trim(): void {
    const oldest = this.#oldestCursor();
    if (oldest !== undefined) this.#feed.backlog?.dropThrough(oldest);
  }

  #oldestCursor(): Cursor | undefined {
    let oldest: Cursor | undefined;
    for (const lane of this.#lanes.values()) if (oldest === undefined || isAfter(oldest, lane.state.cursor)) oldest = lane.state.cursor;
    for (const { lane } of this.#leaving.values()) if (oldest === undefined || isAfter(oldest, lane.state.cursor)) oldest = lane.state.cursor;
    return oldest;
  }

  /** A compaction rewrote the log through `throughSeq`: remember it if a webhook is behind, so a restart reports the gap. */
  #compacted(throughSeq: number): void {
    // History past the changes the store applied (see MessageFeed.skipTo): the webhooks look again.
    if (this.#feed.skipTo(throughSeq)) for (const lane of this.#lanes.values()) lane.poke();
    const oldest = this.#oldestCursor();
    if (oldest === undefined || doneThrough(oldest, throughSeq)) return;
    this.#compactedThrough = Math.max(this.#compactedThrough, throughSeq);
    this.#saver.save().catch(() => undefined);
  }

  /** Saves an admin's change; when that fails, `undo` puts the state back, so memory never holds what the disk does not. */
  async #saveOrUndo(undo: () => void): Promise<void> {
    try {
      await this.#saver.save();
    } catch (error) {
      undo();
      throw error;
    }
  }
}
