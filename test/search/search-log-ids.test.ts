// ByteIds against a Map of strings: ids numbered as first met, found again by their bytes (FNV-1a collisions included), their bytes and lengths read back after every table grows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ByteIds } from '../../src/search/search-log-ids.js';
import { FNV_OFFSET, hashUnits, useHashStart } from '../../src/search/search-hash.js';
import { mulberry32 } from '../helpers/random.js';

const SEED = Number(process.env.SEARCH_LOG_IDS_SEED ?? Date.now() % 100_000);

/** Interns `text` from the middle of a buffer with other bytes either side, as replay finds an id inside a line. */
function intern(ids: ByteIds, text: string, before = '{"id":"', after = '","x":1}'): number {
  const line = Buffer.from(`${before}${text}${after}`, 'latin1');
  return ids.intern(line, before.length, before.length + text.length);
}

/** The bytes of id `id` as ByteIds gives them back, read into a buffer between sentinels. */
function bytesOf(ids: ByteIds, id: number): string {
  const out = Buffer.alloc(ids.length(id) + 4, 0x7e);
  const end = ids.copyInto(id, out, 2);
  assert.equal(end, 2 + ids.length(id), `copyInto(${id}) returns where the bytes end`);
  assert.equal(out.toString('latin1', 0, 2) + out.toString('latin1', end), '~~~~', `copyInto(${id}) writes nothing outside its place`);
  return out.toString('latin1', 2, end);
}

function fnv(text: string): number {
  return hashUnits(Uint16Array.from(Buffer.from(text, 'latin1')), text.length);
}

/**
 * The obvious table ByteIds should be: FNV-1a, linear probing, doubled once more than a quarter of its cells (two
 * numbers a cell) are taken; ids' bytes in one array grown to what is needed or twice, their ends and hashes in
 * arrays doubled when full. It counts the work and the bytes ByteIds should count.
 */
class PlainIds {
  readonly texts: string[] = [];
  readonly #hashes: number[] = [];
  #cells = new Int32Array(1 << 15);
  #bytes = 1 << 20;
  #ends = 1 << 14;
  #used = 0;
  readonly work = { probes: 0, comparisons: 0 };

  get allocated(): number {
    return this.#bytes + 8 * this.#ends + 8 * this.#cells.length;
  }

  intern(text: string): number {
    const hash = fnv(text);
    const mask = this.#cells.length - 1;
    let cell = hash & mask;
    for (; this.#cells[cell] !== 0; cell = (cell + 1) & mask) {
      this.work.probes++;
      const id = this.#cells[cell]! - 1;
      if (this.#hashes[id] !== hash) continue;
      this.work.comparisons++;
      if (this.texts[id] === text) return id;
    }
    if (this.#used + text.length > this.#bytes) this.#bytes = Math.max(this.#used + text.length, 2 * this.#bytes);
    if (this.texts.length === this.#ends) this.#ends *= 2;
    this.#used += text.length;
    this.texts.push(text);
    this.#hashes.push(hash);
    this.#cells[cell] = this.texts.length;
    if (this.texts.length * 2 > this.#cells.length) {
      this.#cells = new Int32Array(2 * this.#cells.length);
      this.#hashes.forEach((h, id) => {
        let at = h & (this.#cells.length - 1);
        while (this.#cells[at] !== 0) at = (at + 1) & (this.#cells.length - 1);
        this.#cells[at] = id + 1;
      });
    }
    return this.texts.length - 1;
  }
}

test('ByteIds tells apart ids whose FNV-1a hashes are equal, of the same length or one a prefix of the other, in either order', () => {
  // Equal from FNV-1a's published offset basis (a process's own start is random): so hashed here.
  const start = FNV_OFFSET;
  useHashStart(0x811c9dc5);
  try {
    const same = ['qwerty', 'exlmSc', 'S8mDdz'];
    const prefixed = ['evt_pre', 'evt_preMlqhDD', 'evt_prev5pjuN', 'evt_preNXdkar'];
    for (const group of [same, prefixed]) assert.equal(new Set(group.map(fnv)).size, 1, `the hashes of ${group.join(', ')} are equal`);
    for (const order of [[...same, ...prefixed], [...same, ...prefixed].reverse()]) {
      const ids = new ByteIds();
      order.forEach((text, n) => assert.equal(intern(ids, text), n, `${text} is new`));
      order.forEach((text, n) => assert.equal(intern(ids, text, 'x', text), n, `${text} again`));
      order.forEach((text, n) => assert.equal(bytesOf(ids, n), text));
      assert.equal(ids.size, order.length);
    }
  } finally {
    useHashStart(start);
  }
});

test(`ByteIds numbers 36,000 ids (1.3 MB of them) as a Map would, with the work and memory of the obvious table, through every growth of its tables (SEARCH_LOG_IDS_SEED=${SEED})`, () => {
  const random = mulberry32(SEED);
  const ids = new ByteIds();
  const plain = new PlainIds();
  const model = new Map<string, number>();
  const texts = plain.texts;
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789_ABCDEF';
  while (model.size < 36_000) {
    let text: string;
    if (texts.length > 0 && random() < 0.3) text = texts[Math.floor(random() * texts.length)]!;
    else {
      const length = random() < 0.01 ? 0 : 1 + Math.floor(random() * (random() < 0.3 ? 12 : 100));
      text = '';
      for (let i = 0; i < length; i++) text += alphabet[Math.floor(random() * (random() < 0.2 ? 3 : alphabet.length))];
    }
    const wanted = plain.intern(text);
    if (!model.has(text)) model.set(text, wanted);
    assert.equal(model.get(text), wanted, 'the plain table numbers ids as a Map does');
    const got = random() < 0.5 ? intern(ids, text) : intern(ids, text, '', '');
    if (got !== wanted) assert.fail(`seed ${SEED}: ${JSON.stringify(text)} got id ${got}, wanted ${wanted}`);
    if (ids.size !== model.size) assert.fail(`seed ${SEED}: size ${ids.size}, wanted ${model.size}`);
    if (ids.work.probes !== plain.work.probes || ids.work.comparisons !== plain.work.comparisons || ids.allocated !== plain.allocated) {
      assert.fail(`seed ${SEED}, after ${JSON.stringify(text)}: work ${JSON.stringify(ids.work)} and ${ids.allocated} bytes, wanted ${JSON.stringify(plain.work)} and ${plain.allocated}`);
    }
  }
  assert.ok(texts.reduce((sum, text) => sum + text.length, 0) > 1.1 * 1024 * 1024, 'more bytes than the first array holds');
  for (let id = 0; id < texts.length; id++) {
    if (ids.length(id) !== texts[id]!.length) assert.fail(`seed ${SEED}: length(${id}) is ${ids.length(id)}, wanted ${texts[id]!.length}`);
    if (bytesOf(ids, id) !== texts[id]) assert.fail(`seed ${SEED}: id ${id} reads back as ${bytesOf(ids, id)}, wanted ${texts[id]}`);
  }
  for (const [text, id] of model) if (intern(ids, text, '"', '"') !== id || plain.intern(text) !== id) assert.fail(`seed ${SEED}: ${text} is not found again as ${id}`);
  assert.equal(ids.size, model.size);
  assert.deepEqual(ids.work, plain.work);
});

test('ByteIds fills its bytes array to the last byte before growing it, and takes an id longer than twice the array, growing it to just what is needed', () => {
  const ids = new ByteIds();
  const plain = new PlainIds();
  for (const text of ['a', 'y'.repeat(1024 * 1024 - 1), 'bc', 'x'.repeat(3 * 1024 * 1024 + 5), 'd']) {
    assert.equal(intern(ids, text, 'prefix', 'suffix'), plain.intern(text));
    assert.equal(ids.allocated, plain.allocated, `after an id of ${text.length} bytes`);
  }
  assert.equal(ids.length(3), 3 * 1024 * 1024 + 5);
  assert.equal(bytesOf(ids, 4), 'd');
  assert.equal(bytesOf(ids, 3), 'x'.repeat(3 * 1024 * 1024 + 5));
  assert.equal(bytesOf(ids, 2), 'bc');
});
