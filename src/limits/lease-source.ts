// Where a LeasedWindowLimiter's slots come from (the PostgreSQL store's campus_rate table), and what a lease gives.
import type { Want } from './lease-ahead.js';

/** Where slots come from (the PostgreSQL store's campus_rate table). */
export interface LeaseSource {
  /**
   * Grants slots of `key` in the sub-windows (or ranges) of `wants`, in order, never past `limit` in any window over
   * all instances; `granted` has one count per want, `total` is what the key's window holds now. `spans`: the range
   * lengths the key's slots are leased in (this limiter's). `reserve`: the slots that grants of sub-windows after `now`
   * (held ahead for an outage, unused for now) leave free in any window, for the key's requests now on any instance.
   */
  lease(key: string, now: number, wants: readonly Want[], limit: number, spans: readonly number[], reserve?: number): Promise<Granted>;
  /**
   * Gives back slots leased in `bucket` (a range of `span` from it) and never used. Rejects only when nothing was
   * given back (the source was not reached): the limiter then gives them back again at a later sweep.
   */
  giveBack(key: string, bucket: number, count: number, span?: number): Promise<void>;
  /** Forgets the slots of every key starting with `prefix` in sub-windows before `before` (see #forgetOld). */
  forget?(prefix: string, before: number): Promise<void>;
  /**
   * Asks every instance to give back the slots of `key` it holds and has not used (LeasedWindowLimiter.yieldKey): a
   * request found the key's window full, perhaps of them. Resolves once asked, not once they answered.
   */
  askBack?(key: string): Promise<void>;
  /**
   * Whether a lease's failure was a refusal that waited on nothing (a connection refused, a server that is starting or
   * a standby): the next ask is then sent again at once, however long the refusal took to come back on a loaded machine.
   */
  refusedAtOnce?(error: unknown): boolean;
}

/** What a lease gave (see LeaseSource.lease); `used` and `usedOver`, when the source tells them, the key's pace over all instances. */
export interface Granted {
  granted: number[];
  total: number;
  oldest: number | undefined;
  /** Slots of the key's sub-windows that ended in the last window (but the last), over all instances: nearly what it used there. */
  used?: number;
  /** The sub-windows those cover (0: none). */
  usedOver?: number;
}
