// apiBase() and queryString(): where the console finds the API, and the query strings it sends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiBase, queryString } from '../../../src/console/web/api.js';
import { feedUrl } from '../../../src/console/web/feed-address.js';

test('apiBase() is the path the console is served under, so a mounted app calls its own API', () => {
  assert.equal(apiBase('/console/'), '');
  assert.equal(apiBase('/v1/console/'), '/v1');
  assert.equal(apiBase('/api/campus/console/'), '/api/campus');
  assert.equal(apiBase('/elsewhere'), '');
});

test('queryString() keeps non-empty values, encoded, and is empty when there are none', () => {
  assert.equal(queryString({ category: 'social', start_date: '', page: 2, limit: undefined }), '?category=social&page=2');
  assert.equal(queryString({ q: 'a&b c' }), '?q=a%26b+c');
  assert.equal(queryString({ category: '' }), '');
});

test('feedUrl() is the filter as an iCalendar address with key=, FEEDKEY standing in for a missing key', () => {
  assert.equal(feedUrl('http://127.0.0.1:3000', '', { category: 'academic', start_date: '', end_date: undefined }, 'cek_abc'), 'http://127.0.0.1:3000/events.ics?category=academic&key=cek_abc');
  assert.equal(feedUrl('https://events.campus.edu', '/api', {}, ''), 'https://events.campus.edu/api/events.ics?key=FEEDKEY');
});
