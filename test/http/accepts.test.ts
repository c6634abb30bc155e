// prefers(): Accept with quality values decides between a route's JSON and its other media type.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { prefers } from '../../src/http/accepts.js';

test('prefers() picks the named type when it is listed above JSON, and JSON otherwise', () => {
  const cases: [string | undefined, boolean][] = [
    ['text/csv', true],
    ['TEXT/CSV; charset=utf-8', true],
    ['text/csv, */*;q=0.8', true],
    ['text/csv, */*', true],
    ['application/json, text/csv', false],
    ['text/csv;q=0.5, application/json', false],
    ['text/csv;q=0.9, application/json;q=0.5', true],
    ['text/csv;q=0', false],
    ['*/*', false],
    ['text/html, text/plain', false],
    [undefined, false],
    ['', false],
  ];
  for (const [accept, expected] of cases) assert.equal(prefers(accept, 'text/csv'), expected, String(accept));
  assert.equal(prefers('text/event-stream;q=0, application/json', 'text/event-stream'), false);
  assert.equal(prefers('text/event-stream', 'text/event-stream'), true);
});
