// The answer a line written under an Idempotency-Key leaves in the idempotency table, whoever applies the line.
import type { DocumentRecord, LogRecord } from '../records/jsonl-record.js';
import type { IdempotencyTable } from './idempotency-table.js';

/** Remembers the answer of a line written under an Idempotency-Key (replay does the same from the log). */
export function rememberAnswer(table: IdempotencyTable, record: LogRecord | DocumentRecord, nowMs: number): void {
  if (record.op === 'put' && record.idem !== undefined) {
    const { stored, idem } = record;
    // An answer too old to keep is not built (a replayed event's view is made from its columns when asked).
    if (table.forgetIfExpired(idem.keyId, idem.key, stored.modifiedMs, nowMs)) return;
    // Fields named one by one (not spread): every entry then has the same shape.
    table.remember({ key: idem.key, keyId: idem.keyId, requestHash: idem.requestHash, atMs: stored.modifiedMs, seq: record.seq, answer: { kind: 'event', view: stored.json, createdAt: stored.createdAt } }, nowMs);
  } else if (record.op === 'doc' && record.idem !== undefined && record.atMs !== undefined) {
    const { document, idem } = record;
    table.remember({ key: idem.key, keyId: idem.keyId, requestHash: idem.requestHash, atMs: record.atMs, seq: record.seq, answer: { kind: 'document', collection: document.collection, id: document.id, json: document.json } }, nowMs);
  } else if (record.op === 'reg' && record.idem !== undefined) {
    const { registration, idem } = record;
    table.remember({ key: idem.key, keyId: idem.keyId, requestHash: idem.requestHash, atMs: Date.parse(registration.createdAt), seq: record.seq, answer: { kind: 'registration', registration } }, nowMs);
  }
}
