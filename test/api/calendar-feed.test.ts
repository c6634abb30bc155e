// Whole-request tests of GET /events.ics (API.md §9.1): the feed read back by ical.js, the feed key in the URL and nowhere else, ETag/304, HEAD, the query, the 31-day window.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { randomBytes } from 'node:crypto';
import { createKey } from '../../src/auth/key-registry.js';
import { updateKeys } from '../../src/auth/key-file.js';
import { openApp, type App } from '../../src/app.js';
import { createLogger } from '../../src/log/logger.js';
import { call, startHarness, type Harness } from '../helpers/harness.js';
import { parseFeed } from '../feeds/parse-feed.js';
import { assertError, createEvent } from './support.js';

const CALENDAR_TYPE = 'text/calendar; charset=utf-8';
const INVALID_TOKEN_CHALLENGE = 'Bearer realm="campus-events", error="invalid_token"';
/** The injected "now": 2026-09-15 13:45 UTC, so the default window starts 2026-08-15T00:00:00Z. */
const NOW = Date.UTC(2026, 8, 15, 13, 45, 12, 345);
const WINDOW_START = Date.UTC(2026, 7, 15);

const HOSTILE_TEXT = 'Commas, semicolons; back\\slashes \\n, and\nnew\r\nlines — 🎉👩‍🔬 𝄞 日本語 ' + '🎉'.repeat(30);
const HOSTILE_LINE = Array.from(HOSTILE_TEXT.replace(/[\r\n]/g, ' ')).slice(0, 150).join('');

describe('GET /events.ics', () => {
  let h: Harness;
  before(async () => (h = await startHarness({ now: () => NOW })));
  after(() => h.close());

  it('gives every matching event back through an independent parser, with its times and its text intact', async () => {
    const plain = await createEvent(h, h.keys.organizer, { start_time: '2026-09-01T17:00:00Z', end_time: '2026-09-01T19:00:00Z' });
    const hostile = await createEvent(h, h.keys.admin, {
      title: HOSTILE_LINE,
      description: HOSTILE_TEXT + '\n\n' + HOSTILE_TEXT,
      location: 'Room 1; Building 2, Floor \\3 🎉',
      category: 'social',
      start_time: '2026-09-02T08:30:00+02:00',
      end_time: '2026-09-02T23:59:59.999Z',
      organizer: { name: 'Doe, "JD" ^ Jane; 🎉', email: 'jane.doe@campus.edu' },
    });
    const response = await h.request('GET', `/events.ics?key=${h.keys.feed}`);
    assert.equal(response.status, 200, response.text ?? '');
    assert.equal(response.headers['Content-Type'], CALENDAR_TYPE);
    const feed = parseFeed(response.text!);
    assert.equal(feed.properties['version'], '2.0');
    assert.equal(feed.properties['prodid'], '-//campus-events//EN');
    assert.equal(feed.properties['calscale'], 'GREGORIAN');
    assert.equal(feed.properties['method'], 'PUBLISH');
    assert.equal(feed.properties['x-wr-calname'], 'Campus events');
    assert.match(response.text!, /\r\nREFRESH-INTERVAL;VALUE=DURATION:PT1H\r\nX-PUBLISHED-TTL:PT1H\r\n/);
    const byUid = new Map(feed.events.map((event) => [event.uid, event]));
    assert.equal(feed.events.length, 2);

    const first = byUid.get(`${plain['id']}@campus-events`)!;
    assert.equal(first.summary, plain['title']);
    assert.equal(first.description, plain['description']);
    assert.equal(first.location, plain['location']);
    assert.equal(first.categories, 'academic');
    assert.equal(first.startMs, Date.UTC(2026, 8, 1, 17));
    assert.equal(first.endMs, Date.UTC(2026, 8, 1, 19));
    assert.equal(first.organizerName, 'Olivia Organizer');
    assert.equal(first.organizerUri, 'mailto:olivia@campus.edu');
    assert.equal(first.createdMs, Math.floor(NOW / 1000) * 1000);
    assert.equal(first.lastModifiedMs, first.createdMs);
    assert.equal(first.dtstampMs, first.lastModifiedMs);

    const second = byUid.get(`${hostile['id']}@campus-events`)!;
    assert.equal(second.summary, HOSTILE_LINE);
    // Line breaks come back as LF whatever was sent: CRLF in a description is one break.
    assert.equal(second.description, (HOSTILE_TEXT + '\n\n' + HOSTILE_TEXT).replace(/\r\n/g, '\n'));
    assert.equal(second.location, 'Room 1; Building 2, Floor \\3 🎉');
    assert.equal(second.categories, 'social');
    assert.equal(second.startMs, Date.UTC(2026, 8, 2, 6, 30));
    assert.equal(second.endMs, Date.UTC(2026, 8, 3), 'iCalendar has whole seconds: an end is rounded up, so the VEVENT covers the event');
    assert.equal(second.organizerName, 'Doe, "JD" ^ Jane; 🎉');
    assert.equal(second.organizerUri, 'mailto:jane.doe@campus.edu');
    assert.deepEqual(feed.events.map((event) => event.uid), [`${plain['id']}@campus-events`, `${hostile['id']}@campus-events`], 'list order');
  });

  it('answers the same bytes and the same strong ETag twice, 304 to If-None-Match, and a new ETag after a change', async () => {
    const event = await createEvent(h, h.keys.organizer, { title: 'ETag check', start_time: '2026-10-01T10:00:00Z', end_time: '2026-10-01T11:00:00Z' });
    const first = await h.request('GET', '/events.ics', { key: h.keys.reader });
    const second = await h.request('GET', `/events.ics?key=${h.keys.feed}`);
    assert.equal(first.status, 200);
    assert.equal(second.text, first.text, 'same bytes');
    const etag = first.headers['ETag']!;
    assert.match(etag, /^"[A-Za-z0-9_-]{20,}"$/, 'a strong ETag');
    assert.equal(second.headers['ETag'], etag);
    const notModified = await h.request('GET', `/events.ics?key=${h.keys.feed}`, { headers: { 'If-None-Match': etag } });
    assert.equal(notModified.status, 304);
    assert.equal(notModified.text, null);
    assert.equal(notModified.headers['ETag'], etag);
    assert.equal((await h.request('GET', `/events.ics?key=${h.keys.feed}`, { headers: { 'If-None-Match': `W/${etag}` } })).status, 304);
    assert.equal((await h.request('GET', `/events.ics?key=${h.keys.feed}`, { headers: { 'If-None-Match': '"something-else"' } })).status, 200);

    const updated = await h.request('PUT', `/events/${event['id']}`, { key: h.keys.organizer, body: { title: 'ETag check, renamed' } });
    assert.equal(updated.status, 200);
    const after = await h.request('GET', `/events.ics?key=${h.keys.feed}`, { headers: { 'If-None-Match': etag } });
    assert.equal(after.status, 200);
    assert.notEqual(after.headers['ETag'], etag);
    assert.ok(after.text!.includes('SUMMARY:ETag check\\, renamed'));
  });

  it('keeps its filters: category, start_date and end_date as GET /events, under /v1 too', async () => {
    await createEvent(h, h.keys.organizer, { title: 'Match day', category: 'athletic', start_time: '2026-11-05T10:00:00Z', end_time: '2026-11-05T12:00:00Z' });
    const athletic = parseFeed((await h.request('GET', `/v1/events.ics?category=athletic&key=${h.keys.feed}`)).text!);
    assert.deepEqual(athletic.events.map((event) => event.summary), ['Match day']);
    assert.equal(athletic.properties['x-wr-calname'], 'Campus events: athletic');
    const november = parseFeed((await h.request('GET', `/events.ics?start_date=2026-11-01&end_date=2026-11-05&key=${h.keys.feed}`)).text!);
    assert.deepEqual(november.events.map((event) => event.summary), ['Match day']);
    const list = await h.request('GET', '/events?start_date=2026-09-01&limit=100', { key: h.keys.reader });
    const feed = parseFeed((await h.request('GET', `/events.ics?start_date=2026-09-01&key=${h.keys.feed}`)).text!);
    assert.deepEqual(feed.events.map((event) => event.uid), list.json.events.map((event: { id: string }) => `${event.id}@campus-events`), 'the events of GET /events, in its order');
  });

  it('refuses limit and page, unknown parameters and bad values with a 400 naming the parameter', async () => {
    for (const [query, name] of [['limit=10', 'limit'], ['page=1', 'page'], ['q=--', 'q'], ['sort=title', 'sort'], ['category=party', 'category'], ['start_date=2026-02-30', 'start_date'], ['start_date=2026-09-02&end_date=2026-09-01', 'start_date'], ['category=social&category=social', 'category']] as const) {
      const response = await h.request('GET', `/events.ics?${query}&key=${h.keys.feed}`);
      assert.ok(assertError(response, 400, 'bad_request')['message'].includes(name), `${query}: ${response.text}`);
    }
  });

  it('answers OPTIONS with its methods, and 405 to any other method', async () => {
    const options = await h.request('OPTIONS', '/events.ics');
    assert.equal(options.status, 204);
    assert.equal(options.headers['Allow'], 'GET, HEAD, OPTIONS');
    const post = await h.request('POST', '/events.ics', { key: h.keys.admin, body: {} });
    assertError(post, 405, 'method_not_allowed');
  });
});

describe('GET /events.ics: the default 31-day window, with an injected clock', () => {
  let h: Harness;
  let clock = NOW;
  before(async () => (h = await startHarness({ now: () => clock })));
  after(() => h.close());

  it('starts exactly at midnight UTC 31 days before today', async () => {
    await createEvent(h, h.keys.organizer, { title: 'Just before', start_time: '2026-08-14T23:59:59.999Z', end_time: '2026-08-15T01:00:00Z' });
    await createEvent(h, h.keys.organizer, { title: 'First in', start_time: '2026-08-15T00:00:00Z', end_time: '2026-08-15T01:00:00Z' });
    await createEvent(h, h.keys.organizer, { title: 'Future', start_time: '2030-01-01T00:00:00Z', end_time: '2030-01-01T01:00:00Z' });
    const titles = async (query = ''): Promise<string[]> => parseFeed((await h.request('GET', `/events.ics?key=${h.keys.feed}${query}`)).text!).events.map((event) => event.summary);
    assert.equal(WINDOW_START, Date.UTC(2026, 7, 15));
    assert.deepEqual(await titles(), ['First in', 'Future']);
    assert.deepEqual(await titles('&start_date=2026-08-01'), ['Just before', 'First in', 'Future'], 'a start_date replaces the default');
    clock = Date.UTC(2026, 8, 14, 23, 59, 59, 999); // one day earlier: the window starts on the 14th
    assert.deepEqual(await titles(), ['Just before', 'First in', 'Future']);
    clock = Date.UTC(2026, 8, 16); // the 16th: the window starts on the 16th of August
    assert.deepEqual(await titles(), ['Future']);
  });
});

describe('GET /events.ics: LAST-MODIFIED and DTSTAMP are the last change, registrations included', () => {
  let h: Harness;
  let clock = Date.UTC(2026, 7, 20, 9, 30);
  before(async () => (h = await startHarness({ now: () => clock })));
  after(() => h.close());

  async function feedEvent(app: App = h.app): Promise<{ lastModifiedMs: number; dtstampMs: number; createdMs: number; etag: string; text: string }> {
    const response = await call(app, 'GET', `/events.ics?key=${h.keys.feed}`);
    assert.equal(response.status, 200);
    const [event] = parseFeed(response.text!).events;
    return { ...event!, etag: response.headers['ETag']!, text: response.text! };
  }

  it('moves with an update and with a registration, and not with time alone', async () => {
    const created = await createEvent(h, h.keys.organizer, { start_time: '2026-09-01T17:00:00Z', end_time: '2026-09-01T19:00:00Z' });
    const atCreate = await feedEvent();
    assert.equal(atCreate.createdMs, Date.UTC(2026, 7, 20, 9, 30));
    assert.equal(atCreate.lastModifiedMs, Date.UTC(2026, 7, 20, 9, 30));

    clock = Date.UTC(2026, 7, 21, 8);
    const later = await feedEvent();
    assert.equal(later.text, atCreate.text, 'asking later gives the same bytes');
    assert.equal(later.etag, atCreate.etag);

    const updated = await h.request('PUT', `/events/${created['id']}`, { key: h.keys.organizer, body: { location: 'Hall B' } });
    assert.equal(updated.status, 200);
    const afterUpdate = await feedEvent();
    assert.equal(afterUpdate.lastModifiedMs, Date.UTC(2026, 7, 21, 8));
    assert.equal(afterUpdate.dtstampMs, afterUpdate.lastModifiedMs);
    assert.equal(afterUpdate.createdMs, atCreate.createdMs);

    clock = Date.UTC(2026, 7, 22, 14, 15, 16);
    const registered = await h.request('POST', `/events/${created['id']}/registrations`, { key: h.keys.reader, body: { name: 'Sam Student', email: 'sam@campus.edu' } });
    assert.equal(registered.status, 201, registered.text ?? '');
    const afterRegistration = await feedEvent();
    assert.equal(afterRegistration.lastModifiedMs, Date.UTC(2026, 7, 22, 14, 15, 16));
    assert.equal(afterRegistration.dtstampMs, afterRegistration.lastModifiedMs);
    assert.notEqual(afterRegistration.etag, afterUpdate.etag, 'a registration changes the feed and its ETag');
  });

  it('gives the same bytes and ETag after a restart on the same data', async () => {
    const before = await feedEvent();
    await h.app.close();
    const restarted = await openApp({ dataDir: h.dataDir, keyPollMs: 0, now: () => clock + 86_400_000 }, { unsafeNoSync: true });
    try {
      const after = await feedEvent(restarted);
      assert.equal(after.text, before.text);
      assert.equal(after.etag, before.etag);
    } finally {
      await restarted.close();
    }
  });
});

describe('GET /events.ics: at most 1000 events', () => {
  let h: Harness;
  before(async () => (h = await startHarness({ now: () => NOW, rateLimit: 10_000 })));
  after(() => h.close());

  it('holds the first 1000 matching events in list order', async () => {
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 1003; i++) {
      const start = new Date(Date.UTC(2026, 9, 1) + (1003 - i) * 60_000).toISOString();
      writes.push(createEvent(h, h.keys.organizer, { title: `Event ${i}`, start_time: start, end_time: '2026-12-01T00:00:00Z' }));
    }
    await Promise.all(writes);
    const feed = parseFeed((await h.request('GET', `/events.ics?key=${h.keys.feed}`)).text!);
    const list = [...(await h.request('GET', '/events?limit=100&page=1', { key: h.keys.reader })).json.events];
    assert.equal(feed.events.length, 1000);
    assert.deepEqual(feed.events.slice(0, 100).map((event) => event.uid), list.map((event: { id: string }) => `${event.id}@campus-events`));
    assert.equal(feed.events[999]!.summary, 'Event 3', 'the three latest starts are the ones left out');
  });
});

describe('GET /events.ics: the feed key', () => {
  let h: Harness;
  before(async () => (h = await startHarness()));
  after(() => h.close());

  it('works in the URL and in the Authorization header on this route', async () => {
    assert.equal((await h.request('GET', `/events.ics?key=${h.keys.feed}`)).status, 200);
    assert.equal((await h.request('GET', `/events.ics?key=${encodeURIComponent(h.keys.feed)}&category=social`)).status, 200);
    assert.equal((await h.request('GET', '/events.ics', { key: h.keys.feed })).status, 200);
  });

  it('may do nothing else: 403 on every other route', async () => {
    const event = await createEvent(h, h.keys.organizer);
    for (const [method, target, body] of [
      ['GET', '/events', undefined],
      ['HEAD', '/events', undefined],
      ['GET', `/events/${event['id']}`, undefined],
      ['POST', '/events', {}],
      ['PUT', `/events/${event['id']}`, {}],
      ['DELETE', `/events/${event['id']}`, undefined],
      ['POST', `/events/${event['id']}/registrations`, { name: 'Fay', email: 'fay@campus.edu' }],
      ['GET', `/events/${event['id']}/registrations`, undefined],
      ['GET', `/events/${event['id']}/registrations/reg_00000000000000000000000`, undefined],
      ['DELETE', `/events/${event['id']}/registrations/reg_00000000000000000000000`, undefined],
    ] as const) {
      const response = await h.request(method, target, { key: h.keys.feed, body });
      assert.equal(response.status, 403, `${method} ${target}`);
      if (method !== 'HEAD') assertError(response, 403, 'forbidden');
    }
    const me = await h.request('GET', '/me', { key: h.keys.feed });
    assert.equal(me.status, 200, 'GET /me works for any role, feed included');
    assert.equal(me.json.role, 'feed');
  });

  it('is not taken from the URL of any other route: 401 without a header, 400 (unknown parameter) with one', async () => {
    const event = await createEvent(h, h.keys.organizer);
    for (const target of ['/events', `/events/${event['id']}`, '/changes', '/me']) {
      const bare = await h.request('GET', `${target}?key=${h.keys.feed}`);
      assertError(bare, 401, 'unauthorized');
      // A page that cannot send a header (an EventSource) learns why its ?key= was not taken.
      assert.equal(bare.json.message, 'This endpoint needs an API key: send Authorization: Bearer <key>. Only the calendar feed (/events.ics) takes a key in ?key=, and only a feed key.');
      assert.equal(bare.text!.includes(h.keys.feed), false, 'the key is not echoed');
      const withHeader = await h.request('GET', `${target}?key=${h.keys.feed}`, { key: h.keys.reader });
      assertError(withHeader, 400, 'bad_request');
      assert.equal(withHeader.text!.includes(h.keys.feed), false, 'the key is not echoed');
    }
  });

  it('refuses any other role\'s key in the URL with 401 invalid_token, as an unknown or revoked key', async () => {
    const revoked = await createKey(h.dataDir, { name: 'Gone Feed', email: 'gone@campus.edu', role: 'feed' }, { randomBytes, now: Date.now });
    await updateKeys(h.dataDir, (keys) => {
      for (const key of keys) if (key.id === revoked.record.id) key.revoked_at = new Date().toISOString();
    });
    for (const key of [h.keys.admin, h.keys.organizer, h.keys.reader, 'cek_unknown', 'cek_' + 'A'.repeat(39), revoked.secret, '']) {
      const response = await h.request('GET', `/events.ics?key=${encodeURIComponent(key)}`, { remoteAddress: '10.0.0.1' });
      assertError(response, 401, 'unauthorized');
      assert.equal(response.headers['WWW-Authenticate'], INVALID_TOKEN_CHALLENGE, key);
      assert.match(response.json.message, /feed/);
    }
  });

  it('answers 400 to a key both in the header and in the URL, and to a key given twice', async () => {
    assertError(await h.request('GET', `/events.ics?key=${h.keys.feed}`, { key: h.keys.feed }), 400, 'bad_request');
    assertError(await h.request('GET', `/events.ics?key=${h.keys.feed}`, { key: h.keys.admin }), 400, 'bad_request');
    assertError(await h.request('GET', `/events.ics?key=${h.keys.feed}&key=${h.keys.feed}`), 400, 'bad_request');
  });

  it('counts a refused ?key= as a failed authentication: the 101st from one address gets 429', async () => {
    const address = '192.0.2.77';
    for (let i = 0; i < 100; i++) {
      const response = await h.request('GET', `/events.ics?key=${h.keys.reader}`, { remoteAddress: address });
      assert.equal(response.status, 401, `attempt ${i + 1}`);
    }
    const blocked = await h.request('GET', `/events.ics?key=${h.keys.admin}`, { remoteAddress: address });
    assertError(blocked, 429, 'rate_limited');
    assert.ok(Number(blocked.headers['Retry-After']) >= 1);
    assert.equal((await h.request('GET', `/events.ics?key=${h.keys.feed}`, { remoteAddress: address })).status, 200, 'a good key is never limited by address');
  });
});

describe('GET /events.ics over a socket', () => {
  let h: Harness;
  let server: http.Server;
  let base: string;
  const logged: string[] = [];
  before(async () => {
    // Every line written at once, so the test reads the log without waiting for the batching timer.
    const logger = createLogger({ level: 'debug', write: (text) => logged.push(text), schedule: (flush) => queueMicrotask(flush) });
    h = await startHarness({ logger });
    server = http.createServer(h.app.handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await h.close();
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    await createEvent(h, h.keys.organizer, { start_time: '2099-01-01T10:00:00Z', end_time: '2099-01-01T11:00:00Z' });
    const get = await fetch(`${base}/events.ics?key=${h.keys.feed}`);
    const body = await get.text();
    assert.equal(get.status, 200);
    assert.equal(get.headers.get('content-type'), CALENDAR_TYPE);
    assert.ok(body.includes('BEGIN:VEVENT'));
    const head = await fetch(`${base}/events.ics?key=${h.keys.feed}`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-type'), CALENDAR_TYPE);
    assert.equal(head.headers.get('etag'), get.headers.get('etag'));
    assert.equal(head.headers.get('content-length'), String(Buffer.byteLength(body)));
    assert.equal((await head.arrayBuffer()).byteLength, 0);
  });

  it('never writes the key to the log, however the URL spells it', async () => {
    const feed = h.keys.feed;
    const everyOctetEncoded = [...Buffer.from(feed)].map((byte) => '%' + byte.toString(16).padStart(2, '0')).join('');
    const targets = [
      `/events.ics?key=${feed}`,
      `/events.ics?category=social&key=${feed}`,
      `/events.ics?key=${everyOctetEncoded}`,
      `/events.ics?key=${everyOctetEncoded.toUpperCase()}`,
      `/events.ics?key=${feed.replace('cek_', 'cek%5F')}`,
      `/events.ics?%6Bey=${feed}`,
      `/events.ics?key=${h.keys.admin}`,
      `/v1/events.ics?key=${h.keys.reader}&limit=5`,
      `/events?key=${feed}`,
      `/events.ics?key=${feed}&key=${feed}`,
      `/events.ics?key=${h.keys.admin.slice(4)}`,
    ];
    const statuses: number[] = [];
    for (const target of targets) {
      const response = await fetch(base + target);
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 401, 401, 401, 400, 401]);
    const log = logged.join('');
    const requestLines = log.split('\n').filter((line) => line.includes('"msg":"request"'));
    assert.ok(requestLines.length >= targets.length, `every request was logged:\n${log}`);
    for (const secret of [h.keys.feed, h.keys.admin, h.keys.reader]) {
      const body = secret.slice(4);
      for (const form of [body, body.slice(0, 16), encodeURIComponent(body), [...Buffer.from(body)].map((byte) => '%' + byte.toString(16).padStart(2, '0')).join('').slice(0, 30)]) {
        assert.equal(log.toLowerCase().includes(form.toLowerCase()), false, `the log holds ${form}:\n${log}`);
      }
    }
    assert.ok(log.includes('key=[redacted]'), 'the parameter is shown, its value redacted');
  });
});
