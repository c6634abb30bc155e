// Which slot of a search index built from the log (BuiltSearch) holds each event the main thread replayed.
import type { StoredEvent } from '../../events/event.js';
import type { BuiltSearch } from './search-built.js';

/**
 * The slot in `built` of each event of `events` (the replay's live events, in the order of their latest seq), or
 * why `built` does not hold exactly these events. Both lists follow the log; they differ only where a registration
 * changed an event after its last put (replay moves it to that seq), so one walk matches them, setting aside the
 * few built events met early. Each id is compared in full, and no built event may be newer than the replayed one.
 */
export function builtSlots(events: readonly StoredEvent[], built: BuiltSearch): Uint32Array | string {
  const { ids, idEnds, putSeqs } = built;
  const total = putSeqs.length;
  if (total !== events.length) return `the build holds ${total} events, the replay ${events.length}`;
  const slots = new Uint32Array(total);
  const aside = new Map<string, number>();
  let next = 0;
  for (let i = 0; i < total; i++) {
    const stored = events[i]!;
    let slot = aside.get(stored.id);
    if (slot !== undefined) aside.delete(stored.id);
    else {
      for (; next < total && !sameId(stored.id, ids, next === 0 ? 0 : idEnds[next - 1]!, idEnds[next]!); next++) {
        aside.set(Buffer.from(ids.buffer, ids.byteOffset + (next === 0 ? 0 : idEnds[next - 1]!), idEnds[next]! - (next === 0 ? 0 : idEnds[next - 1]!)).toString('latin1'), next);
      }
      if (next === total) return `event ${stored.id} is not in the build`;
      slot = next++;
    }
    if (putSeqs[slot]! > stored.seq) return `event ${stored.id} was built from seq ${putSeqs[slot]}, newer than its ${stored.seq}`;
    slots[i] = slot;
  }
  return slots;
}

/** Whether `id` is spelt by the Latin-1 bytes `ids[start, end)`. */
function sameId(id: string, ids: Uint8Array, start: number, end: number): boolean {
  if (end - start !== id.length) return false;
  for (let i = 0; i < id.length; i++) if (ids[start + i] !== id.charCodeAt(i)) return false;
  return true;
}
