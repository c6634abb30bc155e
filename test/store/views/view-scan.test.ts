// view-scan: the byte-level reader of logged views agrees with toStored, and leaves any other layout to JSON.parse.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toStored } from '../../../src/store/views/served-event.js';
import { viewJson } from '../../../src/events/event.js';
import type { EventRecord } from '../../../src/events/event.js';
import { parseUtcTime, scanStoredView } from '../../../src/store/views/view-scan.js';
import { sampleRecord } from '../helpers.js';
import { mulberry32 } from '../../helpers/random.js';

function scan(view: string, record: EventRecord): ReturnType<typeof scanStoredView> {
  const buf = Buffer.from(`xx${view}yy`);
  return scanStoredView(buf, 2, buf.length - 2, view, record.created_at, 9, Date.parse(record.created_at), undefined);
}

test('scanStoredView() reads what viewJson writes exactly as toStored does, escapes in every text field included', () => {
  const tricky = ['\\', '"', 'a\\"b', '\\\\', '","category":"social', '"}}', '","email":"x@y.z"}}', 'Zoë — 日本 🎉', '\n\t'];
  for (const text of tricky) {
    for (const field of ['title', 'description', 'location'] as const) {
      const record = sampleRecord(1, { [field]: text });
      assert.deepEqual(scan(viewJson(record), record), toStored(record, 9), `${field}: ${JSON.stringify(text)}`);
    }
    const record = sampleRecord(2, { organizer: { name: text, email: 'Plain.Address+tag@Example.ORG' }, category: 'cultural' });
    assert.deepEqual(scan(viewJson(record), record), toStored(record, 9), `name: ${JSON.stringify(text)}`);
  }
});

test('scanStoredView() leaves other layouts and non-ASCII or escaped e-mails to JSON.parse', () => {
  const record = sampleRecord(3);
  const { title, ...rest } = JSON.parse(viewJson(record));
  const reordered = JSON.stringify({ ...rest, title });
  assert.equal(scan(reordered, record), undefined);
  for (const email of ['zoë@example.org', 'a"b@example.org', 'a\\b@example.org']) {
    const withEmail = sampleRecord(4, { organizer: { name: 'X', email } });
    assert.equal(scan(viewJson(withEmail), withEmail), undefined, email);
  }
  assert.equal(scan(viewJson(sampleRecord(5, { id: 'evt_short' })), record), undefined);
  assert.equal(scan(viewJson(sampleRecord(6, { start_time: '2023-02-29T00:00:00.000Z' })), record), undefined);
});

test('parseUtcTime() equals Date.parse over the years 1970-9999 (seeded)', () => {
  const seed = 12_2026;
  const random = mulberry32(seed);
  for (let i = 0; i < 20_000; i++) {
    const ms = Math.floor(random() * 253402300800000);
    const text = new Date(ms).toISOString();
    assert.equal(parseUtcTime(Buffer.from(text), 0), ms, `${text} (seed ${seed}, draw ${i})`);
  }
  for (const text of ['1970-01-01T00:00:00.000Z', '2000-02-29T23:59:59.999Z', '2024-02-29T12:00:00.000Z', '9999-12-31T23:59:59.999Z']) {
    assert.equal(parseUtcTime(Buffer.from(text), 0), Date.parse(text), text);
  }
});

test('parseUtcTime() refuses impossible dates, other shapes, and text that runs past the limit', () => {
  for (const text of ['2023-02-29T00:00:00.000Z', '2100-02-29T00:00:00.000Z', '2026-04-31T00:00:00.000Z', '2026-13-01T00:00:00.000Z', '2026-00-10T00:00:00.000Z', '2026-01-01T24:00:00.000Z', '2026-01-01T00:60:00.000Z', '1969-12-31T23:59:59.999Z', '2026-01-01T00:00:00.000+', '2026-01-01 00:00:00.000Z', '2026-01-0aT00:00:00.000Z']) {
    assert.ok(Number.isNaN(parseUtcTime(Buffer.from(text), 0)), text);
  }
  assert.ok(Number.isNaN(parseUtcTime(Buffer.from('2026-01-01T00:00:00.000Z'), 0, 23)));
  assert.ok(Number.isNaN(parseUtcTime(Buffer.from('2026-01-01T00:00:00.000Z'), -1)));
});
