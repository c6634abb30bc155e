// Whole requests for approve and reject (API.md §14) and for registrations on events that are not published: roles,
// bodies, states, If-Match, the review note's life, and a cancelled event's roster kept readable and exportable.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startHarness, type Harness } from '../helpers/harness.js';
import { assertRefused, create, writesNothing } from './publishing-support.js';

describe('approve and reject', () => {
  let h: Harness;
  before(async () => (h = await startHarness({ approval: 'required' })));
  after(() => h.close());

  test('an admin approves a pending event: 200, published, with a new ETag; anything not pending is a 409 naming its status', async () => {
    const { id } = await create(h, h.keys.organizer);
    const approved = await h.request('POST', `/events/${id}/approve`, { key: h.keys.admin });
    assert.equal(approved.status, 200, approved.text ?? '');
    assert.equal('status' in approved.json, false);
    assert.ok(approved.headers['ETag']);
    assert.equal((await h.request('GET', `/events/${id}`, { key: h.keys.reader })).status, 200, 'everyone sees it now');
    const twice = await writesNothing(h, id, () => h.request('POST', `/events/${id}/approve`, { key: h.keys.admin, body: {} }));
    assertRefused(twice, 409, 'conflict', ['"published"', 'pending']);
    const draft = (await create(h, h.keys.organizer, { status: 'draft' }))['id'];
    assertRefused(await h.request('POST', `/events/${draft}/approve`, { key: h.keys.admin }), 409, 'conflict', ['"draft"']);
    assertRefused(await h.request('POST', `/events/${draft}/reject`, { key: h.keys.admin, body: { reason: 'No' } }), 409, 'conflict', ['"draft"']);
    await h.request('PUT', `/events/${id}`, { key: h.keys.admin, body: { status: 'cancelled' } });
    assertRefused(await h.request('POST', `/events/${id}/reject`, { key: h.keys.admin, body: { reason: 'No' } }), 409, 'conflict', ['"cancelled"']);
  });

  test('only admins review: an organizer (its own event included), a reader and a feed key get 403 before anything else, writing nothing', async () => {
    const { id } = await create(h, h.keys.organizer);
    for (const [key, role] of [[h.keys.organizer, 'organizer'], [h.keys.other, 'organizer'], [h.keys.reader, 'reader'], [h.keys.feed, 'feed']] as const) {
      for (const action of ['approve', 'reject']) {
        const response = await writesNothing(h, id, () => h.request('POST', `/events/${id}/${action}`, { key, body: { reason: 'x' } }));
        assertRefused(response, 403, 'forbidden', [role, 'approve or reject']);
      }
      // The role comes before the unknown id (§3): a reader never learns whether an id exists.
      assertRefused(await h.request('POST', '/events/evt_0000000000000000/approve', { key }), 403, 'forbidden', [role]);
    }
    assertRefused(await h.request('POST', '/events/evt_0000000000000000/approve', { key: h.keys.admin }), 404, 'not_found', ['evt_0000000000000000']);
    assertRefused(await h.request('POST', `/events/${id}/approve`), 401, 'unauthorized', []);
  });

  test('a reject needs a reason of 1–500 characters without control characters (400 naming reason); an approve takes no field', async () => {
    const { id } = await create(h, h.keys.organizer);
    for (const body of [{}, { reason: '' }, { reason: 'x'.repeat(501) }, { reason: 'line\nbreak' }, { reason: 42 }, { reason: null }]) {
      const response = await writesNothing(h, id, () => h.request('POST', `/events/${id}/reject`, { key: h.keys.admin, body }));
      assertRefused(response, 400, 'validation_failed', ['reason'], 'reason');
    }
    assertRefused(await h.request('POST', `/events/${id}/reject`, { key: h.keys.admin, body: { reason: 'Fine', note: 'extra' } }), 400, 'validation_failed', ['note'], 'note');
    assertRefused(await h.request('POST', `/events/${id}/approve`, { key: h.keys.admin, body: { reason: 'Nice' } }), 400, 'validation_failed', ['reason'], 'reason');
    assertRefused(await h.request('POST', `/events/${id}/reject`, { key: h.keys.admin }), 400, 'bad_request', []);
    // §3: fields (400) come before the state (409).
    const published = (await create(h, h.keys.admin))['id'];
    assertRefused(await h.request('POST', `/events/${published}/reject`, { key: h.keys.admin, body: {} }), 400, 'validation_failed', ['reason'], 'reason');
  });

  test('a rejected event is a draft carrying the reviewer\'s note until its next change; resubmitted and approved, it is published', async () => {
    const { id } = await create(h, h.keys.organizer);
    const rejected = await h.request('POST', `/events/${id}/reject`, { key: h.keys.admin, body: { reason: 'Please add the room number.' } });
    assert.equal(rejected.status, 200);
    assert.equal(rejected.json.status, 'draft');
    assert.equal(rejected.json.review_note, 'Please add the room number.');
    const mine = await h.request('GET', '/events?status=draft', { key: h.keys.organizer });
    assert.equal(mine.json.events.find((event: { id: string }) => event.id === id).review_note, 'Please add the room number.');
    // A PUT that changes nothing keeps the note (and writes nothing); sending the note back is allowed, another is not.
    const read = (await h.request('GET', `/events/${id}`, { key: h.keys.organizer })).json;
    assert.equal((await writesNothing(h, id, () => h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: read }))).json.review_note, 'Please add the room number.');
    assertRefused(await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { review_note: 'All good' } }), 400, 'validation_failed', ['review_note'], 'review_note');
    const fixed = await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { location: 'Hall A, room 101' } });
    assert.equal(fixed.json.status, 'draft');
    assert.equal('review_note' in fixed.json, false, 'its next change drops the note');
    assert.equal((await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { status: 'published' } })).json.status, 'pending');
    assert.equal('status' in (await h.request('POST', `/events/${id}/approve`, { key: h.keys.admin })).json, false);
  });

  test('approve and reject honour If-Match: a stale tag is a 412 and writes nothing', async () => {
    const { id } = await create(h, h.keys.organizer);
    const etag = (await h.request('GET', `/events/${id}`, { key: h.keys.admin })).headers['ETag']!;
    await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { title: 'Edited while waiting' } });
    assertRefused(await writesNothing(h, id, () => h.request('POST', `/events/${id}/approve`, { key: h.keys.admin, headers: { 'If-Match': etag } })), 412, 'precondition_failed', [etag]);
    const current = (await h.request('GET', `/events/${id}`, { key: h.keys.admin })).headers['ETag']!;
    assert.equal((await h.request('POST', `/events/${id}/approve`, { key: h.keys.admin, headers: { 'If-Match': current } })).status, 200);
  });
});

describe('registrations on events that are not published', () => {
  let h: Harness;
  before(async () => (h = await startHarness({ approval: 'required' })));
  after(() => h.close());

  test('a draft, a pending and a cancelled event take no registration: 409 naming the status (after the body 400); to others a draft is a 404', async () => {
    const pending = (await create(h, h.keys.organizer))['id'];
    const draft = (await create(h, h.keys.organizer, { status: 'draft' }))['id'];
    const cancelled = (await create(h, h.keys.admin))['id'];
    await h.request('PUT', `/events/${cancelled}`, { key: h.keys.admin, body: { status: 'cancelled' } });
    const body = { name: 'Rita', email: 'rita@campus.edu' };
    for (const [id, status] of [[pending, 'pending'], [draft, 'draft'], [cancelled, 'cancelled']] as const) {
      const key = status === 'cancelled' ? h.keys.reader : h.keys.organizer;
      assertRefused(await writesNothing(h, id, () => h.request('POST', `/events/${id}/registrations`, { key, body })), 409, 'conflict', [`"${status}"`, id]);
      assertRefused(await h.request('POST', `/events/${id}/registrations`, { key, body: { name: '' } }), 400, 'validation_failed', [], 'name');
    }
    for (const id of [pending, draft]) {
      for (const key of [h.keys.reader, h.keys.other]) {
        assertRefused(await h.request('POST', `/events/${id}/registrations`, { key, body }), 404, 'not_found', [id]);
        assertRefused(await h.request('GET', `/events/${id}/registrations/reg_0000000000000000000000`, { key }), 404, 'not_found', [id]);
        assertRefused(await h.request('DELETE', `/events/${id}/registrations/reg_0000000000000000000000`, { key }), 404, 'not_found', [id]);
      }
      // The attendee list and check-in: a reader's role never may (403 first, §3); another organizer finds no such event.
      assertRefused(await h.request('GET', `/events/${id}/registrations`, { key: h.keys.reader }), 403, 'forbidden', ['reader']);
      assertRefused(await h.request('GET', `/events/${id}/registrations`, { key: h.keys.other }), 404, 'not_found', [id]);
      assertRefused(await h.request('POST', `/events/${id}/registrations/reg_0000000000000000000000/check-in`, { key: h.keys.other }), 404, 'not_found', [id]);
    }
  });

  test('a cancelled event keeps its registrations: readable, in the list and the CSV, cancelled (a seat freed to the waitlist) and checked in', async () => {
    const { id } = await create(h, h.keys.admin, { capacity: 1, organizer: { name: 'Olivia Organizer', email: 'olivia@campus.edu' } });
    const first = (await h.request('POST', `/events/${id}/registrations`, { key: h.keys.reader, body: { name: 'First', email: 'first@campus.edu' } })).json;
    const second = (await h.request('POST', `/events/${id}/registrations`, { key: h.keys.reader, body: { name: 'Second', email: 'second@campus.edu' } })).json;
    const third = (await h.request('POST', `/events/${id}/registrations`, { key: h.keys.reader, body: { name: 'Third', email: 'third@campus.edu' } })).json;
    assert.deepEqual([first.status, second.status, third.status], ['confirmed', 'waitlisted', 'waitlisted']);
    const cancelled = await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { status: 'cancelled', cancellation_reason: 'Flooded hall' } });
    assert.equal(cancelled.json.registered_count, 1);
    assert.equal((await h.request('GET', `/events/${id}/registrations/${first.id}`, { key: h.keys.reader })).json.status, 'confirmed');
    const list = await h.request('GET', `/events/${id}/registrations`, { key: h.keys.organizer });
    assert.deepEqual(list.json.registrations.map((r: { id: string }) => r.id), [first.id, second.id, third.id]);
    const csv = await h.request('GET', `/events/${id}/registrations`, { key: h.keys.organizer, headers: { accept: 'text/csv' } });
    assert.equal(csv.status, 200);
    assert.ok(csv.text!.startsWith('id,name,email,status,created_at,checked_in_at\r\n') && csv.text!.includes('second@campus.edu'));
    assert.equal((await h.request('POST', `/events/${id}/registrations/${first.id}/check-in`, { key: h.keys.organizer })).status, 200);
    assert.equal((await h.request('DELETE', `/events/${id}/registrations/${first.id}`, { key: h.keys.reader })).status, 204);
    assert.equal((await h.request('GET', `/events/${id}/registrations/${second.id}`, { key: h.keys.reader })).json.status, 'confirmed', 'the freed seat goes to the oldest waitlisted, as ever');
    const after = (await h.request('GET', `/events/${id}`, { key: h.keys.reader })).json;
    assert.equal(after.status, 'cancelled');
    assert.equal(after.registered_count, 1);
  });
});
