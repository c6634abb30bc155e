// The events replayed at start-up, packed: their numbers in typed columns, their text in one byte arena without
// the keys and the fields the columns hold, so the served JSON of a cold event is not a string on the JS heap.
import { CATEGORIES, type Category } from '../events/event.js';
import { EventState } from './served-event.js';
import { crc32 } from '../lib/crc32.js';
import type { ViewLayout } from './view-scan.js';

/** Bytes per arena chunk: a record never spans two. */
const CHUNK = 8 * 1024 * 1024;
/** Views built lately, kept as strings so a hot event is served without building it again. */
const RECENT_VIEWS = 8192;
const NOT_MEASURED = 0;

/**
 * A table of packed events: one slot per replayed state (columns of start, end, times, seq, seats,
 * category, and the place of its text in the arena). A slot is written once and never changed: a
 * later write of the event makes a ServedEvent, and the slot is left behind until the next start.
 */
export class PackedEvents {
  #count = 0;
  #start = new Float64Array(1024);
  #end = new Float64Array(1024);
  #created = new Float64Array(1024);
  #modified = new Float64Array(1024);
  #seq = new Float64Array(1024);
  #capacity = new Float64Array(1024);
  #registered = new Float64Array(1024);
  /** Where the slot's record starts in the arena (chunk × CHUNK + offset), and its length. */
  #at = new Float64Array(1024);
  #size = new Uint32Array(1024);
  #category = new Uint8Array(1024);
  /** CRC-32 and UTF-8 length of the served view, once measured (length 0: not yet). */
  #crc = new Int32Array(1024);
  #bytes = new Uint32Array(1024);
  readonly #chunks: Buffer[] = [];
  #used = CHUNK;
  readonly #recent = new Map<number, string>();

  /** Slots written (live or not). */
  get slots(): number {
    return this.#count;
  }

  /** Bytes of text held in the arena. */
  get arenaBytes(): number {
    return this.#chunks.length === 0 ? 0 : (this.#chunks.length - 1) * CHUNK + this.#used;
  }

  /**
   * Packs the view in `buf` whose parts `layout` found, or returns undefined when the columns could not give
   * back its exact bytes (a number with a leading zero, a record over a chunk): the caller keeps it as a string.
   */
  pack(buf: Buffer, layout: ViewLayout, id: string, createdMs: number, seq: number, modifiedMs: number): PackedEvent | undefined {
    const capacity = canonicalNumber(buf, layout.capacityStart, layout.capacityEnd);
    const registered = canonicalNumber(buf, layout.registeredStart, layout.registeredEnd);
    if (capacity < 0 || registered < 0 || !(createdMs >= 0 && createdMs < MAX_FOUR_DIGIT_YEAR_MS) || !(layout.endMs < MAX_FOUR_DIGIT_YEAR_MS)) return undefined;
    const title = layout.titleEnd - layout.titleStart;
    const description = layout.descriptionEnd - layout.descriptionStart;
    const location = layout.locationEnd - layout.locationStart;
    const name = layout.nameEnd - layout.nameStart;
    const email = layout.emailEnd - layout.emailStart;
    const size = varintSize(title) + varintSize(description) + varintSize(location) + varintSize(name) + title + description + location + name + email;
    if (size > CHUNK) return undefined;
    if (this.#used + size > CHUNK) {
      this.#chunks.push(Buffer.allocUnsafeSlow(CHUNK));
      this.#used = 0;
    }
    const chunk = this.#chunks[this.#chunks.length - 1]!;
    let pos = this.#used;
    pos = writeVarint(chunk, pos, title);
    pos = writeVarint(chunk, pos, description);
    pos = writeVarint(chunk, pos, location);
    pos = writeVarint(chunk, pos, name);
    pos = copyBytes(buf, layout.titleStart, layout.titleEnd, chunk, pos);
    pos = copyBytes(buf, layout.descriptionStart, layout.descriptionEnd, chunk, pos);
    pos = copyBytes(buf, layout.locationStart, layout.locationEnd, chunk, pos);
    pos = copyBytes(buf, layout.nameStart, layout.nameEnd, chunk, pos);
    pos = copyBytes(buf, layout.emailStart, layout.emailEnd, chunk, pos);
    const slot = this.#slot();
    this.#at[slot] = (this.#chunks.length - 1) * CHUNK + this.#used;
    this.#size[slot] = size;
    this.#used = pos;
    this.#start[slot] = layout.startMs;
    this.#end[slot] = layout.endMs;
    this.#created[slot] = createdMs;
    this.#modified[slot] = modifiedMs;
    this.#seq[slot] = seq;
    this.#capacity[slot] = capacity;
    this.#registered[slot] = registered;
    this.#category[slot] = layout.category;
    return new PackedEvent(this, slot, id);
  }

  /** The same text as `slot` with another count, seq and time: a new slot sharing the slot's record (replay's recount). */
  recount(slot: number, id: string, registered: number, seq: number, modifiedMs: number): PackedEvent {
    const copy = this.#slot();
    this.#at[copy] = this.#at[slot]!;
    this.#size[copy] = this.#size[slot]!;
    this.#start[copy] = this.#start[slot]!;
    this.#end[copy] = this.#end[slot]!;
    this.#created[copy] = this.#created[slot]!;
    this.#capacity[copy] = this.#capacity[slot]!;
    this.#category[copy] = this.#category[slot]!;
    this.#modified[copy] = modifiedMs;
    this.#seq[copy] = seq;
    this.#registered[copy] = registered;
    return new PackedEvent(this, copy, id);
  }

  startMs(slot: number): number {
    return this.#start[slot]!;
  }
  endMs(slot: number): number {
    return this.#end[slot]!;
  }
  createdMs(slot: number): number {
    return this.#created[slot]!;
  }
  modifiedMs(slot: number): number {
    return this.#modified[slot]!;
  }
  seq(slot: number): number {
    return this.#seq[slot]!;
  }
  category(slot: number): Category {
    return CATEGORIES[this.#category[slot]!]!;
  }
  seats(slot: number): { capacity: number; registered: number } {
    return { capacity: this.#capacity[slot]!, registered: this.#registered[slot]! };
  }

  /** The organizer's e-mail as written (the last part of the record, plain ASCII). */
  email(slot: number): string {
    const { chunk, pos, end } = this.#record(slot);
    let at = pos;
    let skip = 0;
    for (let field = 0; field < 4; field++) {
      const [length, next] = readVarint(chunk, at);
      skip += length;
      at = next;
    }
    return chunk.toString('latin1', at + skip, end);
  }

  /** The served view of `slot`, built from its record and columns (or taken from the views built lately). */
  json(slot: number, id: string): string {
    const recent = this.#recent.get(slot);
    if (recent !== undefined) return recent;
    const json = this.#build(slot, id);
    if (this.#recent.size >= RECENT_VIEWS) this.#recent.delete(this.#recent.keys().next().value as number);
    this.#recent.set(slot, json);
    return json;
  }

  viewCrc(slot: number, id: string, measure: (json: string) => number): number {
    if (this.#bytes[slot] === NOT_MEASURED) this.#measure(slot, id, measure);
    return this.#crc[slot]! >>> 0;
  }

  viewBytes(slot: number, id: string, measure: (json: string) => number): number {
    if (this.#bytes[slot] === NOT_MEASURED) this.#measure(slot, id, measure);
    return this.#bytes[slot]!;
  }

  #measure(slot: number, id: string, crc: (json: string) => number): void {
    const json = this.json(slot, id);
    this.#crc[slot] = crc(json) | 0;
    this.#bytes[slot] = Buffer.byteLength(json);
  }

  #build(slot: number, id: string): string {
    const { chunk, pos, end } = this.#record(slot);
    let at = pos;
    const lengths = [0, 0, 0, 0];
    for (let field = 0; field < 4; field++) [lengths[field], at] = readVarint(chunk, at);
    const titleEnd = at + lengths[0]!;
    const descriptionEnd = titleEnd + lengths[1]!;
    const locationEnd = descriptionEnd + lengths[2]!;
    const nameEnd = locationEnd + lengths[3]!;
    return (
      `{"id":"${id}","title":${chunk.toString('utf8', at, titleEnd)},"description":${chunk.toString('utf8', titleEnd, descriptionEnd)},` +
      `"category":"${this.category(slot)}","location":${chunk.toString('utf8', descriptionEnd, locationEnd)},` +
      `"start_time":"${new Date(this.#start[slot]!).toISOString()}","end_time":"${new Date(this.#end[slot]!).toISOString()}",` +
      `"capacity":${this.#capacity[slot]},"registered_count":${this.#registered[slot]},` +
      `"organizer":{"name":${chunk.toString('utf8', locationEnd, nameEnd)},"email":"${chunk.toString('latin1', nameEnd, end)}"}}`
    );
  }

  #record(slot: number): { chunk: Buffer; pos: number; end: number } {
    const at = this.#at[slot]!;
    const index = Math.floor(at / CHUNK);
    const pos = at - index * CHUNK;
    return { chunk: this.#chunks[index]!, pos, end: pos + this.#size[slot]! };
  }

  #slot(): number {
    if (this.#count === this.#start.length) this.#grow(this.#count * 2);
    return this.#count++;
  }

  #grow(length: number): void {
    const grown = <T extends Float64Array | Uint32Array | Int32Array | Uint8Array>(column: T): T => {
      const larger = new (column.constructor as new (length: number) => T)(length);
      larger.set(column);
      return larger;
    };
    this.#start = grown(this.#start);
    this.#end = grown(this.#end);
    this.#created = grown(this.#created);
    this.#modified = grown(this.#modified);
    this.#seq = grown(this.#seq);
    this.#capacity = grown(this.#capacity);
    this.#registered = grown(this.#registered);
    this.#at = grown(this.#at);
    this.#size = grown(this.#size);
    this.#category = grown(this.#category);
    this.#crc = grown(this.#crc);
    this.#bytes = grown(this.#bytes);
  }
}

/** A replayed event whose state lives in a PackedEvents slot: an id and a slot on the heap, the rest in columns and the arena. */
export class PackedEvent extends EventState {
  readonly #table: PackedEvents;
  readonly #slot: number;

  constructor(
    table: PackedEvents,
    slot: number,
    readonly id: string,
  ) {
    super();
    this.#table = table;
    this.#slot = slot;
  }

  get startMs(): number {
    return this.#table.startMs(this.#slot);
  }
  get endMs(): number {
    return this.#table.endMs(this.#slot);
  }
  get category(): Category {
    return this.#table.category(this.#slot);
  }
  get organizerEmail(): string {
    return this.#table.email(this.#slot).toLowerCase();
  }
  get createdAt(): string {
    return new Date(this.#table.createdMs(this.#slot)).toISOString();
  }
  get seq(): number {
    return this.#table.seq(this.#slot);
  }
  get modifiedMs(): number {
    return this.#table.modifiedMs(this.#slot);
  }
  get json(): string {
    return this.#table.json(this.#slot, this.id);
  }
  viewCrc(): number {
    return this.#table.viewCrc(this.#slot, this.id, crcOf);
  }
  viewBytes(): number {
    return this.#table.viewBytes(this.#slot, this.id, crcOf);
  }
  seats(): { capacity: number; registered: number } {
    return this.#table.seats(this.#slot);
  }
  /** This event with another count, seq and time, sharing this one's text (replay's recount). */
  recounted(registered: number, seq: number, modifiedMs: number): PackedEvent {
    return this.#table.recount(this.#slot, this.id, registered, seq, modifiedMs);
  }
}

const crcOf = (json: string): number => crc32(json);

/** 10000-01-01T00:00:00.000Z: below it, `toISOString` writes the 4-digit year the log has. */
const MAX_FOUR_DIGIT_YEAR_MS = 253402300800000;

/** The digits in `buf[start, end)` as a number when JSON would write that number so (no leading zero, safe), else -1. */
function canonicalNumber(buf: Buffer, start: number, end: number): number {
  if (start < 0 || end - start < 1 || end - start > 15 || (end - start > 1 && buf[start] === 0x30)) return -1;
  let value = 0;
  for (let i = start; i < end; i++) value = value * 10 + (buf[i]! - 0x30);
  return value;
}

/** Copies `from[start, end)` to `to` at `pos` and returns the position after it: a plain loop for the short fields, where Buffer#copy costs more to call than to copy. */
function copyBytes(from: Buffer, start: number, end: number, to: Buffer, pos: number): number {
  if (end - start > 256) return pos + from.copy(to, pos, start, end);
  for (let i = start; i < end; i++) to[pos++] = from[i]!;
  return pos;
}

function varintSize(value: number): number {
  let size = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 0x80);
    size++;
  }
  return size;
}

function writeVarint(buf: Buffer, pos: number, value: number): number {
  while (value >= 0x80) {
    buf[pos++] = (value & 0x7f) | 0x80;
    value = Math.floor(value / 0x80);
  }
  buf[pos++] = value;
  return pos;
}

function readVarint(buf: Buffer, pos: number): [number, number] {
  let value = 0;
  let scale = 1;
  for (;;) {
    const byte = buf[pos++]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return [value, pos];
    scale *= 0x80;
  }
}
