// An app on PostgreSQL that starts over on a promoted standby: API.md §12 has every instance follow it within 10 s,
// with no restart. Asynchronous replication may have left it without writes this instance's views hold, and written
// to, it would hand out those writes' sequence numbers again; so the app is opened afresh on it, as a restart would,
// and takes the requests from then on while the old one finishes those it has and closes.
import type { App } from './app-types.js';
import type { Logger } from './log/logger.js';

/** Opens one app; `onPromoted` is to be called whenever its store finds a standby promoted since the server it writes to. */
export type OpenOnce = (onPromoted: () => void, first: boolean) => Promise<App>;

/** An app whose requests go to the newest of the apps `open` made: the first, then one per such promotion. */
export async function followingApp(open: OpenOnce, logger: Pick<Logger, 'info' | 'warn'>): Promise<App> {
  let current: App;
  /** Counts the apps opened: only the current one's report is heeded (the old one reports until it is closed). */
  let generation = 0;
  let opening: Promise<void> | undefined;
  let closing: Promise<void> | undefined;
  const reportOf = (made: number) => () => {
    if (made === generation) startOver();
  };
  const startOver = (): void => {
    if (opening !== undefined || closing !== undefined) return;
    opening = (async () => {
      const old = current;
      let next: App;
      try {
        next = await open(reportOf(generation + 1), false);
      } catch (error) {
        // The next time the store finds the standby again (its next probe), it is tried again.
        logger.warn('could not start over on the promoted standby; trying again', { error: String(error) });
        return;
      }
      if (closing !== undefined) {
        await next.close();
        return;
      }
      current = next;
      generation++;
      logger.info('started over on the promoted standby: its log is the one served and written to now');
      old.drain();
      await old.close();
    })().finally(() => (opening = undefined));
  };
  current = await open(reportOf(0), true);
  const first = current;
  return {
    handler: (req, res) => current.handler(req, res),
    checkContinue: (req, res) => current.checkContinue(req, res),
    clientError: (error, socket) => current.clientError(error, socket),
    handle: (request) => current.handle(request),
    initialAdminKey: first.initialAdminKey,
    drain: () => current.drain(),
    answerUnfinished: () => current.answerUnfinished(),
    get store() {
      return current.store;
    },
    createKey: (owner) => current.createKey(owner),
    close() {
      closing ??= (async () => {
        await opening;
        await current.close();
      })();
      return closing;
    },
  };
}
