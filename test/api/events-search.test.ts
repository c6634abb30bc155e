// Whole-request tests of q and several categories on GET /events and /events.ics (API.md §5, §9.1).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../helpers/harness.js';
import { parseFeed } from '../feeds/parse-feed.js';
import { assertError, createEvent } from './support.js';

describe('GET /events?q and several categories', () => {
  let h: Harness;
  const ids: Record<string, string> = {};

  before(async () => {
    h = await startHarness();
    const events: [string, Record<string, unknown>][] = [
      ['chem', { title: 'Organic Chemistry — Laboratory', category: 'academic', start_time: '2026-09-01T09:00:00Z', end_time: '2026-09-01T11:00:00Z' }],
      ['cafe', { title: 'Café philosophique', description: 'Debate night at the Straße café', category: 'social', start_time: '2026-09-02T18:00:00Z', end_time: '2026-09-02T20:00:00Z' }],
      ['yoga', { title: 'Morning yoga 🧘', location: 'İstanbul Hall', category: 'athletic', start_time: '2026-09-03T07:00:00Z', end_time: '2026-09-03T08:00:00Z' }],
      ['tokyo', { title: '東京大学 exchange talk 2026', category: 'cultural', start_time: '2026-09-04T12:00:00Z', end_time: '2026-09-04T13:00:00Z' }],
      ['chem2', { title: 'Chemistry study group', category: 'social', start_time: '2026-09-05T12:00:00Z', end_time: '2026-09-05T13:00:00Z' }],
    ];
    for (const [label, overrides] of events) ids[label] = (await createEvent(h, h.keys.organizer, overrides)).id;
  });
  after(() => h.close());

  async function list(query: string): Promise<{ ids: string[]; total: number; link: string }> {
    const response = await h.request('GET', `/events?${query}`, { key: h.keys.reader });
    assert.equal(response.status, 200, response.text ?? '');
    return { ids: response.json.events.map((event: { id: string }) => event.id), total: response.json.total, link: response.headers['Link'] ?? '' };
  }

  it('finds every query word as the start of a word, without case or accents, in list order', async () => {
    assert.deepEqual((await list('q=chem%20lab')).ids, [ids['chem']]);
    assert.deepEqual((await list('q=CHEM')).ids, [ids['chem'], ids['chem2']]);
    assert.deepEqual((await list('q=cafe')).ids, [ids['cafe']]);
    assert.deepEqual((await list('q=strass')).ids, [ids['cafe']], 'ß matches ss');
    assert.deepEqual((await list('q=istanbul')).ids, [ids['yoga']], 'İ matches i');
    assert.deepEqual((await list(`q=${encodeURIComponent('京')}`)).ids, [ids['tokyo']]);
    assert.deepEqual((await list('q=2026')).ids, [ids['tokyo']]);
    assert.deepEqual((await list('q=olivia')).ids.length, 5, 'the organizer name is searched');
    assert.deepEqual((await list('q=emistry')).ids, [], 'the middle of a word is not its start');
  });

  it('combines q with several categories and dates, and keeps q and the categories in Link', async () => {
    assert.deepEqual((await list('q=chemistry&category=social')).ids, [ids['chem2']]);
    assert.deepEqual((await list('category=academic,social')).ids, [ids['chem'], ids['cafe'], ids['chem2']]);
    assert.deepEqual((await list('category=social,academic&q=chemistry&start_date=2026-09-02')).ids, [ids['chem2']]);
    const paged = await list('q=chemistry&category=academic,social&limit=1');
    assert.equal(paged.total, 2);
    assert.match(paged.link, /<\/events\?category=academic%2Csocial&q=chemistry&limit=1&page=2>; rel="next"/);
  });

  it('sees a write as soon as its answer is sent: created, updated, deleted', async () => {
    const made = await createEvent(h, h.keys.organizer, { title: 'Zymurgy workshop', start_time: '2026-09-06T12:00:00Z', end_time: '2026-09-06T13:00:00Z' });
    assert.deepEqual((await list('q=zymurgy')).ids, [made['id']]);
    const updated = await h.request('PUT', `/events/${made['id']}`, { key: h.keys.organizer, body: { title: 'Brewing workshop' } });
    assert.equal(updated.status, 200);
    assert.deepEqual((await list('q=zymurgy')).ids, []);
    assert.deepEqual((await list('q=brew')).ids, [made['id']]);
    assert.equal((await h.request('DELETE', `/events/${made['id']}`, { key: h.keys.organizer })).status, 204);
    assert.deepEqual((await list('q=brew')).ids, []);
  });

  it('answers 400 naming q for no word, an empty or too long q, or q twice', async () => {
    for (const query of ['q=--', 'q=%F0%9F%8E%89', 'q=', `q=${'a'.repeat(201)}`, 'q=a&q=b']) {
      assert.ok(assertError(await h.request('GET', `/events?${query}`, { key: h.keys.reader }), 400, 'bad_request')['message'].includes('q'), query);
    }
    assert.equal((await h.request('GET', `/events?q=${'a'.repeat(200)}`, { key: h.keys.reader })).status, 200, '200 characters are fine');
  });

  it('answers 400 naming the category for an unknown or repeated one in a list', async () => {
    for (const [query, part] of [['category=academic,party', '"party"'], ['category=academic,academic', '"academic"'], ['category=academic,', 'category'], ['category=,', 'category']] as const) {
      assert.ok(assertError(await h.request('GET', `/events?${query}`, { key: h.keys.reader }), 400, 'bad_request')['message'].includes(part), query);
    }
  });

  it('gives the same q and categories on /events.ics, named in the calendar', async () => {
    const feed = await h.request('GET', `/events.ics?key=${h.keys.feed}&q=chemistry&category=academic,social&start_date=2026-01-01`);
    assert.equal(feed.status, 200, feed.text ?? '');
    assert.deepEqual(parseFeed(feed.text!).events.map((event) => event.summary), ['Organic Chemistry — Laboratory', 'Chemistry study group']);
    assert.match(feed.text!, /X-WR-CALNAME:Campus events: academic\\, social/);
    assertError(await h.request('GET', `/events.ics?key=${h.keys.feed}&q=--`), 400, 'bad_request');
  });
});
