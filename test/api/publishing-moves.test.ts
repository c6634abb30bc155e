// Whole requests for the statuses of API.md §14 on events: what a create gets, every move by PUT (allowed and refused,
// with --approval off and required, as organizer and admin), cancellation reasons, If-Match, and nothing written by a refusal.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startHarness, type Harness } from '../helpers/harness.js';
import { assertRefused, create, futureEvent, writesNothing } from './publishing-support.js';

describe('with --approval off (the default)', () => {
  let h: Harness;
  before(async () => (h = await startHarness()));
  after(() => h.close());

  test('POST makes a published event (no status in the answer, the shape of §4) or a draft when asked', async () => {
    const published = await create(h, h.keys.organizer);
    assert.equal('status' in published, false);
    assert.equal((await create(h, h.keys.organizer, { status: 'published' }))['status'], undefined);
    const draft = await create(h, h.keys.organizer, { status: 'draft' });
    assert.equal(draft['status'], 'draft');
    const read = await h.request('GET', `/events/${draft['id']}`, { key: h.keys.organizer });
    assert.equal(read.json.status, 'draft');
    assert.equal('review_note' in read.json || 'cancellation_reason' in read.json, false);
  });

  test('POST refuses status pending (no approval here), cancelled, an unknown or mistyped status, a cancellation_reason and a review_note, each a 400 naming it, writing nothing', async () => {
    for (const [body, field, part] of [
      [{ status: 'pending' }, 'status', '--approval off'],
      [{ status: 'cancelled' }, 'status', 'cancelled'],
      [{ status: 'archived' }, 'status', '"archived"'],
      [{ status: 1 }, 'status', 'status'],
      [{ status: null }, 'status', 'status'],
      [{ cancellation_reason: 'Storm' }, 'cancellation_reason', 'cancellation_reason'],
      [{ review_note: 'Fine' }, 'review_note', 'review_note'],
    ] as const) {
      const response = await writesNothing(h, undefined, () => h.request('POST', '/events', { key: h.keys.organizer, body: futureEvent(body) }));
      assertRefused(response, 400, 'validation_failed', [part], field);
    }
  });

  test('PUT moves draft → published → cancelled (with a reason) → published (the reason gone)', async () => {
    const { id } = await create(h, h.keys.organizer, { status: 'draft' });
    const published = await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { status: 'published' } });
    assert.equal(published.status, 200);
    assert.equal('status' in published.json, false);
    const cancelled = await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { status: 'cancelled', cancellation_reason: 'Speaker ill' } });
    assert.equal(cancelled.status, 200, cancelled.text ?? '');
    assert.equal(cancelled.json.status, 'cancelled');
    assert.equal(cancelled.json.cancellation_reason, 'Speaker ill');
    const reason = await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { cancellation_reason: 'Speaker ill; see you in May' } });
    assert.equal(reason.json.cancellation_reason, 'Speaker ill; see you in May', 'a cancelled event takes a new reason');
    const restored = await h.request('PUT', `/events/${id}`, { key: h.keys.admin, body: { status: 'published' } });
    assert.equal(restored.status, 200);
    assert.equal('status' in restored.json || 'cancellation_reason' in restored.json, false);
    // A cancellation without a reason has none.
    const bare = await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { status: 'cancelled' } });
    assert.equal(bare.json.status, 'cancelled');
    assert.equal('cancellation_reason' in bare.json, false);
  });

  test('the same status again is no move: a client may send back what it read', async () => {
    const { id } = await create(h, h.keys.organizer, { status: 'draft' });
    const read = await h.request('GET', `/events/${id}`, { key: h.keys.organizer });
    const again = await writesNothing(h, id, () => h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: read.json }));
    assert.equal(again.status, 200);
    assert.deepEqual(again.json, read.json);
    const edited = await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { status: 'draft', title: 'Renamed draft' } });
    assert.equal(edited.json.status, 'draft');
    assert.equal(edited.json.title, 'Renamed draft');
  });

  test('every other move is a 409 naming both statuses, and writes nothing', async () => {
    const draft = (await create(h, h.keys.organizer, { status: 'draft' }))['id'];
    const published = (await create(h, h.keys.organizer))['id'];
    const cancelled = (await create(h, h.keys.organizer))['id'];
    await h.request('PUT', `/events/${cancelled}`, { key: h.keys.organizer, body: { status: 'cancelled' } });
    for (const [id, from, to] of [
      [draft, 'draft', 'cancelled'],
      [draft, 'draft', 'pending'],
      [published, 'published', 'draft'],
      [published, 'published', 'pending'],
      [cancelled, 'cancelled', 'draft'],
      [cancelled, 'cancelled', 'pending'],
    ] as const) {
      for (const key of [h.keys.organizer, h.keys.admin]) {
        const response = await writesNothing(h, id, () => h.request('PUT', `/events/${id}`, { key, body: { status: to, title: 'Not this either' } }));
        assertRefused(response, 409, 'conflict', [`"${from}"`, `"${to}"`, id]);
      }
    }
  });

  test('a cancellation_reason is a 400 naming it unless the result is cancelled: on a published event, on a restore, empty, too long, with a control character', async () => {
    const { id } = await create(h, h.keys.organizer);
    for (const body of [{ cancellation_reason: 'Storm' }, { status: 'published', cancellation_reason: 'Storm' }, { status: 'cancelled', cancellation_reason: '' }, { status: 'cancelled', cancellation_reason: 'x'.repeat(501) }, { status: 'cancelled', cancellation_reason: 'Storm\u0007' }, { status: 'cancelled', cancellation_reason: 5 }]) {
      const response = await writesNothing(h, id, () => h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body }));
      assertRefused(response, 400, 'validation_failed', ['cancellation_reason'], 'cancellation_reason');
    }
    const longest = await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { status: 'cancelled', cancellation_reason: '🎉'.repeat(500) } });
    assert.equal(longest.status, 200, '500 code points are allowed');
    const restore = await writesNothing(h, id, () => h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { status: 'published', cancellation_reason: 'Back' } }));
    assertRefused(restore, 400, 'validation_failed', ['cancellation_reason'], 'cancellation_reason');
  });

  test('§3 order: a field 400 before the move 409; a bad status value is a 400 even with a bad move', async () => {
    const { id } = await create(h, h.keys.organizer);
    assertRefused(await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { status: 'draft', capacity: 0 } }), 400, 'validation_failed', ['capacity'], 'capacity');
    assertRefused(await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { status: 'gone' } }), 400, 'validation_failed', ['"gone"'], 'status');
  });

  test('moves honour If-Match: a stale tag is a 412 and writes nothing, the current one moves', async () => {
    const { id } = await create(h, h.keys.organizer, { status: 'draft' });
    const etag = (await h.request('GET', `/events/${id}`, { key: h.keys.organizer })).headers['ETag']!;
    await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { title: 'Changed meanwhile' } });
    const stale = await writesNothing(h, id, () => h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { status: 'published' }, headers: { 'If-Match': etag } }));
    assertRefused(stale, 412, 'precondition_failed', [etag]);
    const current = (await h.request('GET', `/events/${id}`, { key: h.keys.organizer })).headers['ETag']!;
    const moved = await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { status: 'published' }, headers: { 'If-Match': current } });
    assert.equal(moved.status, 200);
    assert.notEqual(moved.headers['ETag'], current);
  });

  test('another organizer: a 403 on a published event, a 404 on a draft (it does not exist for them), even with a bad move', async () => {
    const published = (await create(h, h.keys.organizer))['id'];
    const draft = (await create(h, h.keys.organizer, { status: 'draft' }))['id'];
    assertRefused(await h.request('PUT', `/events/${published}`, { key: h.keys.other, body: { status: 'draft' } }), 403, 'forbidden', [published]);
    assertRefused(await h.request('PUT', `/events/${draft}`, { key: h.keys.other, body: { status: 'published' } }), 404, 'not_found', [draft]);
    assertRefused(await h.request('DELETE', `/events/${draft}`, { key: h.keys.other }), 404, 'not_found', [draft]);
    assertRefused(await h.request('PUT', `/events/${draft}`, { key: h.keys.reader, body: { status: 'published' } }), 403, 'forbidden', ['reader']);
    assert.equal((await h.request('DELETE', `/events/${draft}`, { key: h.keys.organizer })).status, 204, 'its organizer may delete a draft');
  });
});

describe('with --approval required', () => {
  let h: Harness;
  before(async () => (h = await startHarness({ approval: 'required' })));
  after(() => h.close());

  test("an organizer's new event is pending (published or pending asked), a draft when asked; an admin's is published at once, or pending or draft when asked", async () => {
    assert.equal((await create(h, h.keys.organizer))['status'], 'pending');
    assert.equal((await create(h, h.keys.organizer, { status: 'published' }))['status'], 'pending');
    assert.equal((await create(h, h.keys.organizer, { status: 'pending' }))['status'], 'pending');
    assert.equal((await create(h, h.keys.organizer, { status: 'draft' }))['status'], 'draft');
    assert.equal('status' in (await create(h, h.keys.admin)), false);
    assert.equal((await create(h, h.keys.admin, { status: 'pending' }))['status'], 'pending');
    assert.equal((await create(h, h.keys.admin, { status: 'draft' }))['status'], 'draft');
    assertRefused(await h.request('POST', '/events', { key: h.keys.organizer, body: futureEvent({ status: 'cancelled' }) }), 400, 'validation_failed', ['cancelled'], 'status');
  });

  test('an organizer: draft → published becomes pending; an edit keeps it pending; pending → published is a 409 (an admin approves); withdrawn to draft', async () => {
    const { id } = await create(h, h.keys.organizer, { status: 'draft' });
    const submitted = await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { status: 'published' } });
    assert.equal(submitted.json.status, 'pending');
    const edited = await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { location: 'Hall B' } });
    assert.equal(edited.json.status, 'pending');
    for (const key of [h.keys.organizer, h.keys.admin]) {
      const pushed = await writesNothing(h, id, () => h.request('PUT', `/events/${id}`, { key, body: { status: 'published' } }));
      assertRefused(pushed, 409, 'conflict', ['"pending"', '"published"', 'approve']);
    }
    assertRefused(await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { status: 'cancelled' } }), 409, 'conflict', ['"pending"', '"cancelled"']);
    const withdrawn = await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { status: 'draft' } });
    assert.equal(withdrawn.json.status, 'draft');
    const again = await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { status: 'pending' } });
    assert.equal(again.json.status, 'pending', 'draft → pending: submitted for approval');
  });

  test('editing a published event does not send it back; a cancelled one restored by an organizer waits for approval, by an admin it is published', async () => {
    const { id } = await create(h, h.keys.admin, { organizer: { name: 'Olivia Organizer', email: 'olivia@campus.edu' } });
    const edited = await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { title: 'Renamed' } });
    assert.equal('status' in edited.json, false);
    await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { status: 'cancelled', cancellation_reason: 'Rain' } });
    const restored = await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { status: 'published' } });
    assert.equal(restored.json.status, 'pending');
    assert.equal('cancellation_reason' in restored.json, false);
    const second = (await create(h, h.keys.admin))['id'];
    await h.request('PUT', `/events/${second}`, { key: h.keys.admin, body: { status: 'cancelled' } });
    const direct = await h.request('PUT', `/events/${second}`, { key: h.keys.admin, body: { status: 'published' } });
    assert.equal('status' in direct.json, false);
    const asked = await h.request('PUT', `/events/${second}`, { key: h.keys.admin, body: { status: 'cancelled' } });
    assert.equal(asked.json.status, 'cancelled');
    assert.equal((await h.request('PUT', `/events/${second}`, { key: h.keys.admin, body: { status: 'pending' } })).json.status, 'pending', 'cancelled → pending under approval');
  });
});
