// Whole-request tests of GET /events (API.md §5): order, filters, paging, Link, and strict query parameters.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../helpers/harness.js';
import { assertError, createEvent, VIEW_FIELDS } from './support.js';

/** Parses a Link header into rel → URL. */
function links(header: string | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  if (header === undefined) return result;
  for (const part of header.split(',')) {
    const match = /^\s*<([^>]*)>\s*;\s*rel="([^"]+)"\s*$/.exec(part);
    assert.ok(match !== null, `Link part ${JSON.stringify(part)} is not <url>; rel="x"`);
    result[match[2]!] = match[1]!;
  }
  return result;
}

function splitUrl(url: string): { path: string; query: Record<string, string> } {
  const at = url.indexOf('?');
  return { path: at === -1 ? url : url.slice(0, at), query: Object.fromEntries(new URLSearchParams(at === -1 ? '' : url.slice(at + 1))) };
}

describe('GET /events', () => {
  let h: Harness;
  /** label → id */
  const ids: Record<string, string> = {};

  before(async () => {
    h = await startHarness();
    const events: [string, Record<string, unknown>][] = [
      ['E', { category: 'academic', start_time: '2026-09-05T09:00:00Z', end_time: '2026-09-05T10:00:00Z' }],
      ['A', { category: 'academic', start_time: '2026-09-01T00:00:00Z', end_time: '2026-09-01T02:00:00Z' }],
      ['C', { category: 'athletic', start_time: '2026-09-02T10:00:00Z', end_time: '2026-09-03T00:00:00Z' }],
      ['B', { category: 'social', start_time: '2026-08-31T23:59:59.999Z', end_time: '2026-09-01T01:00:00Z' }],
      ['D', { category: 'cultural', start_time: '2026-09-02T12:00:00+02:00', end_time: '2026-09-03T00:00:00.001Z' }],
    ];
    for (const [label, overrides] of events) ids[label] = (await createEvent(h, h.keys.organizer, { title: `Event ${label}`, ...overrides })).id;
  });
  after(() => h.close());

  /** Start times of the labelled events, in UTC (D is given with an offset and starts with C). */
  const starts: Record<string, string> = { A: '2026-09-01T00:00:00.000Z', B: '2026-08-31T23:59:59.999Z', C: '2026-09-02T10:00:00.000Z', D: '2026-09-02T10:00:00.000Z', E: '2026-09-05T09:00:00.000Z' };

  /** The ids of `labels` in the contract's order: start_time, then id by plain string comparison. */
  function expectedOrder(labels: string[]): string[] {
    const key = (label: string): string => `${starts[label]} ${ids[label]}`;
    return [...labels].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)).map((label) => ids[label]!);
  }

  async function listIds(query: string): Promise<string[]> {
    const response = await h.request('GET', `/events${query}`, { key: h.keys.reader });
    assert.equal(response.status, 200, response.text ?? '');
    return response.json.events.map((event: { id: string }) => event.id);
  }

  it('answers {events, total, page} with list items carrying every field but created_at', async () => {
    const response = await h.request('GET', '/events', { key: h.keys.reader });
    assert.equal(response.status, 200);
    assert.deepEqual(Object.keys(response.json), ['events', 'total', 'page']);
    assert.equal(response.json.total, 5);
    assert.equal(response.json.page, 1);
    for (const event of response.json.events) assert.deepEqual(Object.keys(event), VIEW_FIELDS);
    assert.deepEqual(Object.keys(links(response.headers['Link'])), ['first', 'last'], 'one page: no next, no prev');
  });

  it('orders by start_time, then id by plain string comparison', async () => {
    assert.deepEqual(await listIds(''), expectedOrder(['A', 'B', 'C', 'D', 'E']));
  });

  it('start_date includes events starting exactly at D 00:00Z and excludes those a millisecond before', async () => {
    assert.deepEqual(await listIds('?start_date=2026-09-01'), expectedOrder(['A', 'C', 'D', 'E']));
  });

  it('end_date includes events ending exactly at D+1 00:00Z and excludes those a millisecond after', async () => {
    assert.deepEqual(await listIds('?end_date=2026-09-02'), expectedOrder(['A', 'B', 'C']));
  });

  it('combines filters, and start_date equal to end_date is allowed', async () => {
    assert.deepEqual(await listIds('?start_date=2026-09-01&end_date=2026-09-02'), expectedOrder(['A', 'C']));
    assert.deepEqual(await listIds('?start_date=2026-09-02&end_date=2026-09-02'), expectedOrder(['C']));
    assert.deepEqual(await listIds('?category=academic'), expectedOrder(['A', 'E']));
    assert.deepEqual(await listIds('?category=academic&start_date=2026-09-02'), expectedOrder(['E']));
    assert.deepEqual(await listIds('?category=social&start_date=2026-09-01'), []);
  });

  it('takes a date before 1970, the first year an event can start in, as a bound like any other', async () => {
    assert.deepEqual(await listIds('?start_date=1900-01-01'), expectedOrder(['A', 'B', 'C', 'D', 'E']));
    assert.deepEqual(await listIds('?start_date=0000-01-01&end_date=2026-09-02'), expectedOrder(['A', 'B', 'C']));
    assert.deepEqual(await listIds('?end_date=1969-12-31'), []);
  });

  it('counts every match in total and returns the asked page', async () => {
    const all = expectedOrder(['A', 'B', 'C', 'D', 'E']);
    const pages: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const response = await h.request('GET', `/events?limit=2&page=${page}`, { key: h.keys.reader });
      assert.equal(response.json.total, 5);
      assert.equal(response.json.page, page);
      assert.equal(response.json.events.length, page < 3 ? 2 : 1);
      pages.push(...response.json.events.map((event: { id: string }) => event.id));
    }
    assert.deepEqual(pages, all, 'pages are stable and in order');
  });

  it('answers an empty page past the end, with the true total', async () => {
    const response = await h.request('GET', '/events?limit=2&page=4', { key: h.keys.reader });
    assert.equal(response.status, 200);
    assert.deepEqual(response.json.events, []);
    assert.equal(response.json.total, 5);
    assert.equal(response.json.page, 4);
    assert.equal(links(response.headers['Link'])['next'], undefined);
  });

  it('gives Link next on the first page, next and prev in the middle, prev on the last', async () => {
    const first = links((await h.request('GET', '/events?limit=2', { key: h.keys.reader })).headers['Link']);
    assert.deepEqual(Object.keys(first), ['first', 'next', 'last']);
    assert.deepEqual(splitUrl(first['next']!), { path: '/events', query: { limit: '2', page: '2' } });
    const middle = links((await h.request('GET', '/events?limit=2&page=2', { key: h.keys.reader })).headers['Link']);
    assert.deepEqual(Object.keys(middle), ['first', 'prev', 'next', 'last']);
    assert.equal(splitUrl(middle['next']!).query['page'], '3');
    assert.equal(splitUrl(middle['prev']!).query['page'], '1');
    const last = links((await h.request('GET', '/events?limit=2&page=3', { key: h.keys.reader })).headers['Link']);
    assert.deepEqual(Object.keys(last), ['first', 'prev', 'last']);
    for (const page of [first, middle, last]) {
      assert.deepEqual(splitUrl(page['first']!), { path: '/events', query: { limit: '2', page: '1' } });
      assert.deepEqual(splitUrl(page['last']!), { path: '/events', query: { limit: '2', page: '3' } });
    }
  });

  it('keeps the filters and the /v1 prefix in Link, and following next gives the next page', async () => {
    const response = await h.request('GET', '/v1/events?category=academic&start_date=2026-08-01&end_date=2026-12-31&limit=1', { key: h.keys.reader });
    assert.equal(response.json.total, 2);
    const next = links(response.headers['Link'])['next']!;
    assert.deepEqual(splitUrl(next), { path: '/v1/events', query: { category: 'academic', start_date: '2026-08-01', end_date: '2026-12-31', limit: '1', page: '2' } });
    const followed = await h.request('GET', next, { key: h.keys.reader });
    assert.equal(followed.status, 200);
    assert.deepEqual(followed.json.events.map((event: { id: string }) => event.id), expectedOrder(['A', 'E']).slice(1));
    const prev = links(followed.headers['Link'])['prev']!;
    assert.deepEqual(splitUrl(prev), { path: '/v1/events', query: { category: 'academic', start_date: '2026-08-01', end_date: '2026-12-31', limit: '1', page: '1' } });
  });

  it('sends an ETag, answers If-None-Match with it by a bodiless 304, and changes the tag when the page changes', async () => {
    const first = await h.request('GET', '/events?limit=2', { key: h.keys.reader });
    const etag = first.headers['ETag']!;
    assert.match(etag, /^"[^"]+"$/, 'a strong ETag');
    const again = await h.request('GET', '/events?limit=2', { key: h.keys.reader, headers: { 'If-None-Match': etag } });
    assert.equal(again.status, 304);
    assert.equal(again.text, null);
    assert.equal(again.headers['ETag'], etag);
    assert.equal((await h.request('GET', '/events?limit=2', { key: h.keys.reader, headers: { 'If-None-Match': `W/${etag}, "other"` } })).status, 304, 'weak comparison, lists of tags');
    assert.notEqual((await h.request('GET', '/events?limit=3', { key: h.keys.reader })).headers['ETag'], etag, 'another page, another tag');
    const created = await createEvent(h, h.keys.organizer, { start_time: '2026-01-01T00:00:00Z', end_time: '2026-01-01T01:00:00Z' });
    const changed = await h.request('GET', '/events?limit=2', { key: h.keys.reader, headers: { 'If-None-Match': etag } });
    assert.equal(changed.status, 200, 'a new event on the page: the old tag no longer matches');
    assert.notEqual(changed.headers['ETag'], etag);
    await h.request('DELETE', `/events/${created.id}`, { key: h.keys.organizer });
  });

  it('reflects updates and deletes in order and total', async () => {
    const created = await createEvent(h, h.keys.organizer, { start_time: '2026-08-01T00:00:00Z', end_time: '2026-08-01T01:00:00Z' });
    assert.equal((await listIds(''))[0], created.id);
    await h.request('PUT', `/events/${created.id}`, { key: h.keys.organizer, body: { start_time: '2026-12-01T00:00:00Z', end_time: '2026-12-01T01:00:00Z' } });
    const moved = await listIds('');
    assert.equal(moved[moved.length - 1], created.id);
    await h.request('DELETE', `/events/${created.id}`, { key: h.keys.organizer });
    const response = await h.request('GET', '/events', { key: h.keys.reader });
    assert.equal(response.json.total, 5);
  });

  const badQueries: [string, string][] = [
    ['?colour=red', 'colour'],
    ['?limit=0', 'limit'],
    ['?limit=101', 'limit'],
    ['?limit=abc', 'limit'],
    ['?limit=', 'limit'],
    ['?limit=1.5', 'limit'],
    ['?limit=-1', 'limit'],
    ['?page=0', 'page'],
    ['?page=two', 'page'],
    ['?category=sports', 'category'],
    ['?category=Academic', 'category'],
    ['?start_date=2026-02-30', 'start_date'],
    ['?start_date=2026-9-1', 'start_date'],
    ['?start_date=2026-09-01T00:00:00Z', 'start_date'],
    ['?end_date=yesterday', 'end_date'],
    ['?end_date=2026-13-01', 'end_date'],
    ['?limit=10&limit=20', 'limit'],
    ['?start_date=2026-09-02&end_date=2026-09-01', 'start_date'],
  ];
  for (const [query, parameter] of badQueries) {
    it(`answers 400 bad_request naming ${parameter} for ${query}`, async () => {
      const response = await h.request('GET', `/events${query}`, { key: h.keys.reader });
      const body = assertError(response, 400, 'bad_request');
      assert.ok(body.message.includes(parameter), body.message);
    });
  }

  it('accepts the limit bounds 1 and 100 and a leap day', async () => {
    assert.equal((await h.request('GET', '/events?limit=1', { key: h.keys.reader })).json.events.length, 1);
    assert.equal((await h.request('GET', '/events?limit=100', { key: h.keys.reader })).status, 200);
    assert.equal((await h.request('GET', '/events?start_date=2028-02-29', { key: h.keys.reader })).status, 200);
  });
});

describe('GET /events default limit', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
    for (let i = 0; i < 51; i++) await createEvent(h, h.keys.organizer, { start_time: `2026-10-01T${String(i % 24).padStart(2, '0')}:00:00Z`, end_time: '2026-10-02T00:00:00Z' });
  });
  after(() => h.close());

  it('returns 50 events by default, with Link next to the 51st', async () => {
    const response = await h.request('GET', '/events', { key: h.keys.reader });
    assert.equal(response.json.events.length, 50);
    assert.equal(response.json.total, 51);
    const next = splitUrl(links(response.headers['Link'])['next']!);
    assert.deepEqual(next.query, { limit: '50', page: '2' });
    const second = await h.request('GET', '/events?page=2', { key: h.keys.reader });
    assert.equal(second.json.events.length, 1);
    const everything = await h.request('GET', '/events?limit=100', { key: h.keys.reader });
    assert.deepEqual(
      everything.json.events.map((event: { id: string }) => event.id),
      [...response.json.events, ...second.json.events].map((event: { id: string }) => event.id),
    );
  });
});
