// An app on PostgreSQL that starts over on a promoted standby: API.md §12 has every instance follow it within 10 s,
// with no restart. Asynchronous replication may have left it without writes this instance's views hold, and written
// to, it would hand out those writes' sequence numbers again; so the app is opened afresh on it, as a restart would,
// and takes the requests from then on while the old one answers those it holds and closes. Requests
// that arrive while it opens wait for it (a few seconds at most): the old app could only refuse their writes, and serve
// reads of what the promoted server may have lost, on rate-limit slots that lapse while it cannot lease.
import type { IncomingMessage } from 'node:http';
import type { App } from './app-types.js';
import type { Logger } from './log/logger.js';

/** Opens one app; `onPromoted` is to be called whenever its store finds a standby promoted since the server it writes to. */
export type OpenOnce = (onPromoted: () => void, open: { first: boolean }) => Promise<App>;

/** How long a request waits, at most, for an app opening on a promoted standby before the old app answers it. */
export const HOLD_MS = 5_000;

/** How long close() waits, at most, for an app opening on a promoted standby (closed once open), or the one it replaced. */
export const CLOSE_WAIT_MS = 2_000;

/** Calls `then` after `ms`; what it returns cancels the call. Injected by tests. */
export type Timer = (ms: number, then: () => void) => () => void;

const realTimer: Timer = (ms, then) => {
  const timer = setTimeout(then, ms);
  return () => clearTimeout(timer);
};

/** A request whose client went away while it waited is let go, as one that goes away in the middle of its body is. */
function unlessGone(req: IncomingMessage, then: () => void): () => void {
  return () => {
    if (!req.destroyed) then();
  };
}

/** What followingApp logs to, and its timer (tests fire it by hand). */
export interface FollowingOptions {
  logger: Pick<Logger, 'info' | 'warn'>;
  timer?: Timer;
}

/** An app whose requests go to the newest of the apps `open` made: the first, then one per such promotion. */
export async function followingApp(open: OpenOnce, options: FollowingOptions): Promise<App> {
  const { logger, timer = realTimer } = options;
  let current: App | undefined;
  /** Counts the apps opened: only the current one's report is heeded (the old one reports until it is closed). */
  let generation = 0;
  let opening: Promise<void> | undefined;
  let draining = false;
  let closing: Promise<void> | undefined;
  /** While an app opens: the requests waiting for it, let go when it is open, failed, HOLD_MS passed, or on a stop. */
  let held: { waiting: (() => void)[]; cancel: () => void } | undefined;
  /** An opening failed: the next one, tried at the next probe, holds no request (it may fail as slowly again). */
  let lastFailed = false;
  const release = (): void => {
    const was = held;
    held = undefined;
    was?.cancel();
    for (const go of was?.waiting ?? []) {
      try {
        go();
      } catch (error) {
        logger.warn('a request held during a start-over could not be handed on', { error: String(error) });
      }
    }
  };
  /** Runs `then` on the app current once no opening holds requests. */
  const whenOpen = (then: () => void): void => {
    if (held === undefined) then();
    else held.waiting.push(then);
  };
  const reportOf = (made: number) => () => {
    if (made === generation) startOver();
  };
  // A report before the first app is open (its store found the promotion while starting) waits for the store's next
  // probe; one while stopping is not heeded: the server is going away anyway.
  const startOver = (): void => {
    const old = current;
    if (old === undefined || opening !== undefined || draining || closing !== undefined) return;
    if (!lastFailed) held = { waiting: [], cancel: timer(HOLD_MS, release) };
    opening = (async () => {
      let next: App;
      try {
        next = await open(reportOf(generation + 1), { first: false });
      } catch (error) {
        lastFailed = true;
        logger.warn('could not start over on the promoted standby; trying again at its next probe', { error: String(error) });
        return;
      }
      lastFailed = false;
      if (closing !== undefined) {
        await next.close();
        return;
      }
      current = next;
      generation++;
      if (draining) next.drain();
      // Before the old app is drained: what waited goes to the new one.
      release();
      logger.info('started over on the promoted standby: its log is the one served and written to now');
      old.drain();
      await old.close();
    })()
      .catch((error: unknown) => logger.warn('an app replaced on a promotion did not close cleanly', { error: String(error) }))
      .finally(() => {
        opening = undefined;
        release();
      });
  };
  const first = await open(reportOf(0), { first: true });
  current = first;
  const now = (): App => current ?? first;
  return {
    handler: (req, res) => whenOpen(unlessGone(req, () => now().handler(req, res))),
    checkContinue: (req, res) => whenOpen(unlessGone(req, () => now().checkContinue(req, res))),
    clientError: (error, socket) => now().clientError(error, socket),
    handle: (request) => (held === undefined ? now().handle(request) : new Promise<void>((resolve) => whenOpen(resolve)).then(() => now().handle(request))),
    initialAdminKey: first.initialAdminKey,
    drain() {
      draining = true;
      // What waited came before the stop: the app answering takes it as in flight, then drains.
      release();
      now().drain();
    },
    answerUnfinished: () => now().answerUnfinished(),
    get store() {
      return now().store;
    },
    createKey: (owner) => now().createKey(owner),
    close() {
      release();
      closing ??= (async () => {
        // The app answering closes at once. One still opening closes once open (see startOver), waited for here only
        // CLOSE_WAIT_MS: opened on a server that does not answer, it would hold a stop for as long. (Just after a
        // swap, the wait covers the replaced app's close, which goes on meanwhile; the server's stop ends at 16 s.)
        const openingNow = opening;
        const opened = openingNow === undefined ? undefined : new Promise<void>((resolve) => {
          const cancel = timer(CLOSE_WAIT_MS, resolve);
          void openingNow.finally(() => {
            cancel();
            resolve();
          });
        });
        await Promise.all([now().close(), opened]);
      })();
      return closing;
    },
  };
}
