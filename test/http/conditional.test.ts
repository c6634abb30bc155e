// If-Match and If-None-Match against an ETag (RFC 9110 §13.1), and the 412 of an If-Match that does not match.
import assert from 'node:assert/strict';
import test from 'node:test';
import { checkIfMatch, matchesIfMatch, matchesNoneMatch } from '../../src/http/conditional.js';
import { ApiError } from '../../src/http/errors.js';

const ETAG = '"e1-7"';

test('matchesIfMatch: the strong comparison, in a list, with * for any', () => {
  assert.equal(matchesIfMatch('"e1-7"', ETAG), true);
  assert.equal(matchesIfMatch(' "x" , "e1-7" ', ETAG), true);
  assert.equal(matchesIfMatch('*', ETAG), true);
  assert.equal(matchesIfMatch('W/"e1-7"', ETAG), false, 'a weak tag never matches If-Match');
  assert.equal(matchesIfMatch('"e1-6"', ETAG), false);
});

test('matchesNoneMatch: the weak comparison, in a list, with * for any; no header matches nothing', () => {
  assert.equal(matchesNoneMatch('W/"e1-7"', ETAG), true);
  assert.equal(matchesNoneMatch('"x", W/"e1-7"', ETAG), true);
  assert.equal(matchesNoneMatch(' * ', ETAG), true);
  assert.equal(matchesNoneMatch('"e1-6"', ETAG), false);
  assert.equal(matchesNoneMatch(undefined, ETAG), false);
});

test('checkIfMatch: nothing without the header or with a match; a 412 naming the header, the current ETag and what it is of', () => {
  checkIfMatch(undefined, ETAG, 'event "evt_1"');
  checkIfMatch('"e1-7"', ETAG, 'event "evt_1"');
  assert.throws(() => checkIfMatch('"e1-6"', ETAG, 'series "ser_1"'), (error: unknown) =>
    error instanceof ApiError && error.status === 412 && error.message === 'If-Match "e1-6" does not match the current ETag "e1-7" of series "ser_1"; read it again and retry.');
});
