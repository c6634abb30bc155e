// Start-up from a checkpoint: the newest one's lines and the rows after it read into fresh views, as replay reads a compacted events.jsonl.
import type { StoredEvent } from '../../events/event.js';
import type { DecodeOptions, LogRecord, MetaRecord } from '../records/jsonl-record.js';
import type { IndexWrites } from '../views/apply-record.js';
import type { ChangeHistory } from '../views/change-history.js';
import { ChangeLog } from '../views/change-log.js';
import { DocumentTable } from '../views/document-table.js';
import { EventIndex } from '../views/event-index.js';
import { IdempotencyTable } from '../views/idempotency-table.js';
import { PackedEvents } from '../views/packed-events.js';
import { RosterTable } from '../views/roster-table.js';
import { flatCopy } from '../views/view-scan.js';
import { catchUp, CheckpointPassed } from './catch-up.js';
import type { Database } from './client.js';
import { newestCheckpoint, NO_CHECKPOINT, readCheckpointParts, type Checkpoint } from './checkpoint-table.js';
import { forEachRecord, seqNamedIn } from './log-table.js';

/** The state a checkpoint holds, its events still a map (in seq order) for the rows after it to be applied to. */
export interface LoadedCheckpoint {
  readonly checkpoint: Checkpoint;
  readonly events: Map<string, StoredEvent>;
  readonly rosters: RosterTable;
  readonly idempotency: IdempotencyTable;
  readonly documents: DocumentTable;
  /** Drafts once public (their put line says when they left public view): id → the seq of their tombstone (API.md §14). */
  readonly hidden: Map<string, number>;
}

/** Views read from the database: the newest checkpoint and every row after it. */
export interface LoadedViews {
  /** The newest checkpoint they hold (NO_CHECKPOINT: none was written yet). */
  readonly checkpoint: Checkpoint;
  /** The seq of the newest record they hold, and of the newest the change feed counts (a mark line is not one). */
  readonly lastSeq: number;
  readonly feedLastSeq: number;
  readonly index: EventIndex;
  readonly rosters: RosterTable;
  readonly idempotency: IdempotencyTable;
  readonly documents: DocumentTable;
  /** The deletions after the checkpoint (id → seq), and the newest one it forgot: what the change feed starts from. */
  readonly tombstones: ReadonlyMap<string, number>;
  readonly horizon: number;
  /** Rows and bytes of campus_log read after the checkpoint. */
  readonly rowsRead: number;
  readonly bytesRead: number;
}

/** A checkpoint that does not read back as a compacted log of its seq: the database is damaged. */
export class CheckpointDamage extends Error {
  override readonly name = 'CheckpointDamage';
}

/** The live events by id, in the order of their latest seq, while a start replays: the EventIndex is built from them in one go. */
export class EventMap implements IndexWrites {
  constructor(readonly events: Map<string, StoredEvent>) {}

  get size(): number {
    return this.events.size;
  }

  get(id: string): StoredEvent | undefined {
    return this.events.get(id);
  }

  put(stored: StoredEvent): void {
    // Delete then set: the map's order follows each event's latest seq, as EventIndex wants it.
    this.events.delete(stored.id);
    this.events.set(stored.id, stored);
  }

  delete(id: string): boolean {
    return this.events.delete(id);
  }

  values(): IterableIterator<StoredEvent> {
    return this.events.values();
  }
}

/** Decoding as replay does: events packed (their text out of the JS heap), organizers' e-mails shared. */
function packingDecoder(): DecodeOptions {
  const emails = new Map<string, string>();
  return {
    pack: new PackedEvents(),
    intern(email) {
      let shared = emails.get(email);
      if (shared === undefined) emails.set(email, (shared = flatCopy(email)));
      return shared;
    },
  };
}

/**
 * Reads the newest checkpoint into fresh views (none: empty views at seq 0), from one REPEATABLE READ snapshot, so a
 * newer checkpoint written meanwhile changes nothing of what is read. Throws CheckpointDamage for a line that does not
 * decode or does not belong in a checkpoint.
 */
export async function loadCheckpoint(db: Database, nowMs: number, decode: DecodeOptions = packingDecoder()): Promise<LoadedCheckpoint> {
  const events = new Map<string, StoredEvent>();
  const rosters = new RosterTable();
  const idempotency = new IdempotencyTable();
  const documents = new DocumentTable();
  const hidden = new Map<string, number>();
  const checkpoint = await db.transaction(async (tx) => {
    const newest = await newestCheckpoint(tx);
    if (newest.seq === 0) return NO_CHECKPOINT;
    let lastSeq = 0;
    let lines = 0;
    const apply = (record: LogRecord | MetaRecord): void => {
      lines++;
      const where = `the checkpoint at seq ${newest.seq}, its line ${lines},`;
      if (record.seq > newest.seq) throw new CheckpointDamage(`${where} holds seq ${record.seq}, after the checkpoint's own`);
      if (record.op === 'idem') return idempotency.remember(record.entry, nowMs);
      if (record.op === 'docstate') return documents.apply(record);
      // The rest is in seq order, as replay checks it.
      if (record.seq <= lastSeq) throw new CheckpointDamage(`${where} holds seq ${record.seq} after seq ${lastSeq}; seqs only grow`);
      lastSeq = record.seq;
      if (record.op === 'put') {
        events.set(record.stored.id, record.stored);
        if (record.stored.hiddenAt !== undefined) hidden.set(record.stored.id, record.stored.hiddenAt);
      }
      else if (record.op === 'regstate') rosters.apply(record);
      else if (record.op !== 'mark') throw new CheckpointDamage(`${where} is a "${record.op}" line, which no checkpoint holds`);
    };
    await readCheckpointParts(tx, newest.seq, (text, part) => {
      const damaged = (line: number, damagedText: string, reason: string): Error => new CheckpointDamage(`the checkpoint at seq ${newest.seq}, part ${part} line ${line} (seq ${seqNamedIn(damagedText)}), is damaged: ${reason}`);
      forEachRecord(text, damaged, apply, decode);
    });
    if (lines !== newest.lines) throw new CheckpointDamage(`the checkpoint at seq ${newest.seq} holds ${lines} lines, not the ${newest.lines} its row says`);
    return newest;
  }, 'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
  return { checkpoint, events, rosters, idempotency, documents, hidden };
}

/** Options of loadViews. */
export interface LoadViewsOptions {
  readonly now: () => number;
  /** Told of each row's changes as they are applied (webhooks of an instance that reads a checkpoint again). */
  readonly history?: ChangeHistory | undefined;
  /** Called once the checkpoint is read, before the rows after it are applied. */
  readonly onCheckpoint?: ((checkpoint: Checkpoint) => void) | undefined;
}

/**
 * The views as of the newest committed write: the newest checkpoint, then the rows after it applied to a plain map of
 * the events (no index to keep sorted meanwhile), which becomes the EventIndex at the end, as a file store's replay
 * builds it; its search index builds step by step afterwards (EventIndex.buildSearchIndex). Starts again should a newer
 * checkpoint drop the rows after the one read before they were.
 */
export async function loadViews(db: Database, options: LoadViewsOptions): Promise<LoadedViews> {
  for (;;) {
    const decode = packingDecoder();
    const loaded = await loadCheckpoint(db, options.now(), decode);
    options.onCheckpoint?.(loaded.checkpoint);
    const map = new EventMap(loaded.events);
    const changes = new ChangeLog((id) => map.get(id), { lastSeq: loaded.checkpoint.seq, horizon: loaded.checkpoint.gone, tombstones: loaded.hidden });
    let checkpoint = loaded.checkpoint;
    let lastSeq = checkpoint.seq;
    let rowsRead = 0;
    let bytesRead = 0;
    const views = { index: map, rosters: loaded.rosters, changes, idempotency: loaded.idempotency, documents: loaded.documents, history: options.history };
    try {
      await catchUp(db, {
        views,
        now: options.now,
        decode,
        lastSeq: () => lastSeq,
        advance: (seq) => (lastSeq = seq),
        checkpoint: () => checkpoint,
        adopt: (newer) => {
          changes.markDropped(newer.gone);
          checkpoint = newer;
          rowsRead = 0;
          bytesRead = 0;
        },
        read: (rows, bytes) => {
          rowsRead += rows;
          bytesRead += bytes;
        },
      });
    } catch (error) {
      if (error instanceof CheckpointPassed) continue;
      throw error;
    }
    const { idempotency, rosters, documents } = loaded;
    return { checkpoint, lastSeq, feedLastSeq: changes.lastSeq, index: new EventIndex(map.events), rosters, idempotency, documents, tombstones: changes.tombstones, horizon: changes.horizon, rowsRead, bytesRead };
  }
}
