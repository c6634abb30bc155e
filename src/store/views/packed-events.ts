// The events replayed at start-up, packed: their numbers in typed columns, their text in a byte arena without the
// keys and the fields the columns hold, repeated text once, so the served JSON of a cold event is not on the JS heap.
import { CATEGORIES, type Category } from '../../events/event.js';
import { PackedEvent, type PackedColumns } from './packed-event.js';
import { crc32 } from '../../lib/crc32.js';
import { TextArena } from './text-arena.js';
import { textOfLiteral } from '../../search/event-search-text.js';

export { PackedEvent };
import type { ViewLayout } from './view-scan.js';

/** Tables made so far in this process. */
let tables = 0;
/** Views built lately, kept as strings so a hot event is served without building it again. */
export const RECENT_VIEWS = 8192;
/** Slots per block of columns (16,384: 1.2 MiB a block): the columns grow a block at a time, never copied. */
const BLOCK_BITS = 14;
export const BLOCK = 1 << BLOCK_BITS;
const MASK = BLOCK - 1;
const NOT_MEASURED = 0;
const MAX_UINT32 = 2 ** 32 - 1;

/** The columns of BLOCK slots: 81 bytes a slot. */
class Block {
  readonly start = new Float64Array(BLOCK);
  readonly end = new Float64Array(BLOCK);
  readonly created = new Float64Array(BLOCK);
  readonly modified = new Float64Array(BLOCK);
  readonly seq = new Float64Array(BLOCK);
  readonly capacity = new Uint32Array(BLOCK);
  readonly registered = new Uint32Array(BLOCK);
  /** References into the arena of the text fields, each a JSON string literal as the log has it (the e-mail without quotes). */
  readonly title = new Uint32Array(BLOCK);
  readonly description = new Uint32Array(BLOCK);
  readonly location = new Uint32Array(BLOCK);
  readonly name = new Uint32Array(BLOCK);
  readonly email = new Uint32Array(BLOCK);
  /** The series id of an occurrence: its reference + 1, or 0 for none. */
  readonly series = new Uint32Array(BLOCK);
  readonly category = new Uint8Array(BLOCK);
  /** CRC-32 and UTF-8 length of the served view, once measured (length 0: not yet). */
  readonly crc = new Int32Array(BLOCK);
  readonly bytes = new Uint32Array(BLOCK);
}

/**
 * A table of packed events: one slot per replayed state (columns of start, end, times, seq, seats, category,
 * and references to its text in a TextArena, where the description, location, name and e-mail are interned).
 * A slot is written once and never changed: a later write of the event makes a ServedEvent, and the slot is
 * left behind until the next start.
 */
export class PackedEvents implements PackedColumns {
  #count = 0;
  readonly #blocks: Block[] = [];
  readonly #arena = new TextArena();
  readonly #recent = new Map<number, string>();
  #built = 0;
  /** This table's number, which keeps text keys of different tables apart. */
  readonly #number = tables++;

  /** Slots written (live or not). */
  get slots(): number {
    return this.#count;
  }

  /** Blocks of columns allocated, BLOCK slots each. */
  get blocks(): number {
    return this.#blocks.length;
  }

  /** Views built from the columns so far: a view among the RECENT_VIEWS built last, or a measured one, is not built again. */
  get viewsBuilt(): number {
    return this.#built;
  }

  /** Bytes of text held in the arena. */
  get arenaBytes(): number {
    return this.#arena.bytes;
  }

  /**
   * Packs the view in `buf` whose parts `layout` found, or returns undefined when the columns could not give
   * back its exact bytes (a number with a leading zero, a full arena): the caller keeps it as a string.
   */
  pack(buf: Buffer, layout: ViewLayout, id: string, createdMs: number, seq: number, modifiedMs: number): PackedEvent | undefined {
    const capacity = canonicalNumber(buf, layout.capacityStart, layout.capacityEnd);
    const registered = canonicalNumber(buf, layout.registeredStart, layout.registeredEnd);
    if (capacity < 0 || registered < 0 || !(createdMs >= 0 && createdMs < MAX_FOUR_DIGIT_YEAR_MS) || !(layout.endMs < MAX_FOUR_DIGIT_YEAR_MS)) return undefined;
    const arena = this.#arena;
    const title = arena.append(buf, layout.titleStart, layout.titleEnd);
    const description = arena.intern(buf, layout.descriptionStart, layout.descriptionEnd);
    const location = arena.intern(buf, layout.locationStart, layout.locationEnd);
    const name = arena.intern(buf, layout.nameStart, layout.nameEnd);
    const email = arena.intern(buf, layout.emailStart, layout.emailEnd);
    const series = layout.seriesIdStart < 0 ? -1 : arena.intern(buf, layout.seriesIdStart, layout.seriesIdEnd);
    if (title < 0 || description < 0 || location < 0 || name < 0 || email < 0 || (layout.seriesIdStart >= 0 && series < 0)) return undefined;
    const slot = this.#slot();
    const block = this.#blocks[slot >>> BLOCK_BITS]!;
    const i = slot & MASK;
    block.start[i] = layout.startMs;
    block.end[i] = layout.endMs;
    block.created[i] = createdMs;
    block.modified[i] = modifiedMs;
    block.seq[i] = seq;
    block.capacity[i] = capacity;
    block.registered[i] = registered;
    block.title[i] = title;
    block.description[i] = description;
    block.location[i] = location;
    block.name[i] = name;
    block.email[i] = email;
    block.series[i] = series + 1;
    block.category[i] = layout.category;
    return new PackedEvent(this, slot, id);
  }

  /** The same text as `slot` with another count, seq and time: a new slot sharing the slot's text (replay's recount). */
  recount(slot: number, id: string, registered: number, seq: number, modifiedMs: number): PackedEvent {
    const copy = this.#slot();
    const from = this.#blocks[slot >>> BLOCK_BITS]!;
    const to = this.#blocks[copy >>> BLOCK_BITS]!;
    const [f, t] = [slot & MASK, copy & MASK];
    for (const column of ['start', 'end', 'created', 'capacity', 'title', 'description', 'location', 'name', 'email', 'series', 'category'] as const) to[column][t] = from[column][f]!;
    to.modified[t] = modifiedMs;
    to.seq[t] = seq;
    to.registered[t] = registered;
    return new PackedEvent(this, copy, id);
  }

  startMs(slot: number): number {
    return this.#blocks[slot >>> BLOCK_BITS]!.start[slot & MASK]!;
  }
  endMs(slot: number): number {
    return this.#blocks[slot >>> BLOCK_BITS]!.end[slot & MASK]!;
  }
  createdMs(slot: number): number {
    return this.#blocks[slot >>> BLOCK_BITS]!.created[slot & MASK]!;
  }
  modifiedMs(slot: number): number {
    return this.#blocks[slot >>> BLOCK_BITS]!.modified[slot & MASK]!;
  }
  seq(slot: number): number {
    return this.#blocks[slot >>> BLOCK_BITS]!.seq[slot & MASK]!;
  }
  category(slot: number): Category {
    return CATEGORIES[this.#blocks[slot >>> BLOCK_BITS]!.category[slot & MASK]!]!;
  }
  seats(slot: number): { capacity: number; registered: number } {
    const block = this.#blocks[slot >>> BLOCK_BITS]!;
    return { capacity: block.capacity[slot & MASK]!, registered: block.registered[slot & MASK]! };
  }

  /**
   * A key of searched text field `field` of `slot` (0 title, 1 description, 2 location, 3 organizer name): equal
   * keys hold equal text, in this table and any other.
   */
  searchTextKey(slot: number, field: number): number {
    return this.#number * 2 ** 32 + this.#textRef(slot, field);
  }

  /** The text of searched field `field` of `slot` (as searchTextKey numbers them), decoded. */
  searchText(slot: number, field: number): string {
    return textOfLiteral(this.#arena.text(this.#textRef(slot, field)));
  }

  #textRef(slot: number, field: number): number {
    const block = this.#blocks[slot >>> BLOCK_BITS]!;
    const i = slot & MASK;
    return (field === 0 ? block.title : field === 1 ? block.description : field === 2 ? block.location : block.name)[i]!;
  }

  /** The organizer's e-mail as written (plain ASCII). */
  email(slot: number): string {
    return this.#arena.text(this.#blocks[slot >>> BLOCK_BITS]!.email[slot & MASK]!, 'latin1');
  }

  /** The series id of an occurrence, or undefined. */
  seriesId(slot: number): string | undefined {
    const series = this.#blocks[slot >>> BLOCK_BITS]!.series[slot & MASK]!;
    return series === 0 ? undefined : this.#arena.text(series - 1, 'latin1');
  }

  /** The served view of `slot`, built from its columns and text (or taken from the views built lately). */
  json(slot: number, id: string): string {
    const recent = this.#recent.get(slot);
    if (recent !== undefined) return recent;
    const json = this.#build(slot, id);
    if (this.#recent.size >= RECENT_VIEWS) this.#recent.delete(this.#recent.keys().next().value as number);
    this.#recent.set(slot, json);
    return json;
  }

  viewCrc(slot: number, id: string): number {
    const block = this.#measured(slot, id);
    return block.crc[slot & MASK]! >>> 0;
  }

  viewBytes(slot: number, id: string): number {
    return this.#measured(slot, id).bytes[slot & MASK]!;
  }

  #measured(slot: number, id: string): Block {
    const block = this.#blocks[slot >>> BLOCK_BITS]!;
    if (block.bytes[slot & MASK] === NOT_MEASURED) {
      const json = this.json(slot, id);
      block.crc[slot & MASK] = crc32(json) | 0;
      block.bytes[slot & MASK] = Buffer.byteLength(json);
    }
    return block;
  }

  #build(slot: number, id: string): string {
    this.#built++;
    const block = this.#blocks[slot >>> BLOCK_BITS]!;
    const i = slot & MASK;
    const arena = this.#arena;
    return (
      `{"id":"${id}","title":${arena.text(block.title[i]!)},"description":${arena.text(block.description[i]!)},` +
      `"category":"${CATEGORIES[block.category[i]!]}","location":${arena.text(block.location[i]!)},` +
      `"start_time":"${new Date(block.start[i]!).toISOString()}","end_time":"${new Date(block.end[i]!).toISOString()}",` +
      `"capacity":${block.capacity[i]},"registered_count":${block.registered[i]},` +
      `"organizer":{"name":${arena.text(block.name[i]!)},"email":"${arena.text(block.email[i]!, 'latin1')}"}` +
      (block.series[i] === 0 ? '}' : `,"series_id":"${arena.text(block.series[i]! - 1, 'latin1')}"}`)
    );
  }

  #slot(): number {
    if (this.#count === this.#blocks.length * BLOCK) this.#blocks.push(new Block());
    return this.#count++;
  }
}

/** 10000-01-01T00:00:00.000Z: below it, `toISOString` writes the 4-digit year the log has. */
const MAX_FOUR_DIGIT_YEAR_MS = 253402300800000;

/**
 * The digits in `buf[start, end)` as a number when JSON would write that number so (no leading zero) and it fits 32 bits,
 * else -1. More than 10 digits never fit; a span outside `buf` reads NaN, which fails the same check.
 */
function canonicalNumber(buf: Buffer, start: number, end: number): number {
  if (end - start < 1 || (end - start > 1 && buf[start] === 0x30)) return -1;
  let value = 0;
  for (let i = start; i < end; i++) value = value * 10 + (buf[i]! - 0x30);
  return value <= MAX_UINT32 ? value : -1;
}

