import assert from 'node:assert/strict';
import test from 'node:test';
import { parseChangesQuery, parseLastEventId } from '../../src/feeds/changes-query.js';
import { ApiError } from '../../src/http/errors.js';

const refused = (run: () => unknown, pattern: RegExp): void => {
  assert.throws(run, (error: unknown) => error instanceof ApiError && error.code === 'bad_request' && pattern.test(error.message));
};

test('parseChangesQuery() reads since (required) and limit (1–1000, default 100)', () => {
  assert.deepEqual(parseChangesQuery('since=0'), { since: 0, limit: 100 });
  assert.deepEqual(parseChangesQuery('limit=1000&since=42'), { since: 42, limit: 1000 });
  refused(() => parseChangesQuery(''), /since is required/);
  refused(() => parseChangesQuery('since=-1'), /since must be an integer/);
  refused(() => parseChangesQuery('since=1e3'), /"1e3"/);
  // A position past any seq ever written is read (the route answers 410), however long; 101 digits are no position.
  assert.equal(parseChangesQuery(`since=1${'0'.repeat(20)}`).since, 1e20);
  assert.equal(parseLastEventId('9'.repeat(100)), Number('9'.repeat(100)));
  refused(() => parseChangesQuery(`since=${'9'.repeat(101)}`), /since must be an integer/);
  refused(() => parseChangesQuery('since=1&limit=0'), /limit must be an integer from 1 to 1000/);
  refused(() => parseChangesQuery('since=1&limit=1001'), /limit/);
  refused(() => parseChangesQuery('since=1&since=2'), /more than once/);
  refused(() => parseChangesQuery('since=1&page=2'), /Unknown query parameter "page"/);
});

test('parseLastEventId() reads an integer ≥ 0, or nothing', () => {
  assert.equal(parseLastEventId(undefined), undefined);
  assert.equal(parseLastEventId('17'), 17);
  assert.equal(parseLastEventId(' 0 '), 0);
  assert.equal(parseLastEventId(''), undefined, 'an SSE client with no last id: since answers');
  refused(() => parseLastEventId('abc'), /Last-Event-ID header must be an integer/);
  refused(() => parseLastEventId('-1'), /Last-Event-ID/);
});

test('parseChangesQuery() takes limit=1 and 1000, a copy token of 1 to 200 characters of [A-Za-z0-9_-], and refuses others naming copy', () => {
  assert.deepEqual(parseChangesQuery('since=3&limit=1'), { since: 3, limit: 1 });
  assert.deepEqual(parseChangesQuery('since=3&limit=1000&copy=a'), { since: 3, limit: 1000, copy: 'a' });
  assert.deepEqual(parseChangesQuery(`copy=${'Az09_-'.repeat(33)}ab&since=0`), { since: 0, limit: 100, copy: `${'Az09_-'.repeat(33)}ab` });
  for (const bad of ['', 'a.b', 'a%20b', 'a'.repeat(201), '%C3%A9']) refused(() => parseChangesQuery(`since=1&copy=${bad}`), /copy must be the copy token/);
  refused(() => parseChangesQuery('since=1&copy=a&copy=a'), /copy is given more than once/);
});

test('parseLastEventId() joins a repeated header (then refuses it) and reads a whitespace-only one as none', () => {
  refused(() => parseLastEventId(['1', '2']), /"1,2"/);
  assert.equal(parseLastEventId(['7']), 7);
  assert.equal(parseLastEventId('   '), undefined);
  assert.equal(parseLastEventId('\t4\t'), 4);
});

test('parseChangesQuery() and parseLastEventId() quote a bad value whole up to 60 characters, clipped to 57 and "..." past that', () => {
  const sixty = 'x'.repeat(60);
  const longer = `${'y'.repeat(57)}ZZZZ`;
  refused(() => parseChangesQuery(`since=${sixty}`), new RegExp(`got "${sixty}"\\.$`));
  refused(() => parseChangesQuery(`since=${longer}`), new RegExp(`got "${'y'.repeat(57)}\\.\\.\\."\\.$`));
  refused(() => parseChangesQuery(`since=1&${longer}=1`), new RegExp(`Unknown query parameter "${'y'.repeat(57)}\\.\\.\\."`));
  refused(() => parseLastEventId(longer), new RegExp(`got "${'y'.repeat(57)}\\.\\.\\."\\.$`));
});
