// One webhook's deliveries: one message in flight at a time, in write order, retried on the schedule of API.md §13.
import type { DeliveryRecord, WebhookState } from '../store/webhook-state.js';
import type { AttemptOutcome, DeliveryClient, SentAttempt } from './delivery-client.js';
import { LINE_DONE, type MessageBacklog } from './message-backlog.js';
import { signer } from './signature.js';
import { nextAttemptAt, savedRetryAt } from './retry-schedule.js';
import { isAfter, type WebhookMessage } from './messages.js';
import type { WebhookInput } from './webhook-input.js';

/** The clock and timers deliveries run on (a fake one in tests). */
export interface WebhookClock {
  now(): number;
  /**
   * Milliseconds on a clock that is never set (`performance.now()`), which an attempt's 10 s are measured on: the
   * wall clock may step (NTP, a resumed VM). Without it, `now` (a fake clock, which never steps unless told to).
   */
  elapsed?(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The real clock; its timers never keep the process alive. */
export const realClock: WebhookClock = {
  now: Date.now,
  elapsed: () => performance.now(),
  setTimeout(callback, ms) {
    const timer = setTimeout(callback, ms);
    timer.unref();
    return timer;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Time on `clock` that never steps, for deadlines and leases (see WebhookClock.elapsed). */
export function elapsedOn(clock: WebhookClock): number {
  return clock.elapsed === undefined ? clock.now() : clock.elapsed();
}

/** A whole exchange (connect, send, answer) must finish within this. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** Attempts kept in a webhook's delivery log. */
export const DELIVERY_LOG_SIZE = 100;

export interface LaneDeps {
  /** The backlog this lane reads now (the shared one, or its catch-up from the log); undefined: wait. */
  backlog(): MessageBacklog | undefined;
  /** Messages this lane needs are no longer held: true when they are being read back from the log (the lane is poked again). */
  recover?(): boolean;
  client: DeliveryClient;
  clock: WebhookClock;
  /**
   * The state changed (cursor, status, log): save it. `now` when a failed attempt set when the next is due: a crash
   * before a batched save would forget it, and the restart would send the message again at once (API.md §13).
   */
  changed(now?: boolean): void;
  /** The name of the log in message ids. */
  logId(): string;
  /** The webhook became failing (for the log line). */
  failed?(webhook: WebhookState): void;
  /** Messages after `afterSeq` up to `throughSeq` were gone from the log before delivery (for the log line). */
  lost?(webhook: WebhookState, afterSeq: number, throughSeq: number): void;
  /** True while sending is held (acknowledged progress could not be saved); the lane is poked again when it is not. */
  holding?(): boolean;
}

/** How often a retry due after a restart, timed on the wall clock, looks at that clock again. */
const SAVED_RETRY_LOOK_MS = 10_000;

/** Drives one webhook's state: `poke()` whenever a message may be ready, `stop()` to abandon what is in flight. */
export class DeliveryLane {
  readonly state: WebhookState;
  readonly #deps: LaneDeps;
  #inFlight: SentAttempt | undefined;
  /** Signs with the secret's bytes, decoded once. */
  readonly #sign: (messageId: string, nowMs: number, body: string) => Record<string, string>;
  #retryTimer: unknown;
  /** When the attempt in flight is given up (on the clock's `elapsed` time); its timer, armed while attempts are in flight. */
  #deadline = 0;
  #deadlineTimer: unknown;
  /** When the pending message of a saved state is due (a restart, or another instance taking the webhook over). */
  #savedRetryAt: number | undefined;
  #stopped = false;
  /** Called once the attempt in flight has its outcome, while the lane is finishing (see finishing). */
  #whenIdle: (() => void) | undefined;
  /** Whether the webhook asked for a message type (made once, not per message). */
  readonly #wanted = (type: string): boolean => this.state.events.includes(type);

  constructor(state: WebhookState, deps: LaneDeps) {
    this.state = state;
    this.#deps = deps;
    this.#sign = signer(state.secret);
    this.#savedRetryAt = savedRetryAt(state);
  }

  /** True while an attempt is on the wire. */
  get busy(): boolean {
    return this.#inFlight !== undefined;
  }

  /** Sends the next message if the webhook is active, idle and not waiting to retry. */
  poke(): void {
    if (this.#stopped || this.state.status !== 'active' || this.#inFlight !== undefined || this.#retryTimer !== undefined) return;
    if (this.#deps.holding?.() === true) return;
    if (this.#savedRetryAt !== undefined) {
      // The schedule saved before a restart goes on: wait out what is left of the delay, or go at once if overdue.
      // Its times are the wall clock's, so it is looked at again every 10 s: a clock put right after the start counts.
      const waitMs = this.#savedRetryAt - this.#deps.clock.now();
      if (waitMs > 0) return this.#retryIn(Math.min(waitMs, SAVED_RETRY_LOOK_MS));
      this.#savedRetryAt = undefined;
    }
    const backlog = this.#deps.backlog();
    if (backlog === undefined) return;
    const next = backlog.next(this.state.cursor, this.#wanted);
    if (next === undefined) return this.#skipToEnd(backlog);
    if (next.kind === 'message') return this.#send(next.message, next.lastOfLine);
    if (this.#deps.recover?.() === true) return;
    this.record({
      message_id: null,
      type: null,
      attempt: 0,
      status: 'failed',
      response_status: null,
      error: `messages after seq ${this.state.cursor.seq} up to seq ${next.through.seq} were compacted out of the log (or could not be read back) before delivery; they cannot be sent`,
      at: new Date(this.#deps.clock.now()).toISOString(),
    });
    this.#deps.lost?.(this.state, this.state.cursor.seq, next.through.seq);
    this.state.cursor = { ...next.through };
    // The message being retried went with the gap: the next one starts its own schedule.
    this.#freshSchedule();
    this.#deps.changed();
    // Past the gap another backlog may hold what follows (a catch-up ends where the shared one begins).
    this.poke();
  }

  /** Status set by an admin: `active` starts the retry schedule afresh; `paused` holds the messages. */
  setStatus(status: 'active' | 'paused'): void {
    this.state.status = status;
    this.#clearRetry();
    this.#savedRetryAt = undefined;
    if (status === 'active') this.#freshSchedule();
    this.poke();
  }

  /**
   * Applies an admin's change: a new status restarts the schedule (active) or holds it (paused), and so does a new url
   * of an active webhook (pointed at a receiver that works, its message goes there now, not at a retry hours away). An
   * attempt in flight to the old url is abandoned, as on a stop (not counted: the message is sent again, there). The
   * url sent back as read changes nothing.
   */
  redefine(input: WebhookInput): void {
    const moved = input.url !== undefined && input.url !== this.state.url;
    if (moved) {
      this.state.url = input.url!;
      const inFlight = this.#inFlight;
      this.#inFlight = undefined;
      this.#whenIdle?.();
      inFlight?.abort('the webhook was given another url');
    }
    if (input.events !== undefined) this.state.events = input.events;
    if (input.description !== undefined) this.state.description = input.description;
    const status = input.status ?? (moved && this.state.status === 'active' ? 'active' : undefined);
    if (status !== undefined) this.setStatus(status);
    else this.poke();
  }

  /** The next message starts the retry schedule from its beginning: no attempt yet, no failure. */
  #freshSchedule(): void {
    this.state.attempts = 0;
    this.state.firstFailureMs = null;
  }

  /**
   * Starts no attempt from now on; resolves once the one on the wire, if any, has its outcome (its deadline still
   * bounds it). A stop that waits for it a moment does not send again, after the start, a message already acknowledged.
   */
  finishing(): Promise<void> {
    this.#stopped = true;
    this.#clearRetry();
    return this.#inFlight === undefined ? Promise.resolve() : new Promise((resolve) => (this.#whenIdle = resolve));
  }

  /** Abandons the attempt in flight (it is sent again after the next start) and every timer. */
  stop(): void {
    this.#stopped = true;
    this.#clearRetry();
    if (this.#deadlineTimer !== undefined) this.#deps.clock.clearTimeout(this.#deadlineTimer);
    this.#deadlineTimer = undefined;
    // Forgotten before the abort: a client may report the aborted attempt at once, and an attempt the service
    // gave up on by stopping is no attempt (counted, it would put the message's next try one delay later).
    const inFlight = this.#inFlight;
    this.#inFlight = undefined;
    inFlight?.abort('the service stopped');
  }

  /** Nothing selected is left: the cursor moves past the messages the filter passed over, so the backlog can drop them. */
  #skipToEnd(backlog: MessageBacklog): void {
    // The live backlog ends at the newest line heard: past its last message, lines that make none (a series' own).
    const end = backlog.end ?? { seq: backlog.heardSeq, index: LINE_DONE };
    if (isAfter(end, this.state.cursor)) {
      this.state.cursor = { ...end };
      // Saved like a delivery: else a webhook whose events select nothing would read the same stretch back at every start.
      this.#deps.changed();
    }
    // A catch-up read to its end: the shared backlog (or the next stretch of the log) follows.
    if (backlog.end !== undefined) this.poke();
  }

  #send(message: WebhookMessage, lastOfLine: boolean): void {
    const { clock, client } = this.#deps;
    const attempt = this.state.attempts + 1;
    const body = message.sentBody();
    const messageId = message.idIn(this.#deps.logId());
    const sentAt = clock.now();
    const sent: SentAttempt = client.send({ url: this.state.url, headers: this.#sign(messageId, sentAt, body.text), body: body.text, bodyLength: body.length }, (outcome) => this.#answered(sent, outcome, message, lastOfLine, messageId, attempt));
    this.#inFlight = sent;
    this.#deadline = elapsedOn(this.#deps.clock) + ATTEMPT_TIMEOUT_MS;
    this.#deadlineTimer ??= this.#deps.clock.setTimeout(() => this.#deadlinePassed(), ATTEMPT_TIMEOUT_MS);
  }

  #answered(sent: SentAttempt, outcome: AttemptOutcome, message: WebhookMessage, lastOfLine: boolean, messageId: string, attempt: number): void {
    if (this.#inFlight !== sent) return;
    this.#inFlight = undefined;
    this.#whenIdle?.();
    const nowMs = this.#deps.clock.now();
    this.record({ message_id: messageId, type: message.type, attempt, status: outcome.ok ? 'succeeded' : 'failed', response_status: outcome.responseStatus, error: outcome.error, at: new Date(nowMs).toISOString() });
    if (outcome.ok) {
      this.state.cursor = { seq: message.seq, index: lastOfLine ? LINE_DONE : message.index };
      this.#freshSchedule();
      this.#deps.changed();
      this.poke();
      return;
    }
    this.state.attempts = attempt;
    this.state.firstFailureMs ??= nowMs;
    const retryAt = nextAttemptAt(attempt, this.state.firstFailureMs, nowMs);
    if (retryAt === undefined) {
      this.state.status = 'failing';
      this.#deps.failed?.(this.state);
    } else if (this.state.status === 'active') {
      this.#retryIn(retryAt - nowMs);
    }
    this.#deps.changed(true);
  }

  /**
   * The lane's one deadline timer came due. It is not set per attempt: armed for the first, it finds on firing the
   * deadline of the attempt then in flight, and waits on for what is left of it (or gives it up).
   */
  #deadlinePassed(): void {
    this.#deadlineTimer = undefined;
    if (this.#inFlight === undefined) return;
    const leftMs = this.#deadline - elapsedOn(this.#deps.clock);
    if (leftMs > 0) {
      this.#deadlineTimer = this.#deps.clock.setTimeout(() => this.#deadlinePassed(), leftMs);
      return;
    }
    this.#inFlight.abort(`no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`);
  }

  /** Notes an attempt (or a gap) in the delivery log, newest first, the last 100. */
  record(entry: DeliveryRecord): void {
    this.state.deliveries.unshift(entry);
    if (this.state.deliveries.length > DELIVERY_LOG_SIZE) this.state.deliveries.length = DELIVERY_LOG_SIZE;
  }

  #retryIn(waitMs: number): void {
    this.#retryTimer = this.#deps.clock.setTimeout(() => {
      this.#retryTimer = undefined;
      this.poke();
    }, waitMs);
  }

  #clearRetry(): void {
    if (this.#retryTimer === undefined) return;
    this.#deps.clock.clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
  }
}
