// Document lines (a named collection's JSON kept whole: doc, docstate, docdel) and atomic groups of lines, over seeded
// random documents with every escape: what is written reads back equal, what replay could not read is refused by the
// encoders, and a damaged field of a well-checksummed line is refused by the decoder. DOCUMENT_LINE_SEED=n replays.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeDocument, encodeDocumentDelete, encodeGroup, encodeIdempotency } from '../../../src/store/records/encode-record.js';
import type { IdempotencyEntry } from '../../../src/store/views/idempotency-table.js';
import type { StoredDocument } from '../../../src/store/records/jsonl-record.js';
import { decodeGroup } from '../../../src/store/records/group-line.js';
import { mulberry32 } from '../../helpers/random.js';
import { NOT_A_SEQ, SEQ_AND_OP, assertAllRefused, decode, recordSamples, reseal, type Corruption } from './random-records.js';

const SEED = Number(process.env['DOCUMENT_LINE_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const random = mulberry32(SEED);
const { int, pick, text, base62, sample, tag } = recordSamples(random);

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const COLLECTION_TAIL = `${LOWER}0123456789_`;

/** A collection name as the store allows it: a lower-case letter, then up to 31 lower-case letters, digits or `_`. */
function collectionOf(): string {
  let out = pick([...LOWER]);
  for (let n = int(0, 31); n > 0; n--) out += pick([...COLLECTION_TAIL]);
  return out;
}

/** A random JSON value, nested at most `depth` deep, its strings with every escape. */
function value(depth: number): unknown {
  switch (int(0, depth > 0 ? 6 : 4)) {
    case 0:
      return text(0, 20);
    case 1:
      return int(-1_000_000, 1_000_000) / pick([1, 8, 1000]);
    case 2:
      return pick([true, false, null]);
    case 3:
      return text(0, 5, false);
    case 4:
      return int(0, 2 ** 40);
    case 5:
      return Array.from({ length: int(0, 4) }, () => value(depth - 1));
    default:
      return object(depth - 1);
  }
}

function object(depth: number): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (let n = int(0, 5); n > 0; n--) fields[text(0, 8)] = value(depth);
  return fields;
}

function documentOf(seq: number): StoredDocument {
  return { collection: collectionOf(), id: base62(int(1, 64)).replace(/^./, (c) => pick([c, '_'])), json: JSON.stringify(object(3)), seq };
}

test(`every document line written reads back equal: 600 seeded random documents, every escape included (DOCUMENT_LINE_SEED=${SEED})`, () => {
  for (let n = 0; n < 600; n++) {
    const seq = int(1, 2 ** 40);
    const document = documentOf(seq);
    const op = pick(['doc', 'docstate'] as const);
    const line = n % 2 === 0 ? encodeDocument(document, op) : encodeDocument(document);
    assert.deepEqual(decode(line, n % 5), { seq, op: n % 2 === 0 ? op : 'doc', document }, `document ${n}: ${line}`);
    assert.deepEqual(JSON.parse(line).doc, JSON.parse(document.json), 'the document is written whole, as its JSON');
    assert.deepEqual(decode(encodeDocumentDelete(seq, document.collection, document.id), n % 3), { seq, op: 'docdel', collection: document.collection, id: document.id });
  }
});

test(`a document written under an Idempotency-Key reads back with its key and time, and its remembered answer as compaction writes it (DOCUMENT_LINE_SEED=${SEED})`, () => {
  for (let n = 0; n < 300; n++) {
    const seq = int(1, 2 ** 40);
    const document = documentOf(seq);
    const idem = tag();
    const atMs = int(0, 4_102_444_800_000);
    const line = encodeDocument(document, 'doc', { idem, atMs });
    assert.deepEqual(decode(line, n % 5), { seq, op: 'doc', document, idem, atMs }, `document ${n}: ${line}`);
    const entry: IdempotencyEntry = { ...idem, atMs, seq, answer: { kind: 'document', collection: document.collection, id: document.id, json: document.json } };
    assert.deepEqual(decode(encodeIdempotency(entry), n % 3), { seq, op: 'idem', entry }, `answer ${n}`);
  }
  // A malformed key or time in a well-checksummed line is refused, not read as no key.
  const good = encodeDocument({ collection: 'series', id: 'ser_1', json: '{}', seq: 4 }, 'doc', { idem: { key: 'k', keyId: '_a', requestHash: 'h'.repeat(32) }, atMs: 0 });
  assert.match(String(decode(reseal(good, (fields) => (fields['idem'] = 'x')))), /malformed "idem"/);
  assert.match(String(decode(reseal(good, (fields) => (fields['at'] = 'yesterday')))), /no valid "at"/);
});

test('a document line is written exactly: seq, op, collection, id, the JSON as given, then the checksum', () => {
  const document = { collection: 'series', id: 'ser_0000000000000001', json: '{"a":"\\u00e9","b":[1,2]}', seq: 7 };
  assert.match(encodeDocument(document), /^\{"seq":7,"op":"doc","coll":"series","id":"ser_0000000000000001","doc":\{"a":"\\u00e9","b":\[1,2\]\},"crc":"[0-9a-f]{8}"\}\n$/);
  assert.match(encodeDocument(document, 'docstate'), /^\{"seq":7,"op":"docstate","coll":"series",/);
  assert.match(encodeDocumentDelete(8, 'series', 'x'), /^\{"seq":8,"op":"docdel","coll":"series","id":"x","crc":"[0-9a-f]{8}"\}\n$/);
  // The decoder gives JSON.stringify of what it parsed: the same document in its shortest spelling.
  assert.deepEqual(decode(encodeDocument(document)), { seq: 7, op: 'doc', document: { ...document, json: '{"a":"é","b":[1,2]}' } });
});

test('the encoders refuse a document key or body replay could not read back, and accept every key at the edges', () => {
  const good: StoredDocument = { collection: 'series', id: 'abc', json: '{}', seq: 3 };
  const collections: [string, boolean][] = [
    ['a', true],
    ['abc', true],
    ['a0_9z', true],
    [`a${'_'.repeat(31)}`, true],
    [`a${'b'.repeat(32)}`, false],
    ['', false],
    ['A', false],
    ['Xabc', false],
    ['1abc', false],
    ['_abc', false],
    ['abc-', false],
    ['ab c', false],
    ['abC', false],
    ['abc\n', false],
    ['abc"', false],
  ];
  const ids: [string, boolean][] = [
    ['x', true],
    ['_', true],
    ['A9_z', true],
    ['x'.repeat(64), true],
    ['x'.repeat(65), false],
    ['', false],
    ['a b', false],
    ['a"', false],
    ['é', false],
    ['a-b', false],
    ['abc\n', false],
  ];
  for (const [collection, ok] of collections) {
    for (const write of [() => encodeDocument({ ...good, collection }), () => encodeDocument({ ...good, collection }, 'docstate'), () => encodeDocumentDelete(3, collection, 'abc')]) {
      if (ok) assert.equal(typeof decode(write()), 'object', `collection ${JSON.stringify(collection)} reads back`);
      else assert.throws(write, refusal(collection), `collection ${JSON.stringify(collection)}`);
    }
  }
  for (const [id, ok] of ids) {
    for (const write of [() => encodeDocument({ ...good, id }), () => encodeDocumentDelete(3, 'series', id)]) {
      if (ok) assert.equal(typeof decode(write()), 'object', `id ${JSON.stringify(id)} reads back`);
      else assert.throws(write, refusal(id), `id ${JSON.stringify(id)}`);
    }
  }
  for (const json of ['', '[]', '[{}]', '"{}"', '5', 'null', ' {}', '{} ', '{', '}', '{"a":1}\n']) {
    assert.throws(() => encodeDocument({ ...good, json }), (error: unknown) => error instanceof TypeError && error.message === 'document abc must be a JSON object', JSON.stringify(json));
  }
  for (const seq of [0, -1, 1.5, Number.NaN, 2 ** 53, 10 ** 15]) {
    assert.throws(() => encodeDocument({ ...good, seq }), /sequence number/, `seq ${seq}`);
    assert.throws(() => encodeDocumentDelete(seq, 'series', 'abc'), /sequence number/, `seq ${seq}`);
  }
});

/** A TypeError whose message names the bad value as JSON. */
function refusal(bad: string): (error: unknown) => boolean {
  return (error) => error instanceof TypeError && error.message.startsWith('cannot log document ') && error.message.includes(JSON.stringify(bad));
}

test(`every field of a well-checksummed document line, made wrong, is refused as damage (DOCUMENT_LINE_SEED=${SEED})`, () => {
  const keys: Corruption[] = [
    { path: 'coll', values: [undefined, null, 5, '', 'A', 'Xabc', '1abc', '_abc', 'abc-', `a${'b'.repeat(32)}`, ['series']] },
    { path: 'id', values: [undefined, null, 5, '', 'a b', 'é', 'x'.repeat(65), 'a-b', ['abc']] },
  ];
  let count = 0;
  for (let n = 0; n < 4; n++) {
    const seq = int(1, 2 ** 40);
    const document = documentOf(seq);
    for (const op of ['doc', 'docstate'] as const) {
      count += assertAllRefused(op, encodeDocument(document, op), [
        { path: 'seq', values: NOT_A_SEQ },
        { path: 'op', values: [undefined, null, 5, '', 'Doc', 'docs', 'document'] },
        ...keys,
        { path: 'doc', values: [undefined, null, 5, 'x', '{}', [], [{}], true] },
      ]);
    }
    count += assertAllRefused('docdel', encodeDocumentDelete(seq, document.collection, document.id), [...SEQ_AND_OP(['docdelete']), ...keys]);
  }
  assert.ok(count > 200, `${count} damaged lines refused`);
});

test(`a group is one line that is one JSON object holding its members whole, with their sizes, its newest seq and a checksum; each member reads back (DOCUMENT_LINE_SEED=${SEED})`, () => {
  assert.throws(() => encodeGroup([]), /at least one line/);
  for (let n = 0; n < 100; n++) {
    const members = Array.from({ length: int(1, 6) }, () => (random() < 0.3 ? { line: encodeDocument(documentOf(int(1, 1000))), expected: undefined } : sample(random() < 0.5)));
    const group = encodeGroup(members.map((each) => each.line));
    assert.equal(group.indexOf('\n'), group.length - 1, 'one physical line');
    const parsed = JSON.parse(group) as { seq: number; op: string; sizes: number[]; lines: { seq: number }[]; crc: string };
    const texts = members.map((each) => each.line.slice(0, -1));
    assert.deepEqual(Object.keys(parsed), ['seq', 'op', 'sizes', 'lines', 'crc']);
    assert.deepEqual([parsed.seq, parsed.op], [Math.max(...parsed.lines.map((member) => member.seq)), 'group']);
    assert.deepEqual(parsed.sizes, texts.map((text) => Buffer.byteLength(text)));
    assert.deepEqual(parsed.lines, texts.map((text) => JSON.parse(text)));
    const bytes = Buffer.from(group);
    const records = decodeGroup(bytes, 0, bytes.length - 1, undefined);
    assert.ok(Array.isArray(records), String(records));
    for (const [at, member] of members.entries()) {
      assert.equal(records[at]!.seq, JSON.parse(texts[at]!).seq);
      if (member.expected !== undefined) assert.deepEqual(records[at], member.expected);
    }
  }
});
