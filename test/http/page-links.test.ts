// Tests for pageLinks: first and last always, prev and next where they exist, filters and limit kept.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pageLinks } from '../../src/http/page-links.js';

const at = (page: number, total: number) => pageLinks({ path: '/v1/events', filters: [['category', 'social'], ['start_date', '2026-09-01']], page, limit: 10, total });

test('pageLinks() gives first and last on the only page of a list', () => {
  assert.equal(at(1, 5), '</v1/events?category=social&start_date=2026-09-01&limit=10&page=1>; rel="first", </v1/events?category=social&start_date=2026-09-01&limit=10&page=1>; rel="last"');
});

test('pageLinks() gives first, prev, next and last in the middle, in that order', () => {
  const rels = [...at(2, 25).matchAll(/page=(\d+)>; rel="(\w+)"/g)].map((match) => `${match[2]}=${match[1]}`);
  assert.deepEqual(rels, ['first=1', 'prev=1', 'next=3', 'last=3']);
});

test('pageLinks() past the end: prev is the last page that has items, no next', () => {
  const rels = [...at(7, 25).matchAll(/page=(\d+)>; rel="(\w+)"/g)].map((match) => `${match[2]}=${match[1]}`);
  assert.deepEqual(rels, ['first=1', 'prev=3', 'last=3']);
});

test('pageLinks() of an empty list: one empty page, first = last = 1; past it, prev is that page', () => {
  const rels = (page: number): string[] => [...at(page, 0).matchAll(/page=(\d+)>; rel="(\w+)"/g)].map((match) => `${match[2]}=${match[1]}`);
  assert.deepEqual(rels(1), ['first=1', 'last=1']);
  assert.deepEqual(rels(2), ['first=1', 'prev=1', 'last=1']);
  assert.deepEqual(rels(7), ['first=1', 'prev=1', 'last=1']);
});

test('pageLinks() encodes filter values', () => {
  assert.match(pageLinks({ path: '/events', filters: [['q', 'a&b c']], page: 1, limit: 5, total: 1 }), /^<\/events\?q=a%26b%20c&limit=5&page=1>/);
});
