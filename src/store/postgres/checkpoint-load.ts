// Start-up from a checkpoint: the newest one's lines read into fresh views, as replay reads a compacted events.jsonl.
import type { StoredEvent } from '../../events/event.js';
import type { DecodeOptions, LogRecord, MetaRecord } from '../records/jsonl-record.js';
import { DocumentTable } from '../views/document-table.js';
import { EventIndex } from '../views/event-index.js';
import { IdempotencyTable } from '../views/idempotency-table.js';
import { PackedEvents } from '../views/packed-events.js';
import { RosterTable } from '../views/roster-table.js';
import { flatCopy } from '../views/view-scan.js';
import type { Database } from './client.js';
import { newestCheckpoint, NO_CHECKPOINT, readCheckpointParts, type Checkpoint } from './checkpoint-table.js';
import { forEachRecord, seqNamedIn } from './log-table.js';

/** The views a checkpoint holds, before the rows after it are applied. */
export interface LoadedCheckpoint {
  readonly checkpoint: Checkpoint;
  readonly index: EventIndex;
  readonly rosters: RosterTable;
  readonly idempotency: IdempotencyTable;
  readonly documents: DocumentTable;
}

/** A checkpoint that does not read back as a compacted log of its seq: the database is damaged. */
export class CheckpointDamage extends Error {
  override readonly name = 'CheckpointDamage';
}

/**
 * Reads the newest checkpoint into fresh views (none: empty views at seq 0), from one REPEATABLE READ snapshot, so a
 * newer checkpoint written meanwhile changes nothing of what is read. The event index is built in one go from every
 * event (its search index then builds step by step: see EventIndex.buildSearchIndex), the events packed as replay
 * packs them. Throws CheckpointDamage for a line that does not decode or does not belong in a checkpoint.
 */
export async function loadCheckpoint(db: Database, nowMs: number): Promise<LoadedCheckpoint> {
  const events = new Map<string, StoredEvent>();
  const rosters = new RosterTable();
  const idempotency = new IdempotencyTable();
  const documents = new DocumentTable();
  const emails = new Map<string, string>();
  const decode: DecodeOptions = {
    pack: new PackedEvents(),
    intern(email) {
      let shared = emails.get(email);
      if (shared === undefined) emails.set(email, (shared = flatCopy(email)));
      return shared;
    },
  };
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
      if (record.op === 'put') events.set(record.stored.id, record.stored);
      else if (record.op === 'regstate') rosters.apply(record);
      else if (record.op !== 'mark') throw new CheckpointDamage(`${where} is a "${record.op}" line, which no checkpoint holds`);
    };
    await readCheckpointParts(tx, newest.seq, (text, part) => {
      const damaged = (line: number, text: string, reason: string): Error => new CheckpointDamage(`the checkpoint at seq ${newest.seq}, part ${part} line ${line} (seq ${seqNamedIn(text)}), is damaged: ${reason}`);
      forEachRecord(text, damaged, apply, decode);
    });
    if (lines !== newest.lines) throw new CheckpointDamage(`the checkpoint at seq ${newest.seq} holds ${lines} lines, not the ${newest.lines} its row says`);
    return newest;
  }, 'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
  return { checkpoint, index: new EventIndex(events), rosters, idempotency, documents };
}
