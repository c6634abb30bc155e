// With several instances (API.md §12), an id this instance has not seen yet may exist, and a change-feed position
// another instance gave may be ahead of this one: catch up once before a 404 or a 410, and answer 503 when the
// database cannot say.
import { ApiError } from './errors.js';
import type { Route } from './route.js';

/**
 * The shape of every id an instance makes (`evt_`, `ser_`, `reg_`, `whk_` and 22 letters and digits; 16 or more in
 * data from before): no instance wrote an id of any other shape, so its 404 is certain from memory, database or not.
 */
const MADE_ID = /^[a-z]{3}_[0-9A-Za-z]{16,64}$/;

/** A store that can read what other instances committed, now (the PostgreSQL store). */
export interface CatchingUp {
  /**
   * Applies every record committed so far; resolves true when it applied any, false when there was none. Rejects
   * (a 503) when it cannot tell, the database being out of reach: a 404 or 410 from memory alone could be false.
   */
  catchUpBeforeDenying(): Promise<boolean>;
}

/**
 * The route, answering a `not_found` or a `gone` only after the store caught up: an event created a moment ago on
 * another instance is found, not denied, and a `since` or copy token another instance gave (newer than what this one
 * has applied) reads on; cut off from the database, the answer is the 503 of §12, not a denial that may be false.
 * Neither answer writes anything, so the handler may run again; a known id costs nothing, and an id no instance
 * could have made (`/events/nope`) is a 404 at once, the database away or not.
 */
export function freshOnNotFound(route: Route, store: CatchingUp): Route {
  const again = async (error: unknown, context: Parameters<Route['handle']>[0]): Promise<Awaited<ReturnType<Route['handle']>>> => {
    if (!(error instanceof ApiError) || (error.code !== 'not_found' && error.code !== 'gone')) throw error;
    if (Object.values(context.params).some((value) => !MADE_ID.test(value))) throw error;
    if (!(await store.catchUpBeforeDenying())) throw error;
    return route.handle(context);
  };
  return {
    ...route,
    // A synchronous answer stays synchronous: only a 404 waits for the database.
    handle: (context) => {
      try {
        const result = route.handle(context);
        return result instanceof Promise ? result.catch((error: unknown) => again(error, context)) : result;
      } catch (error) {
        return again(error, context);
      }
    },
  };
}
