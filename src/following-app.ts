// An app on PostgreSQL that starts over on a promoted standby: API.md §12 has every instance follow it within 10 s,
// with no restart. Asynchronous replication may have left it without writes this instance's views hold, and written
// to, it would hand out those writes' sequence numbers again; so the app is opened afresh on it, as a restart would,
// and takes the requests from then on while the old one answers those it holds (writes with 503) and closes.
import type { App } from './app-types.js';
import type { Logger } from './log/logger.js';

/** Opens one app; `onPromoted` is to be called whenever its store finds a standby promoted since the server it writes to. */
export type OpenOnce = (onPromoted: () => void, open: { first: boolean }) => Promise<App>;

/** An app whose requests go to the newest of the apps `open` made: the first, then one per such promotion. */
export async function followingApp(open: OpenOnce, logger: Pick<Logger, 'info' | 'warn'>): Promise<App> {
  let current: App | undefined;
  /** Counts the apps opened: only the current one's report is heeded (the old one reports until it is closed). */
  let generation = 0;
  let opening: Promise<void> | undefined;
  let draining = false;
  let closing: Promise<void> | undefined;
  const reportOf = (made: number) => () => {
    if (made === generation) startOver();
  };
  // A report before the first app is open (its store found the promotion while starting) waits for the store's next
  // probe; one while stopping is not heeded: the server is going away anyway.
  const startOver = (): void => {
    const old = current;
    if (old === undefined || opening !== undefined || draining || closing !== undefined) return;
    opening = (async () => {
      let next: App;
      try {
        next = await open(reportOf(generation + 1), { first: false });
      } catch (error) {
        logger.warn('could not start over on the promoted standby; trying again at its next probe', { error: String(error) });
        return;
      }
      if (closing !== undefined) {
        await next.close();
        return;
      }
      current = next;
      generation++;
      if (draining) next.drain();
      logger.info('started over on the promoted standby: its log is the one served and written to now');
      old.drain();
      await old.close();
    })()
      .catch((error: unknown) => logger.warn('an app replaced on a promotion did not close cleanly', { error: String(error) }))
      .finally(() => (opening = undefined));
  };
  const first = await open(reportOf(0), { first: true });
  current = first;
  const now = (): App => current ?? first;
  return {
    handler: (req, res) => now().handler(req, res),
    checkContinue: (req, res) => now().checkContinue(req, res),
    clientError: (error, socket) => now().clientError(error, socket),
    handle: (request) => now().handle(request),
    initialAdminKey: first.initialAdminKey,
    drain() {
      draining = true;
      now().drain();
    },
    answerUnfinished: () => now().answerUnfinished(),
    get store() {
      return now().store;
    },
    createKey: (owner) => now().createKey(owner),
    close() {
      closing ??= (async () => {
        await opening;
        await now().close();
      })();
      return closing;
    },
  };
}
