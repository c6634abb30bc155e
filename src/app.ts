// createApp(options): wires the store, keys, limits and routes into {handler, close} for node:http.
import { randomBytes as cryptoRandomBytes } from 'node:crypto';
import { pooledRandomBytes } from './lib/pooled-random.js';
import { steadyNow } from './lib/steady-clock.js';
import path from 'node:path';
import { Router } from './http/router.js';
import type { Route } from './http/route.js';
import { CorsPolicy } from './http/cors.js';
import { ApiError } from './http/errors.js';
import { answerClientError, toNodeListener } from './http/node-adapter.js';
import { followingApp } from './following-app.js';
import { UnfinishedBodies } from './http/unfinished-bodies.js';
import { StallGuard } from './lib/stall-guard.js';
import { createPipeline } from './pipeline.js';
import { hashSecret, KEY_ID_PREFIX } from './auth/api-key.js';
import { ensureAdminKey, ensureAdminKeyIn, forgetKey, KeyRegistry } from './auth/key-registry.js';
import { BUCKETS_PER_WINDOW, SlidingWindowLimiter } from './limits/sliding-window.js';
import { restoreLimits, saveLimits } from './limits/saved-limits.js';
import { LeasedWindowLimiter } from './limits/leased-window.js';
import { AuthFailureThrottle, leasedAuthFailures } from './limits/auth-failures.js';
import { eventRoutes } from './events/handlers.js';
import { reviewRoutes } from './events/review-routes.js';
import { freshOnNotFound } from './http/fresh-on-not-found.js';
import { calendarRoute } from './feeds/calendar-route.js';
import { registrationRoutes } from './registrations/registration-routes.js';
import { seriesRoutes } from './series/series-routes.js';
import { meRoute } from './auth/me-route.js';
import { changesRoute } from './feeds/changes-route.js';
import { ChangeStreams, type StreamTimers } from './feeds/change-stream.js';
import { IdempotencyGuard, idempotencyQuota } from './feeds/idempotency.js';
import type { EventStore } from './store/event-store.js';
import { MemoryStore } from './store/memory/memory-store.js';
import { DEFAULT_COMPACT_MIN_BYTES } from './store/file/open-file-store.js';
import { openFileStoreOrReadOnly } from './store/file/open-or-read-only.js';
import { openPostgresStore } from './store/postgres/open-postgres-store.js';
import { isPostgresUrl } from './store/postgres/client.js';
import type { FileSystemSeam } from './store/file/file-system.js';
import { openApiDocument } from './openapi/document.js';
import { CONSOLE_DIR, loadConsoleAssets, withConsoleSettings } from './console/console-assets.js';
import { consolePathHeaders, consoleRoutes, isConsolePattern } from './console/console-routes.js';
import { silentLogger } from './log/logger.js';
import type { Principal } from './auth/principal.js';
import type { App } from './app-types.js';
import { checkKeyOwner } from './auth/key-owner.js';
import { Problem } from './lib/checks.js';
import { openWebhooks, type WebhookInternals } from './webhooks/open-webhooks.js';
import { checkAppOptions, type AppOptions } from './app-options.js';

export type { AppOptions } from './app-options.js';

/**
 * Switches for this package's own tests and benchmarks: not exported from index.ts, and `createApp` never
 * passes them, so no embedder (and no production server) can turn durability or authentication off.
 */
export interface InternalOptions {
  /** Skip fdatasync (tests, and the benchmark's baseline for group commit). */
  unsafeNoSync?: boolean;
  /** The file operations of the event store, so a test can make the Nth fdatasync fail. Default node:fs. */
  fileSystem?: FileSystemSeam;
  /** Benchmark only: every route acts as an admin, with no key and no rate limit (the baseline for their cost). */
  unsafeNoAuth?: boolean;
  /** The folder of the console's files (tests). Default `dist/console/web/` beside the code. */
  consoleDir?: string;
  /** Test only (internal, not API): the timers of change streams (keep-alives, revocation checks). Default real ones. */
  streamTimers?: StreamTimers;
  /** Test only (internal, not API): the clock and HTTP client of webhook deliveries. Default real ones. */
  webhooks?: WebhookInternals;
  /** Benchmark only: build no search index, so `q` scans the list (the baseline for the index's cost). */
  noSearchIndex?: boolean;
}

export type { App, KeyOwner, NewKey } from './app-types.js';

/**
 * Builds the app over a data folder: takes its lock, replays its log, loads its keys. With `store: 'memory'`
 * it touches no disk at all: events and keys live in memory, and `dataDir` is not used.
 */
export function createApp(options: AppOptions = {}): Promise<App> {
  return openApp(options, {});
}

/**
 * createApp with the switches of this package's own tests and benchmarks (not exported from index.ts). On PostgreSQL
 * the app starts over on a promoted standby, as a restart would (see following-app.ts).
 */
export async function openApp(options: AppOptions, internal: InternalOptions): Promise<App> {
  checkAppOptions(options);
  if (options.store === undefined || !isPostgresUrl(options.store)) return openOnce(options, internal, undefined);
  // A key for a database without one is made by the first app only: one made later would never be shown.
  let firstApp: App | undefined;
  const app = await followingApp(async (onPromoted, { first }) => {
    const made = await openOnce(first ? options : { ...options, bootstrapAdminKey: false }, internal, onPromoted);
    if (first) firstApp = made;
    return made;
  }, { logger: options.logger ?? silentLogger });
  const forget = firstApp === undefined ? undefined : unshownKeys.get(firstApp);
  if (forget !== undefined) unshownKeys.set(app, forget);
  return app;
}

/** One app over one store; `onPromoted`: told when its PostgreSQL store finds a standby promoted since the server it writes to. */
async function openOnce(options: AppOptions, internal: InternalOptions, onPromoted: (() => void) | undefined): Promise<App> {
  const dataDir = path.resolve(options.dataDir ?? './data');
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? Date.now;
  // A pool, not a call into the system's random source for every id (see pooled-random.ts); an injected source is used as is.
  const randomBytes = options.randomBytes ?? pooledRandomBytes(cryptoRandomBytes);
  const rateLimit = options.rateLimit ?? 1000;
  const rateWindow = options.rateWindow ?? 3600;
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const timeZone = options.timeZone ?? 'UTC';
  const approval = options.approval ?? 'off';
  // Read before the folder's lock is taken, so a failure here leaves nothing to release.
  const consoleAssets = options.console === false ? undefined : withConsoleSettings(await loadConsoleAssets(internal.consoleDir), { timeZone, approval });
  if (consoleAssets?.size === 0) logger.warn('this build has no console files: /console/ answers 404 until it is built with make build (tsc alone does not copy them)', { dir: internal.consoleDir ?? CONSOLE_DIR });

  const postgres = options.store !== undefined && isPostgresUrl(options.store) ? await openPostgresStore({ url: options.store, logger, now, compactMinBytes: options.compactMinBytes ?? DEFAULT_COMPACT_MIN_BYTES, holdAtStart: true, onPromoted }) : undefined;
  const store: EventStore =
    postgres !== undefined
      ? postgres
      : options.store === 'memory'
      ? new MemoryStore({ now })
      : await openFileStoreOrReadOnly({
          dataDir,
          logger,
          now,
          sync: internal.unsafeNoSync !== true,
          compactMinBytes: options.compactMinBytes ?? DEFAULT_COMPACT_MIN_BYTES,
          fs: internal.fileSystem,
          searchIndex: internal.noSearchIndex !== true,
        });
  let webhooks: Awaited<ReturnType<typeof openWebhooks>>;
  try {
    webhooks = await openWebhooks({ store, dataDir, memory: options.store === 'memory', sync: internal.unsafeNoSync !== true, hosts: options.webhookHosts ?? [], randomBytes, logger, internal: internal.webhooks });
    // The webhooks now hold back the checkpoints that would drop what they still need.
    postgres?.releaseStart();
  } catch (error) {
    await store.close();
    throw error;
  }

  // The first admin key is made after everything else here that can refuse the start, so a start refused by what it
  // opens (a damaged webhooks.json) leaves no key that was never shown: the next start makes and prints one.
  let keys: KeyRegistry;
  let initialAdminKey: string | undefined;
  try {
    if (postgres !== undefined) {
      if (options.bootstrapAdminKey !== false) initialAdminKey = await ensureAdminKeyIn(postgres.keys, { randomBytes, now });
      keys = await KeyRegistry.fromSource(postgres.keys, { pollMs: options.keyPollMs ?? 1000 });
    } else if (options.store === 'memory') {
      keys = KeyRegistry.inMemory();
      if (options.bootstrapAdminKey !== false) initialAdminKey = (await keys.create(FIRST_ADMIN, { randomBytes, now })).secret;
    } else {
      if (options.bootstrapAdminKey !== false) initialAdminKey = await ensureAdminKey(dataDir, { randomBytes, now });
      keys = await KeyRegistry.open(dataDir, { pollMs: options.keyPollMs ?? 1000, warn: (message, fields) => logger.warn(message, fields) });
    }
  } catch (error) {
    await webhooks.service.close();
    await store.close();
    throw error;
  }

  const router = new Router<Route>();
  const idempotency = new IdempotencyGuard(store, now, { quota: idempotencyQuota(rateLimit, rateWindow) });
  const streams = new ChangeStreams({
    source: store.changes,
    // The benchmark's stand-in key is in no keys.json; without authentication there is nothing to revoke.
    isKeyLive: internal.unsafeNoAuth === true ? () => true : (keyId) => keys.isLive(keyId),
    timers: internal.streamTimers,
    shared: postgres?.streamSlots,
  });
  for (const { method, pattern, route } of [
    ...eventRoutes({ store, now, randomBytes, idempotency, timeZone, approval }),
    ...reviewRoutes({ store }),
    ...registrationRoutes({ store, now, randomBytes, idempotency }),
    ...seriesRoutes({ store, now, randomBytes, idempotency, timeZone, approval }),
    changesRoute({ source: store.changes, streams, now }),
    ...webhooks.routes,
  ]) {
    const fresh = postgres === undefined ? route : freshOnNotFound(route, postgres);
    router.add(method, pattern, internal.unsafeNoAuth === true ? withoutAuth(fresh) : fresh);
  }
  const feed = calendarRoute({ store, now, timeZone });
  router.add(feed.method, feed.pattern, feed.route);
  router.add('GET', '/me', meRoute);
  router.add('GET', '/health', {
    name: 'health',
    auth: false,
    body: false,
    handle: () => {
      if (!store.writable) {
        const why = store.unwritableReason ?? 'a write failed, e.g. disk full';
        const after = postgres !== undefined ? 'The server keeps retrying by itself.' : 'Restart the server once the cause is fixed.';
        throw new ApiError('unavailable', `The store cannot write (${why}); reads still work. ${after}`);
      }
      return { status: 200, body: '{"status":"ok"}' };
    },
  });
  let openApiJson: string | undefined;
  router.add('GET', '/openapi.json', {
    name: 'openapi',
    auth: false,
    body: false,
    // The console's pages are for browsers, not API operations: the document leaves them out.
    handle: () => ({ status: 200, body: (openApiJson ??= JSON.stringify(openApiDocument(router.routes().filter((entry) => !isConsolePattern(entry.pattern)), { rateLimit, rateWindow }, { basePath }))) }),
  });

  if (consoleAssets !== undefined) for (const { method, pattern, route } of consoleRoutes(consoleAssets)) router.add(method, pattern, route);

  // On PostgreSQL the limit counts over every instance: slots are leased from the database in batches.
  const leased = postgres === undefined ? undefined : new LeasedWindowLimiter({ limit: rateLimit, windowMs: rateWindow * 1000, source: postgres.rateLeases, clock: now, keyPrefix: KEY_ID_PREFIX });
  // And so do failed authentications, per address: 100 in 15 minutes over all instances (API.md §6, §12).
  const leasedFailures = postgres === undefined ? undefined : leasedAuthFailures(postgres.rateLeases, now);
  const sweep = leased === undefined ? undefined : setInterval(() => {
    void leased.sweep(now());
    void leasedFailures?.sweep(now());
  }, Math.min(1000, (rateWindow * 1000) / BUCKETS_PER_WINDOW));
  sweep?.unref();
  // On several instances, one that stood still (SIGSTOP, a paused VM) catches up before it answers again.
  const stalls = postgres === undefined ? undefined : new StallGuard({ catchUp: () => Promise.all([postgres.catchUp(), keys.refresh()]) });
  const cors = new CorsPolicy(options.corsOrigins ?? []);
  // Windows measure time passing: this instance's own limits count on a clock no wall-clock step moves. Those
  // leased from PostgreSQL count on the instances' wall clocks, which share the database's sixtieths of a window.
  const limitNow = options.now ?? (leased === undefined ? steadyNow : Date.now);
  // A request that found a key's window full asks every instance for the slots of it they hold unused.
  const stopAskBack = await postgres?.rateLeases.onAskedBack((key) => [leased, leasedFailures].forEach((each) => each?.yieldKey(key, limitNow()))).catch(() => undefined);
  const limiter = new SlidingWindowLimiter({ limit: rateLimit, windowMs: rateWindow * 1000 });
  const authFailures = new AuthFailureThrottle();
  // A data folder keeps its limits across a stop (on PostgreSQL the database holds them; memory keeps nothing).
  const folderLimits = postgres === undefined && options.store !== 'memory' ? { limiter, throttle: authFailures } : undefined;
  if (folderLimits !== undefined) await restoreLimits(dataDir, folderLimits, limitNow(), (message, fields) => logger.warn(message, fields));
  // A folder started read-only (no room) is left as it was: another server may have taken it over since.
  const limitsToSave = store.writable ? folderLimits : undefined;
  const pipeline = createPipeline({
    router,
    keys,
    beforeRequest: stalls === undefined ? undefined : () => stalls.check(),
    limiter: leased ?? limiter,
    authFailures,
    sharedAuthFailures: leasedFailures,
    cors,
    logger,
    now: limitNow,
    rateWindowSeconds: rateWindow,
    requestIdPrefix: randomBytes(4).reduce((number, byte) => number * 256 + byte, 0).toString(36),
    basePath,
    pathHeaders: consoleAssets === undefined ? undefined : consolePathHeaders,
  });

  let closing: Promise<void> | undefined;
  const unfinished = new UnfinishedBodies();
  const app: App = {
    handler: toNodeListener(pipeline.handle, logger, { isDraining: pipeline.isDraining, unfinished }),
    checkContinue: toNodeListener(pipeline.handle, logger, { isDraining: pipeline.isDraining, mayReadBody: pipeline.mayReadBody, unfinished }),
    clientError: (error, socket) => answerClientError(error, socket, { addCors: (headers, origin) => cors.apply(headers, origin), handle: pipeline.handle, logger }),
    handle: pipeline.handle,
    initialAdminKey,
    drain() {
      pipeline.drain();
      // Streams never finish by themselves: end them cleanly, so the server can close their connections.
      void streams.closeAll();
    },
    answerUnfinished: () => unfinished.answerAll(),
    store,
    async createKey(owner) {
      // As every request after close() gets 503: a closed app no longer holds its folder, so it writes no key there.
      if (closing !== undefined) throw new Error('createKey: the app is closed; open it again (or use campus-events-cli keys create) to make a key');
      const checked = checkKeyOwner(owner);
      if (checked instanceof Problem) throw new TypeError(`createKey: ${checked.message}`);
      const { record, secret } = await keys.create(checked, { randomBytes, now });
      return { id: record.id, key: secret, name: record.name, email: record.email, role: record.role };
    },
    close() {
      closing ??= (async () => {
        pipeline.drain();
        await streams.closeAll();
        keys.close();
        stalls?.close();
        clearInterval(sweep);
        await stopAskBack?.();
        await leased?.close();
        await leasedFailures?.close();
        await webhooks.service.close();
        if (limitsToSave !== undefined) await saveLimits(dataDir, limitsToSave, { sync: internal.unsafeNoSync !== true, warn: (message, fields) => logger.warn(message, fields) });
        await store.close();
        logger.flush();
      })();
      return closing;
    },
  };
  if (initialAdminKey !== undefined && options.store !== 'memory') {
    const hash = hashSecret(initialAdminKey);
    unshownKeys.set(app, postgres !== undefined ? () => postgres.keys.forget(hash) : () => forgetKey(dataDir, hash));
  }
  return app;
}

/** How to take back the first admin key an app made, by app: its start may fail before the key is shown. */
const unshownKeys = new WeakMap<App, () => Promise<void>>();

/**
 * Removes the first admin key `app` made, when it made one (in memory it goes with the app): startServer's listen
 * failed, so the key was never shown, and the next start, finding none, makes and prints one. Before `app.close()`.
 */
export function forgetInitialAdminKey(app: App): Promise<void> {
  return unshownKeys.get(app)?.() ?? Promise.resolve();
}

/** The owner of the admin key a new folder (or a memory app) starts with. */
const FIRST_ADMIN = { name: 'Administrator', email: 'admin@campus.local', role: 'admin' } as const;

/** Benchmark only: the route with no key and no rate limit, its handler acting as an admin. */
function withoutAuth(route: Route): Route {
  if (!route.auth) return route;
  const principal: Principal = { keyId: 'key_benchmark', name: 'Benchmark', email: 'bench@campus.local', role: 'admin' };
  return { ...route, auth: false, handle: (context) => route.handle({ ...context, principal }) };
}
