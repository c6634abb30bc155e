// The strong ETag of an event's state (API.md §4): the seq of the line that wrote it, and the time it was written.
import type { StoredEvent } from './event.js';

/**
 * A seq alone names one state as long as no seq is given twice; a folder restored from an older backup (API.md §7)
 * gives again the seqs of the writes it lost, and the write's time (kept in its line, so the same after a restart
 * or a compaction) tells those states apart: a cache never keeps a lost state (304), and an If-Match made on one never
 * wins. (A checksum of the view would do too, at the price of one more pass over it in every write.)
 */
export function etagOf(stored: StoredEvent): string {
  return stateEtag(stored.seq, stored.modifiedMs);
}

/** The ETag of a state written at `seq` at `atMs` (ms since the epoch). */
export function stateEtag(seq: number, atMs: number): string {
  return `"${seq.toString(36)}-${atMs.toString(36)}"`;
}
