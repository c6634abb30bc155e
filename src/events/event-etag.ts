// The strong ETag of an event's state (API.md §4): the seq of the line that wrote it, and the CRC-32 of its view.
import { viewCrc } from '../store/views/served-event.js';
import type { StoredEvent } from './event.js';

/**
 * A seq alone names one state as long as no seq is given twice; a folder restored from an older backup (API.md §7)
 * gives again the seqs of the writes it lost, and the view's CRC tells those states apart, so a cache never keeps a
 * lost state (304) and an If-Match made on one never wins.
 */
export function etagOf(stored: StoredEvent): string {
  return stateEtag(stored.seq, viewCrc(stored));
}

/** The ETag of a state written at `seq` whose view has the CRC-32 `crc` (an event's or a series'). */
export function stateEtag(seq: number, crc: number): string {
  return `"${seq.toString(36)}-${(crc >>> 0).toString(36)}"`;
}
