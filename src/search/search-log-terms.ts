// The search index built from the log's bytes (in a worker thread at start-up): each put line's words collected as
// it is read, the live events kept as replay keeps them, then packed. No event object and no string per word.
import { BulkPostings, DROPPED } from './search-bulk.js';
import { type BuiltSearch, builtSearch } from './search-built.js';
import { scanTerms, scanUtf8Terms } from './search-scan.js';
import { grown, TermList } from './search-hash.js';
import { ByteIds } from './search-log-ids.js';
import { BuildTerms } from './search-build-terms.js';
import { locateViewTexts } from './search-log-view.js';
import { bytePattern, matchesAt } from './search-log-bytes.js';
import { isGroupLine, trustedGroupBounds } from '../lib/group-line.js';

const SEQ_OPEN = Buffer.from('{"seq":');
const PUT_OPEN = Buffer.from(',"op":"put"');
const DEL_OPEN = Buffer.from(',"op":"del","id":"');
const EVENT_KEY = Buffer.from(',"event":{');
/** A put's head when the view follows the creation time (no comma, so no `,"event":{`, before the last). */
const PUT_HEAD = bytePattern(',"op":"put","created_at":"####-##-##T##:##:##.###Z","event":{');
/** Bytes of `,"crc":"xxxxxxxx"}` at the end of every line. */
const CRC_SUFFIX_LENGTH = 18;
const QUOTE = 0x22;

/**
 * Reads log lines (`line`), keeping what replay keeps of them for `q`: the words of each put, and which put of
 * each id is live (a later put replaces it, a del drops it; live events are ordered by their last put, as replay's
 * map orders them). Lines are trusted: replay checks every one, and the
 * main thread takes the result only if its events are the replay's (see builtSlots).
 */
export class LogTermCollector {
  readonly #terms = new BuildTerms();
  readonly #bulk = new BulkPostings();
  readonly #ids = new ByteIds();
  /** Per put (numbered as read): its seq and its id's number; per id: its live put, or -1 (deleted). */
  #putSeqs = new Float64Array(1 << 16);
  #putIds = new Uint32Array(1 << 16);
  #livePut = new Int32Array(1 << 16).fill(-1);
  #puts = 0;
  readonly #scratch = new TermList();
  #parsedViews = 0;

  /** Views read by JSON.parse so far, not located in their bytes (another layout): for tests. */
  get parsedViews(): number {
    return this.#parsedViews;
  }

  /** Takes the line `bytes[start, end)` (without its newline): a put, a del, an atomic group of lines, or another kind (skipped). */
  line(bytes: Buffer, start: number, end: number): void {
    if (!isGroupLine(bytes, start, end)) {
      this.#record(bytes, start, end);
      return;
    }
    const group = trustedGroupBounds(bytes, start, end);
    // Replay refuses such a line; the built index is then not taken (see builtSlots).
    if (typeof group === 'string') return;
    const { bounds } = group;
    for (let i = 0; i < bounds.length; i += 2) if (bounds[i]! < bounds[i + 1]!) this.#record(bytes, bounds[i]!, bounds[i + 1]!);
  }

  /** The built search of the lines read, the log read being `logLength` bytes. Live events take slots in the order of their last put, as replay orders them. */
  finish(logLength: number): BuiltSearch {
    const ids = this.#ids;
    const slots = new Uint32Array(this.#puts).fill(DROPPED);
    let live = 0;
    let idBytes = 0;
    for (let put = 0; put < this.#puts; put++) {
      const id = this.#putIds[put]!;
      if (this.#livePut[id] !== put) continue;
      slots[put] = live++;
      idBytes += ids.length(id);
    }
    const putSeqs = new Float64Array(live);
    const idEnds = new Uint32Array(live);
    const idBytesOut = new Uint8Array(idBytes);
    let at = 0;
    for (let put = 0; put < this.#puts; put++) {
      const slot = slots[put]!;
      if (slot === DROPPED) continue;
      putSeqs[slot] = this.#putSeqs[put]!;
      at = ids.copyInto(this.#putIds[put]!, idBytesOut, at);
      idEnds[slot] = at;
    }
    this.#bulk.countsFrom(this.#terms.counts());
    this.#bulk.relabel(slots);
    const packed = this.#bulk.pack(this.#terms.size, live);
    return builtSearch(this.#terms, packed, { ids: idBytesOut, idEnds, putSeqs, logLength });
  }

  #record(bytes: Buffer, start: number, end: number): void {
    if (!startsWith(bytes, start, SEQ_OPEN)) return;
    let pos = start + SEQ_OPEN.length;
    let seq = 0;
    for (; bytes[pos]! >= 0x30 && bytes[pos]! <= 0x39; pos++) seq = seq * 10 + (bytes[pos]! - 0x30);
    if (startsWith(bytes, pos, DEL_OPEN)) {
      const idStart = pos + DEL_OPEN.length;
      const id = this.#idNumber(bytes, idStart, bytes.indexOf(QUOTE, idStart));
      this.#livePut[id] = -1;
    } else if (startsWith(bytes, pos, PUT_OPEN)) {
      // Most puts have no `at`, `idem` or `promoted` field before the view: one comparison finds it, not a search.
      const viewStart = matchesAt(bytes, pos, PUT_HEAD) ? pos + PUT_HEAD.length - 1 : bytes.indexOf(EVENT_KEY, pos) + EVENT_KEY.length - 1;
      if (viewStart < EVENT_KEY.length || viewStart >= end) throw new Error(`a put line (seq ${seq}) has no "event"`);
      this.#put(bytes, viewStart, end - CRC_SUFFIX_LENGTH, seq);
    }
  }

  /** Collects the words of the view `bytes[start, end)` of a put line of `seq`, whose event is now the live one. */
  #put(bytes: Buffer, start: number, end: number, seq: number): void {
    const terms = this.#scratch;
    terms.length = 0;
    // Each term once per put, counted by the dictionary (see BuildTerms).
    this.#terms.startEvent();
    const layout = locateViewTexts(bytes, start, end);
    let id: number;
    if (layout !== undefined) {
      id = this.#idNumber(bytes, layout.idStart, layout.idEnd);
      scanUtf8Terms(bytes, layout.titleStart + 1, layout.titleEnd - 1, this.#terms, terms);
      scanUtf8Terms(bytes, layout.descriptionStart + 1, layout.descriptionEnd - 1, this.#terms, terms);
      scanUtf8Terms(bytes, layout.locationStart + 1, layout.locationEnd - 1, this.#terms, terms);
      scanUtf8Terms(bytes, layout.nameStart + 1, layout.nameEnd - 1, this.#terms, terms);
    } else {
      // A view of another layout (as replay reads it then): JSON.parse.
      this.#parsedViews++;
      const view = JSON.parse(bytes.toString('utf8', start, end)) as { id: string; title: string; description: string; location: string; organizer: { name: string }; status?: string };
      const idBytes = Buffer.from(view.id, 'latin1');
      id = this.#idNumber(idBytes, 0, idBytes.length);
      // A draft or pending event is in no public list, so in no search (API.md §14): as if deleted here.
      if (view.status === 'draft' || view.status === 'pending') {
        this.#livePut[id] = -1;
        return;
      }
      for (const text of [view.title, view.description, view.location, view.organizer.name]) scanTerms(text, this.#terms, terms);
    }
    const put = this.#puts++;
    if (put === this.#putSeqs.length) {
      this.#putSeqs = grown(this.#putSeqs, put + 1);
      this.#putIds = grown(this.#putIds, put + 1);
    }
    this.#putSeqs[put] = seq;
    this.#putIds[put] = id;
    this.#livePut[id] = put;
    this.#bulk.addDistinct(put, terms.ids, terms.length);
  }

  /** The number of the id `bytes[start, end)`, with room for its live put. */
  #idNumber(bytes: Uint8Array, start: number, end: number): number {
    const id = this.#ids.intern(bytes, start, end);
    if (id >= this.#livePut.length) {
      const longer = new Int32Array(this.#livePut.length * 2).fill(-1);
      longer.set(this.#livePut);
      this.#livePut = longer;
    }
    return id;
  }
}

function startsWith(bytes: Buffer, pos: number, literal: Buffer): boolean {
  for (let i = 0; i < literal.length; i++) if (bytes[pos + i] !== literal[i]) return false;
  return true;
}
