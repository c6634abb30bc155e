// Which slot of a search index built from the log (BuiltSearch) holds each event the main thread replayed, and its
// postings renamed to the replay's slots.
import type { StoredEvent } from '../events/event.js';
import type { BuiltSearch } from './search-built.js';
import type { PackedPostings } from './search-posting-table.js';
import { SlotBitmap } from './search-postings.js';

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
    // Most often nothing is set aside: no lookup then (it would hash every id).
    let slot = aside.size === 0 ? undefined : aside.get(stored.id);
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

/**
 * `packed` (a worker's postings, by its slots) with each built slot `slotOf[i]` renamed `i`, the slot event i of
 * the replay takes. Most often the same order (returned as is); else the runs are renamed and sorted again, and
 * the bitmaps rebuilt.
 */
export function remapped(packed: PackedPostings, slotOf: Uint32Array, events: number): PackedPostings {
  let same = true;
  for (let i = 0; i < slotOf.length && same; i++) same = slotOf[i] === i;
  if (same) return packed;
  const mainSlot = new Uint32Array(events);
  for (let i = 0; i < slotOf.length; i++) mainSlot[slotOf[i]!] = i;
  const { offsets, slots } = packed;
  for (let at = 0; at < slots.length; at++) slots[at] = mainSlot[slots[at]!]!;
  for (let term = 0; term + 1 < offsets.length; term++) {
    const run = slots.subarray(offsets[term]!, offsets[term + 1]!);
    for (let at = 1; at < run.length; at++) {
      if (run[at - 1]! < run[at]!) continue;
      run.sort();
      break;
    }
  }
  const bitmaps = new Map<number, SlotBitmap>();
  for (const [term, built] of packed.bitmaps) {
    const bitmap = new SlotBitmap(events);
    built.forEach((slot) => bitmap.add(mainSlot[slot]!));
    bitmaps.set(term, bitmap);
  }
  return { offsets, slots, bitmaps };
}
