import assert from 'node:assert/strict';
import test from 'node:test';
import { matchesIfMatch, matchesNoneMatch } from '../../src/http/conditional.js';

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
