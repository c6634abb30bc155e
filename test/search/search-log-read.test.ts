// The start-up worker's read of the log (buildSearchFromLog): whatever the size of its chunks, even smaller than a
// line, it builds exactly what a collector given the whole log line by line builds, and reads only `length` bytes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { encodeDelete, encodeGroup, encodePut } from '../../src/store/records/encode-record.js';
import { buildSearchFromLog } from '../../src/search/search-log-read.js';
import { LogTermCollector } from '../../src/search/search-log-terms.js';
import type { BuiltSearch } from '../../src/search/search-built.js';
import { mulberry32 } from '../helpers/random.js';
import { eventId, sampleRecord, tempDir } from '../store/helpers.js';

const SEED = Number(process.env['SEARCH_LOG_READ_SEED'] ?? Date.now() % 1_000_000);
const WORDS = ['seminar', 'Chemistry', 'Straße', 'café', '東京', 'yoga', '2026', 'ka', '"quoted"', 'back\\slash', '🎉party'];

type Random = () => number;

const text = (random: Random, count: number): string => Array.from({ length: count }, () => WORDS[Math.floor(random() * WORDS.length)]!).join(' ');

/** A log of puts (some of ids already put), deletes and atomic groups, its long descriptions making some lines over 1,000 bytes. */
function randomLog(random: Random, lines: number): string[] {
  const out: string[] = [];
  let seq = 0;
  const put = (n: number): string => encodePut(++seq, sampleRecord(n, { title: text(random, 1 + Math.floor(random() * 3)), description: text(random, Math.floor(random() * 120)), location: text(random, 1) }));
  for (let n = 0; n < lines; n++) {
    const roll = random();
    if (roll < 0.15 && n > 0) out.push(put(Math.floor(random() * n)));
    else if (roll < 0.22 && n > 0) out.push(encodeDelete(++seq, eventId(Math.floor(random() * n))));
    else if (roll < 0.3) out.push(encodeGroup([put(n), put(lines + n)]));
    else out.push(put(n));
  }
  return out;
}

/** What a collector given `bytes` whole, line by line, builds. */
function collectWhole(bytes: Buffer): BuiltSearch {
  const collector = new LogTermCollector();
  let start = 0;
  for (let newline = bytes.indexOf(10); newline !== -1; newline = bytes.indexOf(10, start)) {
    collector.line(bytes, start, newline);
    start = newline + 1;
  }
  return collector.finish(start);
}

test(`a log read in chunks of any size builds what the whole log builds, up to the length given (seed ${SEED})`, (t) => {
  const random = mulberry32(SEED);
  const dir = tempDir(t);
  const lines = randomLog(random, 150);
  const bytes = Buffer.from(lines.join(''), 'utf8');
  assert.ok(lines.some((line) => Buffer.byteLength(line) > 1000), 'some line is longer than the smaller chunks');
  const file = path.join(dir, 'events.jsonl');
  // A partial line after the length given: never read.
  fs.writeFileSync(file, Buffer.concat([bytes, Buffer.from('{"seq":99999,"op":"put"')]));
  const whole = collectWhole(bytes);
  assert.equal(whole.logLength, bytes.length);
  for (const chunk of [64, 1 + Math.floor(random() * 2000), 4096, 1 << 22]) {
    assert.deepEqual(buildSearchFromLog(file, bytes.length, new LogTermCollector(), chunk), whole, `seed ${SEED}: chunks of ${chunk} bytes`);
  }
  // A length that ends at a line inside the log: the lines before it only.
  const cut = Buffer.byteLength(lines.slice(0, 1 + Math.floor(random() * (lines.length - 1))).join(''));
  const before = collectWhole(bytes.subarray(0, cut));
  assert.equal(before.logLength, cut);
  assert.deepEqual(buildSearchFromLog(file, cut, new LogTermCollector(), 1 + Math.floor(random() * 3000)), before, `seed ${SEED}: the first ${cut} bytes`);
});

test('an empty log builds an empty index', (t) => {
  const file = path.join(tempDir(t), 'events.jsonl');
  fs.writeFileSync(file, '');
  const built = buildSearchFromLog(file, 0);
  assert.equal(built.logLength, 0);
  assert.equal(built.putSeqs.length, 0);
  assert.equal(built.terms.count, 0);
});
