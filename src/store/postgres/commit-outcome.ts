// Whether a write batch whose COMMIT answer was lost committed: asked of the database once it answers again, by what the batch wrote.
import { withTimeout, type Queryable } from './client.js';

/** What one look at the database found (see probeCommit). */
export interface CommitProbe {
  /** The server answering is the one the transaction ran on (same postmaster start): not restarted, not another host. */
  sameServer: boolean;
  /** txid_status of the transaction on that server ('committed', 'aborted', 'in progress'), null on another server. */
  status: string | null;
  /** The line campus_log holds at the batch's first seq now, or null. */
  line: string | null;
  /** The newest checkpoint's seq, or null: rows at or before it are gone from campus_log, committed or not. */
  checkpoint: number | null;
}

/** A batch's fate as far as one probe tells: committed, rolled back for good, or not known yet. */
export type ProbeVerdict = 'committed' | 'aborted' | 'pending';

/**
 * What a probe says of a batch whose first row was `firstLine` at `firstSeq`. The row is the proof of a commit: it is
 * visible only once the transaction has ended committed, after a synchronous standby confirmed it (txid_status says
 * 'committed' a moment earlier, while the commit waits for the standby, so that alone is not enough). No row is
 * proof of a rollback only once the transaction is known over: aborted on the same server, or the server is another
 * one (the old one restarted, whose recovery finished before it answered, or a promoted standby, which holds every
 * commit a synchronous standby confirmed). Another line at that seq means another batch took it: ours never
 * committed. A checkpoint at or past the seq has dropped the row either way: then only txid_status on the same server
 * tells ('committed' is enough there: the checkpoint's writer had read past the seq, so the transaction holding the
 * log's lock had ended); on another server, nothing does.
 */
export function verdictOf(probe: CommitProbe, batch: Pick<LostCommit, 'firstSeq' | 'firstLine'>): ProbeVerdict {
  if (probe.line !== null) return probe.line === batch.firstLine ? 'committed' : 'aborted';
  if (probe.sameServer && probe.status === 'aborted') return 'aborted';
  if (probe.checkpoint !== null && probe.checkpoint >= batch.firstSeq) return probe.sameServer && probe.status === 'committed' ? 'committed' : 'pending';
  return probe.sameServer ? 'pending' : 'aborted';
}

/** The batch to look for: its transaction's id and server, and its first row. */
export interface LostCommit {
  xid: number;
  server: string;
  firstSeq: number;
  firstLine: string;
}

/** One look at the database (a single statement, so it runs on one server). */
export async function probeCommit(db: Queryable, batch: LostCommit, timeoutMs: number): Promise<CommitProbe> {
  const [row] = await withTimeout(db.query<CommitProbe>(
    `SELECT pg_postmaster_start_time()::text = $1 AS "sameServer",
       CASE WHEN pg_postmaster_start_time()::text = $1 THEN txid_status($2::bigint) END AS status,
       (SELECT line FROM campus_log WHERE seq = $3) AS line,
       (SELECT max(seq)::float8 FROM campus_checkpoints) AS checkpoint`,
    [batch.server, batch.xid, batch.firstSeq],
  ), timeoutMs, 'asking whether a write committed');
  return row!;
}

/** Options of resolveCommit: the clock and the wait between looks, injectable for tests. */
export interface ResolveOptions {
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Between two looks. Default 200 ms. */
  intervalMs?: number;
}

/**
 * Asks the database, until `deadlineMs`, whether the batch committed: 'committed', 'aborted', or 'unknown' when the
 * database could not tell in time (it did not answer, or the transaction was still in progress).
 */
export async function resolveCommit(db: Queryable, batch: LostCommit, deadlineMs: number, options: ResolveOptions = {}): Promise<'committed' | 'aborted' | 'unknown'> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const interval = options.intervalMs ?? 200;
  for (;;) {
    const left = deadlineMs - now();
    if (left <= 0) return 'unknown';
    const verdict = await probeCommit(db, batch, Math.min(left, 1_500)).then((probe) => verdictOf(probe, batch), () => 'pending' as const);
    if (verdict !== 'pending') return verdict;
    const rest = deadlineMs - now();
    if (rest <= 0) return 'unknown';
    await sleep(Math.min(interval, rest));
  }
}
