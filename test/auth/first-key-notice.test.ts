// firstKeyNotice(): on a terminal the first admin key is a plain line of its own; elsewhere one JSON log line (issue 33.7).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstKeyNotice } from '../../src/auth/first-key-notice.js';

const KEY = 'cek_0oT1C4Pelb6rJZDles2jspzxVfzAAvbcz2wCJ0B';
const MAKE_MORE = 'node dist/cli.js keys create --name NAME --email EMAIL --role organizer --data-dir ./data';

test('firstKeyNotice() on a terminal puts the key alone on a line, copyable as it is, not inside a JSON line', () => {
  const text = firstKeyNotice(KEY, { makeMore: MAKE_MORE, terminal: true, nowMs: 0, eol: '\n' });
  const lines = text.split('\n');
  assert.ok(lines.includes(KEY), `a line that is the key and nothing else in ${JSON.stringify(text)}`);
  assert.equal(lines.filter((line) => line.includes(KEY)).length, 1, 'the key once');
  assert.ok(lines.includes(`Make more with: ${MAKE_MORE}`));
  assert.doesNotMatch(text, /[{}"]/, 'no JSON to pick apart');
});

test('firstKeyNotice() elsewhere is one JSON line with the key and how to make more, for log collectors', () => {
  const text = firstKeyNotice(KEY, { makeMore: MAKE_MORE, terminal: false, nowMs: Date.parse('2027-01-01T00:00:00Z'), eol: '\n' });
  assert.equal(text.split('\n').length, 2, 'one line');
  const line = JSON.parse(text) as Record<string, unknown>;
  assert.equal(line['key'], KEY);
  assert.equal(line['make_more'], MAKE_MORE);
  assert.equal(line['level'], 'warn');
  assert.equal(line['time'], '2027-01-01T00:00:00.000Z');
});
