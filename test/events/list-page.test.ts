// listPage: the page's bytes, ETag and length are what joining the views and hashing the whole page give.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type StoredEvent, viewJson } from '../../src/events/event.js';
import { toStored } from '../../src/store/views/served-event.js';
import { listPage } from '../../src/events/list-page.js';
import { crc32 } from '../../src/lib/crc32.js';
import { decodeRecord } from '../../src/store/records/decode-record.js';
import { encodePut } from '../../src/store/records/encode-record.js';
import { PackedEvents } from '../../src/store/views/packed-events.js';
import { sampleRecord } from '../store/helpers.js';
import { mulberry32 } from '../helpers/random.js';

/** The page as it was built before: the views joined, the tag from a CRC over all of it. */
function expected(events: readonly StoredEvent[], total: number, page: number) {
  const body = `{"events":[${events.map((event) => event.json).join(',')}],"total":${total},"page":${page}}`;
  return { body, etag: `"l${crc32(body).toString(36)}-${body.length.toString(36)}"`, bytes: Buffer.byteLength(body) };
}

test('listPage() gives the joined views, the CRC tag of the whole page and its UTF-8 length, whatever form each event has', () => {
  const seed = Number(process.env['PAGE_SEED'] ?? Date.now() % 1_000_000);
  const random = mulberry32(seed);
  const words = ['a', 'Zoë', '日本', '🎉', '"', '\\', '\n', 'seminar'];
  const pack = new PackedEvents();
  const events: StoredEvent[] = [];
  for (let n = 1; n <= 120; n++) {
    const title = Array.from({ length: 1 + Math.floor(random() * 8) }, () => words[Math.floor(random() * words.length)]).join(' ');
    const record = sampleRecord(n, { title, description: title.repeat(Math.floor(random() * 30)), capacity: 1 + n });
    const form = n % 3;
    if (form === 0) events.push(toStored(record, n));
    else if (form === 1) {
      const line = Buffer.from(encodePut(n, record));
      const decoded = decodeRecord(line, 0, line.length - 1, { pack });
      assert.ok(typeof decoded !== 'string' && decoded.op === 'put');
      events.push(decoded.stored);
    } else events.push({ ...toStored(record, n), json: viewJson(record) });
  }
  for (const count of [0, 1, 2, 100, 120]) {
    const page = events.slice(0, count);
    assert.deepEqual(listPage(page, 5000, 3), expected(page, 5000, 3), `seed ${seed} (PAGE_SEED repeats it), ${count} events`);
    // Measured once, the same again.
    assert.deepEqual(listPage(page, count, 1), expected(page, count, 1), `seed ${seed}, ${count} events, again`);
  }
});
