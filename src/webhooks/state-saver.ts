// The webhooks' durable state, saved as WebhookService changes it: batched, tried again after a failure, and whether
// sending must wait for it.
import type { Logger } from '../log/logger.js';
import type { WebhookStateSnapshot, WebhookStateStore } from '../store/webhook-state.js';
import { elapsedOn, type WebhookClock } from './delivery-lane.js';

/** What a StateSaver needs. */
export interface StateSaverDeps {
  stateStore: WebhookStateStore;
  clock: WebhookClock;
  logger: Logger;
  /** Lanes' changes (cursors, delivery logs) are saved at most this often. */
  saveEveryMs: number;
  /** The state to save, as it is now. */
  snapshot(): WebhookStateSnapshot;
  /** Sending was held and no longer is: the lanes may go on. */
  released(): void;
  /** A save went through (lanes' progress is durable as far as it went). */
  saved?: () => void;
}

/**
 * Saves the webhooks' state: a lane's change batched (at most every `saveEveryMs`) or at once, an admin's change
 * awaited. A failed save is tried again a period later; meanwhile, once acknowledged progress has waited for a save
 * more than two periods, `holding()` is true and lanes send nothing. Were they to go on, a takeover or a restart
 * would start from the last save and send again what receivers had acknowledged since, behind the messages after
 * it; held, only that short stretch can come again.
 */
export class StateSaver {
  readonly #deps: StateSaverDeps;
  #saving: Promise<void> | undefined;
  #timer: unknown;
  /** Changed since the last save began. */
  #dirty = false;
  /** When (elapsed time) the oldest change no save has yet made durable happened; undefined when all are saved. */
  #unsavedSince: number | undefined;
  /** When the oldest change after the snapshot of the save under way happened. */
  #changedSinceSnapshot: number | undefined;
  #closed = false;
  /** A save failed and none has gone through since: said once when it begins, and once when it ends. */
  #failing = false;

  constructor(deps: StateSaverDeps) {
    this.#deps = deps;
  }

  /** A lane changed: saved with the next batch, or at once when `now` (a failed attempt, whose retry time must survive a crash). */
  changed(now: boolean): void {
    this.#dirty = true;
    const at = elapsedOn(this.#deps.clock);
    this.#unsavedSince ??= at;
    this.#changedSinceSnapshot ??= at;
    if (this.#closed) return;
    if (now) {
      // Failures are few (one per retry delay of a dead receiver): each is saved as it happens, with what is pending.
      this.#clearTimer();
      this.#saveLogged();
      return;
    }
    if (this.#timer === undefined) this.#later();
  }

  /** True while sending is held: acknowledged progress has waited for a save more than two periods. */
  holding(): boolean {
    return this.#unsavedSince !== undefined && elapsedOn(this.#deps.clock) - this.#unsavedSince > 2 * this.#deps.saveEveryMs;
  }

  /** Saves the state as it is once the save running (if any) is done; resolves once it is durable. */
  save(): Promise<void> {
    const run = (this.#saving ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => {
        this.#dirty = false;
        this.#changedSinceSnapshot = undefined;
        return this.#deps.stateStore.save(this.#deps.snapshot());
      });
    this.#saving = run;
    run.then(
      () => {
        this.#settled(run);
        // Saved through the snapshot: what is unsaved now is only what changed after it.
        const held = this.holding();
        this.#unsavedSince = this.#changedSinceSnapshot;
        if (held && !this.holding()) this.#deps.released();
        if (this.#failing) this.#deps.logger.info('the state of webhooks is saved again; sending goes on');
        this.#failing = false;
        this.#deps.saved?.();
      },
      () => this.#settled(run),
    );
    return run;
  }

  /** Stops the timer, waits for the save under way, and saves what changed since (a failure is logged). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#clearTimer();
    await this.#saving?.catch(() => undefined);
    if (this.#dirty) await this.save().catch((error: unknown) => this.#deps.logger.warn('could not save the state of webhooks on stop; messages acknowledged since the last save will be sent again', { reason: (error as Error).message }));
  }

  #saveLogged(): void {
    this.save().catch((error: unknown) => {
      this.#dirty = true;
      // Said once a run of failures (a read-only start fails for as long as it runs), not at every try.
      if (!this.#failing) this.#deps.logger.warn('could not save the state of webhooks; sending is held until it is saved, tried again shortly', { reason: (error as Error).message });
      this.#failing = true;
      // Nothing new is sent while held, so no change would call for the next try: a timer does.
      if (!this.#closed && this.#timer === undefined) this.#later();
    });
  }

  #later(): void {
    this.#timer = this.#deps.clock.setTimeout(() => {
      this.#timer = undefined;
      this.#saveLogged();
    }, this.#deps.saveEveryMs);
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) this.#deps.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #settled(run: Promise<void>): void {
    if (this.#saving === run) this.#saving = undefined;
  }
}
