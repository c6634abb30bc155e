// The visibility walk of API.md §14: a draft event, a pending event and a draft series made by an organizer, then every
// read route, list (every filter, q, series_id, totals, pages), the calendar, the change feed (paged and streamed),
// webhooks (a real receiver), series lists and registration routes walked as a reader, a feed key and another organizer:
// neither appears anywhere. Their organizer and admins see them only where §14 says. Then approval makes one appear as a
// creation, a cancellation as an update with its status, and a return to pending as a deletion.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startHarness, type Harness, type TestResponse } from '../helpers/harness.js';
import { openStream, type RecordingSink } from '../feeds/stream-support.js';
import { eventually, startReceiver, type Receiver } from '../webhooks/support.js';
import { create, futureEvent, newestWrite } from './publishing-support.js';

/** Words only the hidden ones hold: a search for them must find nothing. */
const SECRET = ['Zephyrine', 'Quokkaly', 'Marmotine'];

describe('the visibility walk', () => {
  let h: Harness;
  let receiver: Receiver;
  let stream: { sink: RecordingSink; cancel: () => void };
  let start: number;
  let draft: string;
  let pending: string;
  let series: string;
  let occurrences: string[];
  let publicTotal: number;
  /** Every body a walk read, to search for the hidden ones' ids and words. */
  const seen: string[] = [];

  before(async () => {
    h = await startHarness({ approval: 'required', webhookHosts: ['127.0.0.1'], rateLimit: 1_000_000 });
    receiver = await startReceiver();
    const webhook = (await h.request('POST', '/webhooks', { key: h.keys.admin, body: { url: receiver.url } })).json;
    receiver.secret = webhook.secret;
    // Public events around them, so every list has something to page through.
    for (let n = 0; n < 6; n++) await create(h, h.keys.admin, { title: `Public lecture ${n}`, category: n % 2 === 0 ? 'academic' : 'social' });
    start = await newestWrite(h);
    stream = await openStream(h.app, h.keys.reader, `/changes?since=${start}`);
    draft = (await create(h, h.keys.organizer, { status: 'draft', title: `${SECRET[0]} rehearsal`, description: 'Public lecture style' }))['id'];
    pending = (await create(h, h.keys.organizer, { title: `${SECRET[1]} concert`, category: 'cultural' }))['id'];
    const made = await h.request('POST', '/series', { key: h.keys.organizer, body: { ...futureEvent({ title: `${SECRET[2]} club` }), recurrence: 'FREQ=WEEKLY;COUNT=3', status: 'draft' } });
    assert.equal(made.status, 201, made.text ?? '');
    series = made.json.id;
    occurrences = (await h.request('GET', `/events?series_id=${series}&status=draft`, { key: h.keys.organizer })).json.events.map((event: { id: string }) => event.id);
    assert.equal(occurrences.length, 3);
    publicTotal = (await h.request('GET', '/events', { key: h.keys.admin })).json.total;
    assert.equal(publicTotal, 6);
    // A public write after them: once its message has arrived, any message about the hidden ones would have too (in order).
    await create(h, h.keys.admin, { title: 'Marker' });
    await eventually('the marker event.created', () => receiver.unique().some((entry) => entry.message?.type === 'event.created' && (entry.message.data as { title?: string }).title === 'Marker'));
    publicTotal++;
  });
  after(async () => {
    stream.cancel();
    await receiver.close();
    await h.close();
  });

  /** The hidden ones' ids and words, none of which `text` may hold, but those the request itself sent (a Link header repeats its query). */
  function assertHiddenAbsent(text: string | null, where: string, sent = ''): void {
    if (text === null) return;
    for (const id of [draft, pending, series, ...occurrences]) if (!sent.includes(id)) assert.ok(!text.includes(id), `${where} shows ${id}`);
    for (const word of SECRET) if (!sent.includes(word)) assert.ok(!text.toLowerCase().includes(word.toLowerCase()), `${where} shows "${word}"`);
  }

  async function read(key: string, target: string, headers: Record<string, string> = {}): Promise<TestResponse> {
    const response = await h.request('GET', target, { key, headers });
    seen.push(response.text ?? '');
    assertHiddenAbsent(response.text, `GET ${target}`);
    for (const value of Object.values(response.headers)) assertHiddenAbsent(value, `a header of GET ${target}`, target);
    return response;
  }

  for (const role of ['reader', 'other'] as const) {
    test(`as ${role === 'other' ? 'another organizer' : 'a reader'}: every single read and registration route is a 404 naming the id`, async () => {
      const key = h.keys[role];
      for (const id of [draft, pending, ...occurrences]) {
        for (const target of [`/events/${id}`, `/v1/events/${id}`, `/events/${id}/registrations/reg_0000000000000000000000`]) {
          const response = await h.request('GET', target, { key });
          assert.equal(response.status, 404, `${target}: ${response.text}`);
          assert.ok(response.json.message.includes(id));
        }
        assert.equal((await h.request('HEAD', `/events/${id}`, { key })).status, 404);
        assert.equal((await h.request('POST', `/events/${id}/registrations`, { key, body: { name: 'Rita', email: 'rita@campus.edu' } })).status, 404);
        assert.equal((await h.request('DELETE', `/events/${id}/registrations/reg_0000000000000000000000`, { key })).status, 404);
      }
      assert.equal((await h.request('GET', `/series/${series}`, { key })).status, 404);
    });

    test(`as ${role === 'other' ? 'another organizer' : 'a reader'}: no list, filter, search, count or page shows them`, async () => {
      const key = h.keys[role];
      const targets = [
        '/events', '/events?limit=1', '/events?limit=2&page=2', '/events?limit=5&page=2', '/events?category=cultural', '/events?category=academic,cultural',
        `/events?start_date=2020-01-01&end_date=2099-12-31`, `/events?q=${SECRET[0]}`, `/events?q=${SECRET[1]}&category=cultural`, `/events?q=${SECRET[2]}`,
        '/events?q=public', '/events?q=rehearsal', `/events?series_id=${series}`, `/events?series_id=${series}&status=published,cancelled`,
        '/events?status=published', '/events?status=cancelled', '/events?status=published,cancelled', '/v1/events?limit=3',
        '/series', `/series?status=published,cancelled`, '/events.ics', `/events.ics?q=${SECRET[1]}`, `/events.ics?series_id=${series}`, '/events.ics?status=published',
      ];
      for (const target of targets) {
        const response = await read(key, target);
        assert.equal(response.status, 200, `${target}: ${response.text}`);
      }
      assert.equal((await read(key, '/events')).json.total, publicTotal, 'the count is the public one');
      assert.equal((await read(key, `/events?q=${SECRET[1]}`)).json.total, 0);
      assert.equal((await read(key, '/events?q=public')).json.total, 6, 'a draft with the word in its description is not found');
      assert.equal((await read(key, `/events?series_id=${series}`)).json.total, 0);
      // Every page of a one-item list, to the end: the public events and nothing else, each once.
      const paged: string[] = [];
      for (let page = 1; page <= publicTotal + 1; page++) paged.push(...(await read(key, `/events?limit=1&page=${page}`)).json.events.map((event: { id: string }) => event.id));
      assert.equal(new Set(paged).size, publicTotal);
    });
  }

  test('a reader or feed key asking for drafts or pending events gets a 403; another organizer\'s queue holds only their own (none)', async () => {
    for (const status of ['draft', 'pending', 'draft,pending', 'published,pending']) {
      const response = await h.request('GET', `/events?status=${status}`, { key: h.keys.reader });
      assert.equal(response.status, 403, response.text ?? '');
      assertHiddenAbsent(response.text, 'the 403');
      assert.equal((await h.request('GET', `/events?status=${status}`, { key: h.keys.feed })).status, 403);
      assert.equal((await h.request('GET', `/series?status=${status}`, { key: h.keys.reader })).status, 403);
    }
    assert.equal((await read(h.keys.other, '/events?status=draft,pending')).json.total, 0);
    assert.equal((await read(h.keys.other, '/series?status=draft,pending')).json.total, 0);
    // On the calendar too, a key that never sees them is refused with a 403 (header or ?key=); an admin's is a 400: no calendar holds them.
    assert.equal((await h.request('GET', '/events.ics?status=draft', { key: h.keys.feed })).status, 403);
    assert.equal((await h.request('GET', `/events.ics?status=pending&key=${h.keys.feed}`)).status, 403);
    assert.equal((await h.request('GET', '/events.ics?status=draft', { key: h.keys.reader })).status, 403);
    assert.equal((await h.request('GET', '/events.ics?status=draft', { key: h.keys.admin })).status, 400);
  });

  test('a feed key: its calendar (header or ?key=) shows none of them', async () => {
    for (const target of ['/events.ics', `/events.ics?key=${h.keys.feed}`, '/events.ics?status=cancelled', `/events.ics?q=${SECRET[0]}&key=${h.keys.feed}`]) {
      const response = target.includes('key=') ? await h.request('GET', target) : await h.request('GET', target, { key: h.keys.feed });
      assert.equal(response.status, 200, response.text ?? '');
      assertHiddenAbsent(response.text, target);
    }
    assert.equal((await h.request('GET', `/events/${draft}`, { key: h.keys.feed })).status, 403, 'a feed key reads nothing else');
  });

  test('the change feed, paged (a full copy and since the start) and streamed, and the webhooks carry none of them, for every key', async () => {
    for (const key of [h.keys.reader, h.keys.other, h.keys.organizer, h.keys.admin]) {
      for (const since of [0, start]) {
        let next = since;
        let copy: string | undefined;
        for (let page = 0; page < 50; page++) {
          const response = await read(key, `/changes?since=${next}&limit=1${copy === undefined ? '' : `&copy=${copy}`}`);
          next = response.json.next_since;
          copy = response.json.copy;
          if (!response.json.more) break;
        }
      }
    }
    assertHiddenAbsent(stream.sink.text, 'the change stream');
    assert.deepEqual(stream.sink.entries.map((entry) => entry.event?.['title']), ['Marker']);
    for (const entry of receiver.unique()) assertHiddenAbsent(entry.body, `webhook ${entry.message?.type}`);
  });

  test('their organizer and admins see them where §14 says: single reads and the queue, never in the default lists', async () => {
    for (const key of [h.keys.organizer, h.keys.admin]) {
      assert.equal((await h.request('GET', `/events/${draft}`, { key })).json.status, 'draft');
      assert.equal((await h.request('GET', `/events/${pending}`, { key })).json.status, 'pending');
      assert.equal((await h.request('GET', `/series/${series}`, { key })).json.status, 'draft');
      await read(key, '/events');
      await read(key, `/events?q=${SECRET[0]}`);
      await read(key, `/events.ics`);
      assert.equal((await read(key, '/events')).json.total, publicTotal);
    }
    const queue = await h.request('GET', '/events?status=pending', { key: h.keys.admin });
    assert.deepEqual(queue.json.events.map((event: { id: string }) => event.id), [pending]);
    const own = await h.request('GET', `/events?status=draft&q=${SECRET[0]}`, { key: h.keys.organizer });
    assert.deepEqual(own.json.events.map((event: { id: string }) => event.id), [draft]);
    const mixed = await h.request('GET', '/events?status=draft,pending,published&limit=100', { key: h.keys.organizer });
    assert.equal(mixed.json.total, publicTotal + 2 + 3);
    assert.equal((await h.request('GET', '/series?status=draft', { key: h.keys.admin })).json.series[0].id, series);
  });

  test('approved, it appears as a creation (change feed, stream, event.created); cancelled, an update with its status (STATUS:CANCELLED); pending again, a deletion', async () => {
    const mark = await newestWrite(h);
    const approved = await h.request('POST', `/events/${pending}/approve`, { key: h.keys.admin });
    assert.equal(approved.status, 200);
    const changes = (await h.request('GET', `/changes?since=${mark}`, { key: h.keys.reader })).json.changes;
    assert.deepEqual(changes.map((entry: { id: string; deleted: boolean }) => [entry.id, entry.deleted]), [[pending, false]]);
    await eventually('event.created of the approved event', () => receiver.unique().some((entry) => entry.message?.type === 'event.created' && (entry.message.data as { id?: string }).id === pending));
    await eventually('the stream entry', () => stream.sink.entries.some((entry) => entry.id === pending));
    assert.equal((await h.request('GET', `/events?q=${SECRET[1]}`, { key: h.keys.reader })).json.total, 1);

    await h.request('PUT', `/events/${pending}`, { key: h.keys.organizer, body: { status: 'cancelled', cancellation_reason: 'Hall flooded' } });
    await eventually('event.updated with the status', () => receiver.unique().some((entry) => entry.message?.type === 'event.updated' && (entry.message.data as { status?: string }).status === 'cancelled'));
    const feed = (await h.request('GET', `/events.ics?q=${SECRET[1]}`, { key: h.keys.feed })).text!;
    assert.ok(feed.includes(`UID:${pending}@campus-events`) && feed.includes('\r\nSTATUS:CANCELLED\r\n'), feed);
    assert.ok((await h.request('GET', '/events.ics', { key: h.keys.feed })).text!.includes('STATUS:CONFIRMED'));
    assert.equal((await h.request('GET', `/events?q=${SECRET[1]}`, { key: h.keys.reader })).json.events[0].status, 'cancelled', 'still listed');
    const cancelledEntry = (await h.request('GET', `/changes?since=${mark}`, { key: h.keys.reader })).json.changes.find((entry: { id: string }) => entry.id === pending);
    assert.equal(cancelledEntry.event.status, 'cancelled');

    const hidden = await h.request('PUT', `/events/${pending}`, { key: h.keys.organizer, body: { status: 'published' } });
    assert.equal(hidden.json.status, 'pending', 'restored by an organizer under approval: pending again');
    const gone = (await h.request('GET', `/changes?since=${mark}`, { key: h.keys.reader })).json.changes.find((entry: { id: string }) => entry.id === pending);
    assert.deepEqual(gone, { seq: gone.seq, id: pending, deleted: true, event: null });
    await eventually('event.deleted', () => receiver.unique().some((entry) => entry.message?.type === 'event.deleted' && (entry.message.data as { id?: string }).id === pending));
    await eventually('the stream deletion', () => stream.sink.entries.some((entry) => entry.id === pending && entry.deleted));
    assert.equal((await h.request('GET', `/events/${pending}`, { key: h.keys.reader })).status, 404);
    assert.equal((await h.request('GET', `/events?q=${SECRET[1]}`, { key: h.keys.reader })).json.total, 0);
    assert.ok(!(await h.request('GET', '/events.ics', { key: h.keys.feed })).text!.includes(pending));
    // A full copy has no deletions: it simply does not hold the event.
    assert.ok(!(await h.request('GET', '/changes?since=0&limit=1000', { key: h.keys.reader })).text!.includes(pending));
    // Deleting it now (never public again) says nothing more to anyone.
    const before = receiver.unique().length;
    const quiet = await newestWrite(h);
    assert.equal((await h.request('DELETE', `/events/${draft}`, { key: h.keys.organizer })).status, 204);
    assert.deepEqual((await h.request('GET', `/changes?since=${quiet}`, { key: h.keys.reader })).json.changes, []);
    await create(h, h.keys.admin, { title: 'Second marker' });
    await eventually('the second marker', () => receiver.unique().some((entry) => (entry.message?.data as { title?: string } | undefined)?.title === 'Second marker'));
    assert.deepEqual(receiver.unique().slice(before).map((entry) => entry.message?.type), ['event.created'], 'no message for the draft deleted');
  });
});
