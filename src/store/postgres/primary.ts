// The connection pool to the primary among the URL's hosts: every new connection is checked to be on a primary, and a lost one is looked for again.
import type pgType from 'pg';
import { findPrimary, parseStoreUrl, type HostRole, type StoreUrl } from './hosts.js';
import { errorCode } from '../../lib/error-code.js';

/** A pooled connection as the store uses it: pg's, with the socket pg-pool itself destroys on a time-out. */
export type SessionClient = pgType.PoolClient & { connection?: { stream: { destroy(): void } } };

/** Options of a PrimaryPool. */
export interface PrimaryPoolOptions {
  max: number;
  connectTimeoutMs: number;
  /** Client and session settings every connection gets (see SESSION_SETTINGS in client.ts). */
  session: Readonly<Record<string, string | number | boolean>>;
  /** Told when the pool moves to another host. */
  onSwitch?: ((from: string, to: string) => void) | undefined;
  /** The newest seq this instance has applied: a primary whose log ends before it is not moved to. */
  appliedSeq?: (() => number) | undefined;
  /** Told when a primary is not moved to: its log ends before `applied`, or it is a former primary (each host and end once). */
  onStalePrimary?: ((stale: FoundPrimary) => void) | undefined;
  /**
   * Told, every time it is found, of a primary on a newer timeline than the server written to: a standby promoted since.
   * The instance starts over on its log, as a restart would (API.md §12: every instance follows a promoted standby, with
   * no restart), and this pool does not move to it. Without it, the pool moves as to any other primary.
   */
  onPromoted?: ((promoted: FoundPrimary) => void) | undefined;
  /**
   * Told when another host of the URL is a primary too (a split brain), once per start of it: with this set and several
   * hosts, the others are probed every SECOND_PRIMARY_WATCH_MS while the instance runs.
   */
  onSecondPrimary?: ((writing: string, other: string) => void) | undefined;
}

/** A primary found among the URL's hosts, not the one written to: where its log ends (-1: not asked), and what this instance has read. */
export interface FoundPrimary {
  host: string;
  logEnd: number;
  applied: number;
}

/** Why writes are refused while the database written to is away (`down`), and only a stale primary answers, if one does. */
export function downReason(down: string, stale: FoundPrimary | undefined): string {
  if (stale === undefined) return `the database cannot be reached: ${down}; retrying`;
  return `the database written to cannot be reached (${down}), and the only primary that answers, ${stale.host}, holds an older log (it ends at seq ${stale.logEnd}; this instance has read ${stale.applied}): not writing to it. Bring back the server written to, or restart the instances to accept that log (the writes after seq ${stale.logEnd} are lost)`;
}

/**
 * The name of the WAL file being written on a primary (null on a standby): its first 8 hex digits are the server's
 * timeline, which a promotion moves on by one, so a promoted standby's is newer than that of the primary it followed.
 */
const TIMELINE = 'SELECT CASE WHEN pg_is_in_recovery() THEN NULL ELSE pg_walfile_name(pg_current_wal_lsn()) END AS walfile';

/** The newest seq in a server's log: its last row's, or its newest checkpoint's when that dropped every row. */
const LOG_END = 'SELECT greatest((SELECT max(seq) FROM campus_log), (SELECT max(seq) FROM campus_checkpoints), 0)::float8 AS last';

/** The timeline in a WAL file's name; 0 when none is known (a standby, or a name not as expected). */
function timelineOf(row: { walfile?: string | null } | undefined): number {
  const walfile = row?.walfile;
  return typeof walfile === 'string' && /^[0-9A-F]{24}$/i.test(walfile) ? Number.parseInt(walfile.slice(0, 8), 16) : 0;
}

/** How often the hosts may be probed again after a failure, at most. */
const REPROBE_MS = 500;

/** How often a running instance asks the other hosts whether one of them takes writes too. */
const SECOND_PRIMARY_WATCH_MS = 5_000;

/**
 * True for an error the server reported for a statement on a connection that goes on (severity ERROR): the statement,
 * and a transaction it was in, took no effect. False for a lost connection, a FATAL, or a deadline of ours.
 */
export function isStatementError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { severity?: unknown }).severity === 'ERROR';
}

/** The host may no longer be the primary: the connection failed, or it refused a write as a standby does. */
function lostPrimary(error: unknown): boolean {
  return !isStatementError(error) || errorCode(error) === '25006';
}

/**
 * One pg Pool at a time, to the host of the URL found to be a primary (not in recovery), tried in the URL's order:
 * node-postgres knows one host, so `target_session_attrs=read-write` is done here. Each new connection is checked
 * (a server that became a standby is left at once) and notes its server's identity, which tells a restarted or
 * promoted server from the one a lost COMMIT was sent to. When a query fails as if the primary were lost, the hosts
 * are probed again (at most every 500 ms) and the pool moves to the first primary, so a promoted standby is followed
 * without a restart; the LISTEN connection follows through onSwitch.
 */
export class PrimaryPool {
  readonly #pg: typeof pgType;
  readonly #url: StoreUrl;
  readonly #options: PrimaryPoolOptions;
  /** The server identity of each pooled connection: its postmaster's start time. */
  readonly #servers = new WeakMap<object, string>();
  /** The timeline of the server written to, as its last new connection found it (0: not known, or not told). */
  #timeline = 0;
  /** The host found promoted since the server written to (reported to onPromoted): the pool never moves to it. */
  #promoted: number | undefined;
  readonly #listeners = new Set<() => void>();
  #index = 0;
  #pool: pgType.Pool | undefined;
  #probing: Promise<void> | undefined;
  /** The stale primary last reported (host index and log end), so a host probed every 0.5 s is reported once. */
  #staleSeen: string | undefined;
  /** A primary not moved to since the server written to was away; forgotten once that one (or another) is connected to. */
  #stale: FoundPrimary | undefined;
  #probedAt = -Infinity;
  #ended = false;
  /** The timer of the look for a second primary (with several hosts and onSecondPrimary). */
  #watch: NodeJS.Timeout | undefined;
  /** The look under way, which end() waits for. */
  #looking: Promise<void> | undefined;
  /** Wakes each connect() waiting on the current pool when the pool moves to another host. */
  readonly #waiting = new Set<() => void>();
  /** The second primaries already reported, as `host index:server identity` (a server started again is told again). */
  readonly #secondPrimaries = new Set<string>();

  constructor(pg: typeof pgType, url: string, options: PrimaryPoolOptions) {
    this.#pg = pg;
    this.#url = parseStoreUrl(url);
    this.#options = options;
  }

  /** Finds the primary (with several hosts; one host is simply used) and opens the pool to it. */
  async start(): Promise<void> {
    if (this.#url.hosts.length > 1) this.#index = await findPrimary(this.#url.hosts.length, (i) => this.#probe(i), (i) => this.#url.nameOf(i));
    this.#pool = this.#open(this.#index);
    if (this.#url.hosts.length > 1 && this.#options.onSecondPrimary !== undefined) {
      this.#watch = setInterval(() => {
        if (this.#looking !== undefined || this.#probing !== undefined || this.#ended) return;
        this.#looking = this.#lookForSecondPrimary()
          .catch(() => undefined)
          .finally(() => (this.#looking = undefined));
      }, SECOND_PRIMARY_WATCH_MS).unref();
    }
  }

  /** The pool of the current primary. */
  get pool(): pgType.Pool {
    if (this.#pool === undefined) throw new Error('PrimaryPool.start was not called');
    return this.#pool;
  }

  /**
   * A connection from the current primary's pool. One still awaited when the pool moves to another host is asked of
   * the new pool: a pool that is ending hands nothing to those queued in it, who would wait out the connect time-out
   * (3 s), their requests with them. A connection the old pool hands out later goes back to it, which closes it.
   */
  async connect(): Promise<pgType.PoolClient> {
    for (;;) {
      const pool = this.pool;
      let wake!: () => void;
      const moved = new Promise<undefined>((resolve) => (wake = () => resolve(undefined)));
      this.#waiting.add(wake);
      const asked = pool.connect();
      let client: pgType.PoolClient | undefined;
      try {
        client = await Promise.race([asked, moved]);
      } finally {
        this.#waiting.delete(wake);
      }
      if (client !== undefined) return client;
      asked.then((late) => late.release(), () => undefined);
    }
  }

  /** A primary among the hosts whose log ends before what this instance has read, while the one written to is away. */
  get stalePrimary(): FoundPrimary | undefined {
    return this.#stale;
  }

  /** The identity of the server `client` is connected to (empty when unknown). */
  serverOf(client: object): string {
    return this.#servers.get(client) ?? '';
  }

  /** A client outside the pool to the current primary (for LISTEN), with the same settings. */
  newClient(): pgType.Client {
    return new this.#pg.Client(this.#config(this.#index));
  }

  /** `promise`, telling the pool when it failed as if the primary were lost. */
  watch<T>(promise: Promise<T>): Promise<T> {
    return promise.catch((error: unknown) => {
      this.suspect(error);
      throw error;
    });
  }

  /** A query failed: with several hosts, and an error that may mean the primary is lost, the hosts are probed again. */
  suspect(error: unknown): void {
    if (this.#url.hosts.length < 2 || this.#ended || !lostPrimary(error) || this.#probing !== undefined) return;
    const wait = Math.max(0, this.#probedAt + REPROBE_MS - performance.now());
    this.#probing = new Promise<void>((resolve) => setTimeout(resolve, wait).unref())
      .then(() => findPrimary(this.#url.hosts.length, (i) => this.#probe(i), (i) => this.#url.nameOf(i)))
      .then((index) => this.#moveTo(index), () => undefined)
      .finally(() => {
        this.#probedAt = performance.now();
        this.#probing = undefined;
      });
  }

  /** Calls `listener` after each move to another host; returns the way to stop. */
  onSwitch(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async end(): Promise<void> {
    this.#ended = true;
    clearInterval(this.#watch);
    await this.#probing;
    await this.#looking;
    await this.#pool?.end();
  }

  /**
   * Moves to host `index`, but not to one promoted since the server written to (a newer timeline), which is reported
   * (onPromoted) for the instance to start over on its log: asynchronous replication may have left it without writes
   * this instance's views hold, and its log's end does not tell (another instance, started over, may have written past
   * it since). Nor to a former primary started again as one (an older timeline), nor, where no timeline is told, to
   * a primary whose log ends before what this instance has applied: written to, it would give the lost writes' seqs to
   * others (every instance would skip them) and a restart would drop what was acknowledged; writes are refused until
   * the server written to answers.
   */
  async #moveTo(index: number): Promise<void> {
    if (index === this.#index || this.#ended) return;
    const applied = this.#options.appliedSeq?.() ?? 0;
    if (applied > 0) {
      const found = await this.#logOf(index).catch(() => undefined);
      const host = this.#url.nameOf(index);
      const known = this.#timeline > 0;
      // Its timeline not told this time, where the server written to tells its own: asked again at the next probe.
      if (known && found !== undefined && found.timeline === 0) return;
      if (known && found !== undefined && found.timeline > this.#timeline && this.#options.onPromoted !== undefined) {
        this.#promoted = index;
        this.#options.onPromoted({ host, logEnd: found.last, applied });
        return;
      }
      const older = known && found !== undefined && found.timeline < this.#timeline;
      if (found === undefined || older || found.last < applied) {
        const seen = `${index}:${found?.last}`;
        this.#stale = { host, logEnd: found?.last ?? -1, applied };
        if (this.#staleSeen !== seen) this.#options.onStalePrimary?.(this.#stale);
        this.#staleSeen = seen;
        return;
      }
    }
    this.#switchTo(index);
  }

  /**
   * Asks every host whether it is a primary. Another server than the one written to taking writes (its former primary
   * started again as one after a promotion, a partition that promoted a standby) holds writes this instance never reads,
   * and one of the two histories will be lost when an operator keeps the other: said at once, not when a restart fails.
   */
  async #lookForSecondPrimary(): Promise<void> {
    const writing = this.#index;
    const servers = await Promise.all(this.#url.hosts.map((_, i) => this.#probe(i).then((role) => (typeof role === 'object' && 'primary' in role ? role.primary : undefined), () => undefined)));
    const own = servers[writing];
    // The host written to is away or a standby now: suspect() looks for the primary; nothing to compare with.
    if (own === undefined || writing !== this.#index || this.#ended) return;
    servers.forEach((server, i) => {
      // Two names of one server are one primary.
      if (server === undefined || server === own) return;
      const seen = `${i}:${server}`;
      if (this.#secondPrimaries.has(seen)) return;
      this.#secondPrimaries.add(seen);
      this.#options.onSecondPrimary?.(this.#url.nameOf(writing), this.#url.nameOf(i));
    });
  }

  #switchTo(index: number): void {
    if (index === this.#index || this.#ended) return;
    const [from, old] = [this.#index, this.#pool];
    this.#index = index;
    this.#pool = this.#open(index);
    this.#options.onSwitch?.(this.#url.nameOf(from), this.#url.nameOf(index));
    for (const listener of this.#listeners) listener();
    for (const wake of this.#waiting) wake();
    this.#waiting.clear();
    // Connections in use end as their work fails or finishes; none is handed out again.
    void old?.end().catch(() => undefined);
  }

  #config(i: number): pgType.ClientConfig {
    return { connectionString: this.#url.urlFor(i), connectionTimeoutMillis: this.#options.connectTimeoutMs, ...this.#options.session };
  }

  #open(i: number): pgType.Pool {
    const pool = new this.#pg.Pool({
      ...this.#config(i),
      max: this.#options.max,
      // pg-pool calls verify on each new connection before handing it out: a standby is refused there.
      verify: (client: pgType.PoolClient, done: (error?: Error) => void) => {
        // A deadline of its own: pg-pool's connect time-out has ended by now, and a frozen server would hold the slot.
        client.query({ text: 'SELECT pg_is_in_recovery() AS standby, pg_postmaster_start_time()::text AS server', query_timeout: this.#options.connectTimeoutMs } as pgType.QueryConfig).then((result) => {
          const row = result.rows[0] as { standby: boolean; server: string };
          if (row.standby) {
            const error = Object.assign(new Error(`${this.#url.nameOf(i)} is a standby (in recovery), not a primary`), { code: '25006' });
            this.suspect(error);
            return done(error);
          }
          this.#servers.set(client, row.server);
          this.#stale = undefined;
          // The server written to answers (again): a lost COMMIT is looked for there, unless it turns out promoted below.
          this.#promoted = undefined;
          // Asked apart, so a server that refuses the functions (a hosted one) costs only the knowledge.
          return client.query({ text: TIMELINE, query_timeout: this.#options.connectTimeoutMs } as pgType.QueryConfig).then((result) => {
            const timeline = timelineOf(result.rows[0]);
            // The server behind this host was promoted since (a failover behind one name, a restore to a point in time):
            // no connection is handed out on it, and the instance starts over on its log. Told before the refusal, which
            // ends the connection at once, so its log's end is not asked.
            if (this.#timeline > 0 && timeline > this.#timeline && this.#options.onPromoted !== undefined) {
              this.#promoted = i;
              this.#options.onPromoted({ host: this.#url.nameOf(i), logEnd: -1, applied: this.#options.appliedSeq?.() ?? 0 });
              return done(Object.assign(new Error(`${this.#url.nameOf(i)} was promoted since this instance last connected to it: the instance starts over on its log`), { code: '25006' }));
            }
            if (timeline > 0) this.#timeline = timeline;
            return done();
          }, () => done());
        }, (error: Error) => done(error));
      },
    } as pgType.PoolConfig);
    // An idle connection the server closed (a restart): the pool drops it; the next query reconnects.
    pool.on('error', () => undefined);
    // A connection in use may hear the server end it with no query running (a FATAL right after an answer, in the same
    // packet): without a listener of its own that 'error' would end the process. Its next query fails instead.
    pool.on('connect', (client) => client.on('error', () => undefined));
    return pool;
  }

  /**
   * `ask` on a connection of its own to the standby found promoted since the server written to, or undefined while
   * none was found. A COMMIT whose answer was lost with the old primary is looked for there: only it can tell now
   * (see commit-outcome.ts), and the pool never hands out a connection to it.
   */
  onPromotedServer<T>(ask: (client: pgType.Client) => Promise<T>): Promise<T> | undefined {
    return this.#promoted === undefined ? undefined : this.#onHost(this.#promoted, ask);
  }

  /** Where host `i`'s log ends, and its timeline (0: not told), asked on one connection. */
  async #logOf(i: number): Promise<{ last: number; timeline: number }> {
    return this.#onHost(i, async (client) => {
      const { last } = (await client.query(LOG_END)).rows[0] as { last: number };
      const timeline = await client.query(TIMELINE).then((result) => timelineOf(result.rows[0]), () => 0);
      return { last, timeline };
    });
  }

  async #probe(i: number): Promise<HostRole> {
    const row = await this.#onHost(i, async (client) => (await client.query('SELECT pg_is_in_recovery() AS standby, pg_postmaster_start_time()::text AS server')).rows[0] as { standby: boolean; server: string });
    return row.standby ? 'standby' : { primary: row.server };
  }

  /** `ask` on a connection of its own to host `i`, with short deadlines (the pool may be on another host). */
  async #onHost<T>(i: number, ask: (client: pgType.Client) => Promise<T>): Promise<T> {
    const client = new this.#pg.Client({ ...this.#config(i), connectionTimeoutMillis: Math.min(this.#options.connectTimeoutMs, 2_000), query_timeout: 2_000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return await ask(client);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}
