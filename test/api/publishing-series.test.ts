// Whole requests for a series' status (API.md §14): the series and its occurrences created, moved, approved, rejected
// and cancelled together; occurrences edited on their own (and, for a cancellation, started ones) passed by.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startHarness, type Harness } from '../helpers/harness.js';
import { assertRefused, writesNothing } from './publishing-support.js';

const DAY = 86_400_000;

/**
 * A daily series of `count` occurrences, the first `firstInDays` days and an hour from now (negative days: the first
 * ones have started, the one of today has not, whatever the time of day).
 */
function daily(count: number, firstInDays: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const start = new Date(Math.floor((Date.now() + firstInDays * DAY + 3_600_000) / 60_000) * 60_000);
  return {
    title: 'Morning run',
    category: 'athletic',
    location: 'Track',
    start_time: start.toISOString(),
    end_time: new Date(start.getTime() + 3_600_000).toISOString(),
    capacity: 20,
    time_zone: 'UTC',
    recurrence: `FREQ=DAILY;COUNT=${count}`,
    ...overrides,
  };
}

describe('series statuses', () => {
  let h: Harness;
  let required: Harness;
  before(async () => {
    h = await startHarness();
    required = await startHarness({ approval: 'required' });
  });
  after(async () => {
    await h.close();
    await required.close();
  });

  /** The statuses of a series' occurrences in list order, as `key` sees them (every status asked for). */
  async function statuses(harness: Harness, seriesId: string, key = harness.keys.admin): Promise<string[]> {
    const response = await harness.request('GET', `/events?series_id=${seriesId}&status=draft,pending,published,cancelled&limit=100`, { key });
    assert.equal(response.status, 200);
    return response.json.events.map((event: { status?: string }) => event.status ?? 'published');
  }

  test('a draft series: it and every occurrence are drafts, seen by none but its organizer and admins, until published together', async () => {
    const created = await h.request('POST', '/series', { key: h.keys.organizer, body: daily(4, 3, { status: 'draft' }) });
    assert.equal(created.status, 201, created.text ?? '');
    const { id } = created.json;
    assert.equal(created.json.status, 'draft');
    assert.deepEqual(await statuses(h, id, h.keys.organizer), ['draft', 'draft', 'draft', 'draft']);
    for (const key of [h.keys.reader, h.keys.other]) {
      assertRefused(await h.request('GET', `/series/${id}`, { key }), 404, 'not_found', [id]);
      assert.equal((await h.request('GET', '/series', { key })).json.series.some((series: { id: string }) => series.id === id), false);
      assert.equal((await h.request('GET', `/events?series_id=${id}`, { key })).json.total, 0);
      assertRefused(await h.request('PUT', `/series/${id}`, { key: h.keys.other, body: { status: 'published' } }), 404, 'not_found', [id]);
    }
    assert.equal((await h.request('GET', `/series/${id}`, { key: h.keys.organizer })).json.status, 'draft');
    assert.equal((await h.request('GET', '/series?status=draft', { key: h.keys.organizer })).json.series[0].id, id);
    assert.equal((await h.request('GET', '/series?status=draft', { key: h.keys.other })).json.total, 0, "another organizer's queue holds only their own");
    assertRefused(await h.request('GET', '/series?status=draft', { key: h.keys.reader }), 403, 'forbidden', ['reader']);
    const published = await h.request('PUT', `/series/${id}`, { key: h.keys.organizer, body: { status: 'published' } });
    assert.equal(published.status, 200, published.text ?? '');
    assert.equal('status' in published.json, false);
    assert.deepEqual(await statuses(h, id), ['published', 'published', 'published', 'published']);
    assert.equal((await h.request('GET', `/events?series_id=${id}`, { key: h.keys.reader })).json.total, 4);
  });

  test('cancelling a series cancels every occurrence not started, those edited alone too, with the reason; restoring brings back those it cancelled', async () => {
    const { id } = (await h.request('POST', '/series', { key: h.keys.organizer, body: daily(6, -2) })).json;
    const ids: string[] = (await h.request('GET', `/events?series_id=${id}`, { key: h.keys.reader })).json.events.map((event: { id: string }) => event.id);
    // The fourth was moved alone (shared changes pass it by); the sixth was cancelled alone.
    await h.request('PUT', `/events/${ids[3]}`, { key: h.keys.organizer, body: { location: 'Gym' } });
    await h.request('PUT', `/events/${ids[5]}`, { key: h.keys.organizer, body: { status: 'cancelled', cancellation_reason: 'Holiday' } });
    const cancelled = await h.request('PUT', `/series/${id}`, { key: h.keys.organizer, body: { status: 'cancelled', cancellation_reason: 'Track resurfaced' } });
    assert.equal(cancelled.status, 200, cancelled.text ?? '');
    assert.equal(cancelled.json.status, 'cancelled');
    assert.equal(cancelled.json.cancellation_reason, 'Track resurfaced');
    assert.deepEqual(await statuses(h, id), ['published', 'published', 'cancelled', 'cancelled', 'cancelled', 'cancelled'], 'the started ones stay');
    for (const index of [2, 3]) assert.equal((await h.request('GET', `/events/${ids[index]}`, { key: h.keys.reader })).json.cancellation_reason, 'Track resurfaced');
    assert.equal((await h.request('GET', `/events/${ids[3]}`, { key: h.keys.reader })).json.location, 'Gym', 'the one edited alone keeps its own fields');
    assert.equal((await h.request('GET', `/events/${ids[5]}`, { key: h.keys.reader })).json.cancellation_reason, 'Holiday', 'one cancelled alone keeps its reason');
    // Cancelled occurrences stay listed, for everyone.
    assert.equal((await h.request('GET', `/events?series_id=${id}`, { key: h.keys.reader })).json.total, 6);
    assert.equal((await h.request('GET', `/events?series_id=${id}&status=cancelled`, { key: h.keys.reader })).json.total, 4);
    const restored = await h.request('PUT', `/series/${id}`, { key: h.keys.admin, body: { status: 'published' } });
    assert.equal('status' in restored.json || 'cancellation_reason' in restored.json, false);
    assert.deepEqual(await statuses(h, id), ['published', 'published', 'published', 'published', 'published', 'cancelled'], 'one cancelled alone stays cancelled');
    assert.equal((await h.request('GET', `/series/${id}`, { key: h.keys.admin })).headers['ETag'] !== undefined, true);
    assertRefused(await writesNothing(h, undefined, () => h.request('PUT', `/series/${id}`, { key: h.keys.organizer, body: { status: 'draft' } })), 409, 'conflict', ['"published"', '"draft"', id]);
    assertRefused(await h.request('PUT', `/series/${id}`, { key: h.keys.organizer, body: { cancellation_reason: 'x' } }), 400, 'validation_failed', ['cancellation_reason'], 'cancellation_reason');
  });

  test('an occurrence edited alone that a series cancellation took follows its restore through approval, unless its own status moved meanwhile', async () => {
    const r = required;
    const { id } = (await r.request('POST', '/series', { key: r.keys.admin, body: daily(3, 2) })).json;
    const ids: string[] = (await r.request('GET', `/events?series_id=${id}`, { key: r.keys.reader })).json.events.map((event: { id: string }) => event.id);
    for (const index of [0, 1]) await r.request('PUT', `/events/${ids[index]}`, { key: r.keys.admin, body: { location: `Room ${index}` } });
    await r.request('PUT', `/series/${id}`, { key: r.keys.admin, body: { status: 'cancelled' } });
    assert.deepEqual(await statuses(r, id), ['cancelled', 'cancelled', 'cancelled']);
    // The second is restored on its own: from then on it is its own again, and the series' moves pass it by.
    assert.equal((await r.request('PUT', `/events/${ids[1]}`, { key: r.keys.admin, body: { status: 'published' } })).json.status, undefined);
    await r.request('PUT', `/events/${ids[1]}`, { key: r.keys.admin, body: { status: 'cancelled', cancellation_reason: 'Exam' } });
    // An admin's restore is published at once; an organizer's goes through approval (below, for a series of its own).
    await r.request('PUT', `/series/${id}`, { key: r.keys.admin, body: { status: 'published' } });
    assert.deepEqual(await statuses(r, id), ['published', 'cancelled', 'published']);

    const own = (await r.request('POST', '/series', { key: r.keys.organizer, body: daily(2, 2) })).json;
    await r.request('POST', `/series/${own.id}/approve`, { key: r.keys.admin });
    const mine: string[] = (await r.request('GET', `/events?series_id=${own.id}`, { key: r.keys.reader })).json.events.map((event: { id: string }) => event.id);
    await r.request('PUT', `/events/${mine[0]}`, { key: r.keys.organizer, body: { location: 'Gym' } });
    await r.request('PUT', `/series/${own.id}`, { key: r.keys.organizer, body: { status: 'cancelled' } });
    assert.equal((await r.request('PUT', `/series/${own.id}`, { key: r.keys.organizer, body: { status: 'published' } })).json.status, 'pending');
    assert.deepEqual(await statuses(r, own.id), ['pending', 'pending'], 'the one edited alone is sent for approval with the series');
    await r.request('POST', `/series/${own.id}/approve`, { key: r.keys.admin });
    assert.deepEqual(await statuses(r, own.id), ['published', 'published']);
  });

  test('an occurrence the series cancelled and then edited alone (its room, not its status) comes back with the series\' restore, through approval too', async () => {
    const { id } = (await h.request('POST', '/series', { key: h.keys.admin, body: daily(3, 2) })).json;
    const ids: string[] = (await h.request('GET', `/events?series_id=${id}`, { key: h.keys.reader })).json.events.map((event: { id: string }) => event.id);
    await h.request('PUT', `/series/${id}`, { key: h.keys.admin, body: { status: 'cancelled' } });
    const moved = await h.request('PUT', `/events/${ids[1]}`, { key: h.keys.admin, body: { location: 'Hall C' } });
    assert.equal(moved.json.status, 'cancelled', 'a room change leaves it cancelled');
    await h.request('PUT', `/series/${id}`, { key: h.keys.admin, body: { status: 'published' } });
    assert.deepEqual(await statuses(h, id), ['published', 'published', 'published'], 'it was cancelled by the series, not on its own');
    assert.equal((await h.request('GET', `/events/${ids[1]}`, { key: h.keys.reader })).json.location, 'Hall C', 'and keeps its own room');
    // Edited alone, it stays its own: the series' shared changes pass it by.
    await h.request('PUT', `/series/${id}`, { key: h.keys.admin, body: { location: 'Hall D' } });
    assert.equal((await h.request('GET', `/events/${ids[1]}`, { key: h.keys.reader })).json.location, 'Hall C', 'shared changes pass it by');

    // An occurrence a schedule change adds while the series is cancelled is cancelled by the series too.
    await h.request('PUT', `/series/${id}`, { key: h.keys.admin, body: { status: 'cancelled' } });
    const longer = daily(4, 2);
    assert.equal((await h.request('PUT', `/series/${id}`, { key: h.keys.admin, body: { recurrence: longer['recurrence'] } })).status, 200);
    const added = (await h.request('GET', `/events?series_id=${id}&status=cancelled`, { key: h.keys.reader })).json.events.map((event: { id: string }) => event.id).filter((each: string) => !ids.includes(each));
    assert.equal(added.length, 1, 'the fourth day');
    assert.equal((await h.request('PUT', `/events/${added[0]}`, { key: h.keys.admin, body: { location: 'Hall E' } })).json.status, 'cancelled');
    await h.request('PUT', `/series/${id}`, { key: h.keys.admin, body: { status: 'published' } });
    assert.deepEqual(await statuses(h, id), ['published', 'published', 'published', 'published']);

    // Through approval: one edited while cancelled, another while its restore waits for approval.
    const r = required;
    const own = (await r.request('POST', '/series', { key: r.keys.organizer, body: daily(3, 2) })).json;
    await r.request('POST', `/series/${own.id}/approve`, { key: r.keys.admin });
    const mine: string[] = (await r.request('GET', `/events?series_id=${own.id}`, { key: r.keys.reader })).json.events.map((event: { id: string }) => event.id);
    await r.request('PUT', `/series/${own.id}`, { key: r.keys.organizer, body: { status: 'cancelled' } });
    await r.request('PUT', `/events/${mine[0]}`, { key: r.keys.organizer, body: { location: 'Gym' } });
    assert.equal((await r.request('PUT', `/series/${own.id}`, { key: r.keys.organizer, body: { status: 'published' } })).json.status, 'pending');
    assert.deepEqual(await statuses(r, own.id), ['pending', 'pending', 'pending']);
    assert.equal((await r.request('PUT', `/events/${mine[1]}`, { key: r.keys.organizer, body: { location: 'Pool' } })).json.status, 'pending');
    await r.request('POST', `/series/${own.id}/approve`, { key: r.keys.admin });
    assert.deepEqual(await statuses(r, own.id), ['published', 'published', 'published']);
  });

  test('an occurrence given a cancellation reason of its own while its series is cancelled is cancelled on its own: it keeps its reason through the series\' new reason and stays cancelled when the series is restored', async () => {
    const { id } = (await h.request('POST', '/series', { key: h.keys.admin, body: daily(3, 2) })).json;
    const ids: string[] = (await h.request('GET', `/events?series_id=${id}`, { key: h.keys.reader })).json.events.map((event: { id: string }) => event.id);
    await h.request('PUT', `/series/${id}`, { key: h.keys.admin, body: { status: 'cancelled', cancellation_reason: 'Strike' } });
    await h.request('PUT', `/events/${ids[0]}`, { key: h.keys.admin, body: { status: 'cancelled', cancellation_reason: 'Exam week' } });
    await h.request('PUT', `/events/${ids[1]}`, { key: h.keys.admin, body: { location: 'Hall C', cancellation_reason: 'Flooded' } });
    await h.request('PUT', `/series/${id}`, { key: h.keys.admin, body: { cancellation_reason: 'Strike, extended' } });
    const reasons = async (): Promise<string[]> => (await h.request('GET', `/events?series_id=${id}&status=cancelled,published`, { key: h.keys.reader })).json.events.map((event: { cancellation_reason?: string }) => event.cancellation_reason ?? '-');
    assert.deepEqual(await reasons(), ['Exam week', 'Flooded', 'Strike, extended']);
    await h.request('PUT', `/series/${id}`, { key: h.keys.admin, body: { status: 'published' } });
    assert.deepEqual(await statuses(h, id), ['cancelled', 'cancelled', 'published']);
    assert.deepEqual(await reasons(), ['Exam week', 'Flooded', '-']);
  });

  test('a cancelled series sent back as read (its cancellation_reason too) writes nothing and keeps its ETag', async () => {
    const { id } = (await h.request('POST', '/series', { key: h.keys.organizer, body: daily(2, 3) })).json;
    await h.request('PUT', `/series/${id}`, { key: h.keys.organizer, body: { status: 'cancelled', cancellation_reason: 'Track flooded' } });
    const read = await h.request('GET', `/series/${id}`, { key: h.keys.organizer });
    for (const body of [read.json, { cancellation_reason: 'Track flooded' }, { status: 'cancelled', cancellation_reason: 'Track flooded' }]) {
      const same = await writesNothing(h, undefined, () => h.request('PUT', `/series/${id}`, { key: h.keys.organizer, body }));
      assert.equal(same.status, 200, same.text ?? '');
      assert.equal(same.headers['ETag'], read.headers['ETag'], `a PUT that changes nothing keeps the ETag: ${JSON.stringify(body)}`);
    }
  });

  test('a new occurrence of a cancelled series, made by a schedule change, is cancelled with the series\' reason', async () => {
    const { id } = (await h.request('POST', '/series', { key: h.keys.organizer, body: daily(2, 3) })).json;
    await h.request('PUT', `/series/${id}`, { key: h.keys.organizer, body: { status: 'cancelled', cancellation_reason: 'Track flooded' } });
    const longer = await h.request('PUT', `/series/${id}`, { key: h.keys.organizer, body: { recurrence: 'FREQ=DAILY;COUNT=4' } });
    assert.equal(longer.status, 200, longer.text ?? '');
    const occurrences = (await h.request('GET', `/events?series_id=${id}`, { key: h.keys.reader })).json.events;
    assert.deepEqual(occurrences.map((event: { status?: string; cancellation_reason?: string }) => `${event.status}: ${event.cancellation_reason}`), Array(4).fill('cancelled: Track flooded'));
  });

  test('cancelling one occurrence is a PUT of its status: it stays listed as cancelled, counts as edited alone, and the series keeps its status', async () => {
    const { id } = (await h.request('POST', '/series', { key: h.keys.organizer, body: daily(3, 5) })).json;
    const ids: string[] = (await h.request('GET', `/events?series_id=${id}`, { key: h.keys.reader })).json.events.map((event: { id: string }) => event.id);
    const one = await h.request('PUT', `/events/${ids[1]}`, { key: h.keys.organizer, body: { status: 'cancelled', cancellation_reason: 'Holiday' } });
    assert.equal(one.json.status, 'cancelled');
    assert.equal('status' in (await h.request('GET', `/series/${id}`, { key: h.keys.reader })).json, false);
    await h.request('PUT', `/series/${id}`, { key: h.keys.organizer, body: { location: 'Field B' } });
    const occurrences = (await h.request('GET', `/events?series_id=${id}`, { key: h.keys.reader })).json.events;
    assert.deepEqual(occurrences.map((event: { location: string }) => event.location), ['Field B', 'Track', 'Field B']);
    assert.deepEqual(occurrences.map((event: { status?: string }) => event.status ?? 'published'), ['published', 'cancelled', 'published']);
  });

  test("under approval an organizer's series is pending; an admin approves it with every occurrence, or rejects it with a note on each", async () => {
    const h2 = required;
    const first = (await h2.request('POST', '/series', { key: h2.keys.organizer, body: daily(3, -1) })).json;
    assert.equal(first.status, 'pending');
    assert.deepEqual(await statuses(h2, first.id), ['pending', 'pending', 'pending']);
    assert.equal((await h2.request('GET', `/events?series_id=${first.id}`, { key: h2.keys.reader })).json.total, 0);
    assertRefused(await h2.request('POST', `/series/${first.id}/approve`, { key: h2.keys.organizer }), 403, 'forbidden', ['organizer', 'series']);
    const approved = await h2.request('POST', `/series/${first.id}/approve`, { key: h2.keys.admin });
    assert.equal(approved.status, 200, approved.text ?? '');
    assert.equal('status' in approved.json, false);
    assert.deepEqual(await statuses(h2, first.id), ['published', 'published', 'published'], 'a started occurrence too: it was never public');
    assertRefused(await h2.request('POST', `/series/${first.id}/approve`, { key: h2.keys.admin }), 409, 'conflict', ['"published"']);

    const second = (await h2.request('POST', '/series', { key: h2.keys.organizer, body: daily(2, 4) })).json;
    assertRefused(await h2.request('POST', `/series/${second.id}/reject`, { key: h2.keys.admin, body: { reason: '' } }), 400, 'validation_failed', ['reason'], 'reason');
    const rejected = await h2.request('POST', `/series/${second.id}/reject`, { key: h2.keys.admin, body: { reason: 'Book the track first.' } });
    assert.equal(rejected.json.status, 'draft');
    assert.equal(rejected.json.review_note, 'Book the track first.');
    const drafts = (await h2.request('GET', `/events?series_id=${second.id}&status=draft`, { key: h2.keys.organizer })).json.events;
    assert.deepEqual(drafts.map((event: { review_note?: string }) => event.review_note), ['Book the track first.', 'Book the track first.']);
    const resubmitted = await h2.request('PUT', `/series/${second.id}`, { key: h2.keys.organizer, body: { location: 'Track (booked)', status: 'published' } });
    assert.equal(resubmitted.json.status, 'pending');
    assert.equal('review_note' in resubmitted.json, false);
    assert.deepEqual(await statuses(h2, second.id), ['pending', 'pending']);
    assert.equal(second.id === undefined, false);
    assertRefused(await h2.request('GET', `/series/${second.id}`, { key: h2.keys.other }), 404, 'not_found', [second.id]);
  });

  test('POST /series refuses status cancelled, pending without approval, and a cancellation_reason, each naming the field', async () => {
    for (const [body, field] of [[{ status: 'cancelled' }, 'status'], [{ status: 'pending' }, 'status'], [{ status: 'nope' }, 'status'], [{ cancellation_reason: 'x' }, 'cancellation_reason'], [{ review_note: 'x' }, 'review_note']] as const) {
      assertRefused(await writesNothing(h, undefined, () => h.request('POST', '/series', { key: h.keys.organizer, body: daily(2, 3, body) })), 400, 'validation_failed', [field], field);
    }
  });

  test('occurrence_count counts for each reader only the occurrences they may see, and its ETag moves with that count', async () => {
    const created = await h.request('POST', '/series', { key: h.keys.organizer, body: daily(3, 3, { status: 'draft' }) });
    assert.equal(created.status, 201, created.text ?? '');
    const { id } = created.json;
    const occurrences = (await h.request('GET', `/events?series_id=${id}&status=draft`, { key: h.keys.organizer })).json.events as { id: string }[];
    // Edited on its own, an occurrence stays a draft when the series is published.
    const kept = occurrences[1]!.id;
    assert.equal((await h.request('PUT', `/events/${kept}`, { key: h.keys.organizer, body: { title: 'Morning run (new track)' } })).status, 200);
    assert.equal((await h.request('PUT', `/series/${id}`, { key: h.keys.organizer, body: { status: 'published' } })).status, 200);
    const count = async (key: string): Promise<number> => (await h.request('GET', `/series/${id}`, { key })).json.occurrence_count;
    assert.equal(await count(h.keys.admin), 3);
    assert.equal(await count(h.keys.organizer), 3);
    for (const key of [h.keys.reader, h.keys.other]) {
      assert.equal(await count(key), 2, 'the draft occurrence is in no count of theirs');
      assert.equal((await h.request('GET', `/events?series_id=${id}`, { key })).json.total, 2);
      const listed = (await h.request('GET', '/series', { key })).json.series.find((series: { id: string }) => series.id === id);
      assert.equal(listed.occurrence_count, 2);
    }
    const readerRead = await h.request('GET', `/series/${id}`, { key: h.keys.reader });
    const adminRead = await h.request('GET', `/series/${id}`, { key: h.keys.admin });
    assert.notEqual(readerRead.headers['ETag'], adminRead.headers['ETag']);
    assert.equal((await h.request('GET', `/series/${id}`, { key: h.keys.reader, headers: { 'If-None-Match': readerRead.headers['ETag']! } })).status, 304);
    // Published on its own: the reader's count is the series' again, and their cached copy is stale.
    assert.equal((await h.request('PUT', `/events/${kept}`, { key: h.keys.organizer, body: { status: 'published' } })).status, 200);
    const again = await h.request('GET', `/series/${id}`, { key: h.keys.reader, headers: { 'If-None-Match': readerRead.headers['ETag']! } });
    assert.equal(again.status, 200);
    assert.equal(again.json.occurrence_count, 3);
    assert.equal(again.headers['ETag'], adminRead.headers['ETag']);
  });
  test("a cancelled series' reason: kept by a change of other fields, changed by a new one on every occurrence it took, gone after a restore", async () => {
    const { id } = (await h.request('POST', '/series', { key: h.keys.organizer, body: daily(3, 3) })).json;
    const ids: string[] = (await h.request('GET', `/events?series_id=${id}`, { key: h.keys.reader })).json.events.map((event: { id: string }) => event.id);
    // The first is edited alone: the cancellation takes it all the same, and it follows the series from then on.
    await h.request('PUT', `/events/${ids[0]}`, { key: h.keys.organizer, body: { title: 'Alone' } });
    await h.request('PUT', `/series/${id}`, { key: h.keys.organizer, body: { status: 'cancelled', cancellation_reason: 'Snow' } });
    const reasons = async (): Promise<(string | undefined)[]> =>
      (await h.request('GET', `/events?series_id=${id}`, { key: h.keys.reader })).json.events.map((event: { cancellation_reason?: string }) => event.cancellation_reason);
    const retitled = await h.request('PUT', `/series/${id}`, { key: h.keys.organizer, body: { title: 'Evening run' } });
    assert.equal(retitled.status, 200, retitled.text ?? '');
    assert.equal((await h.request('GET', `/series/${id}`, { key: h.keys.reader })).json.cancellation_reason, 'Snow', 'a partial update leaves the reason as it was');
    assert.deepEqual(await reasons(), ['Snow', 'Snow', 'Snow']);
    assert.equal((await h.request('PUT', `/series/${id}`, { key: h.keys.organizer, body: { cancellation_reason: 'Ice' } })).status, 200);
    assert.equal((await h.request('GET', `/series/${id}`, { key: h.keys.reader })).json.cancellation_reason, 'Ice');
    assert.deepEqual(await reasons(), ['Ice', 'Ice', 'Ice'], 'the one edited alone too: the cancellation took it');
    await h.request('PUT', `/series/${id}`, { key: h.keys.organizer, body: { status: 'published' } });
    assert.deepEqual(await statuses(h, id), ['published', 'published', 'published'], 'the one edited alone follows the restore');
    assert.equal('cancellation_reason' in (await h.request('GET', `/series/${id}`, { key: h.keys.reader })).json, false);
    assert.deepEqual(await reasons(), [undefined, undefined, undefined]);
    // Cancelled again without a reason: the old one does not come back.
    await h.request('PUT', `/series/${id}`, { key: h.keys.organizer, body: { status: 'cancelled' } });
    assert.equal('cancellation_reason' in (await h.request('GET', `/series/${id}`, { key: h.keys.reader })).json, false);
    assert.deepEqual(await reasons(), [undefined, undefined, undefined]);
  });

  test("a rejected series' review note lasts until its next change, on the series and on every occurrence", async () => {
    const r = required;
    const { id } = (await r.request('POST', '/series', { key: r.keys.organizer, body: daily(2, 3) })).json;
    assert.equal((await r.request('POST', `/series/${id}/reject`, { key: r.keys.admin, body: { reason: 'Add a room' } })).status, 200);
    const edited = await r.request('PUT', `/series/${id}`, { key: r.keys.organizer, body: { title: 'Morning run (room 4)' } });
    assert.equal(edited.status, 200, edited.text ?? '');
    assert.equal('review_note' in edited.json, false);
    assert.equal('review_note' in (await r.request('GET', `/series/${id}`, { key: r.keys.organizer })).json, false);
    const drafts = (await r.request('GET', `/events?series_id=${id}&status=draft`, { key: r.keys.organizer })).json.events;
    assert.equal(drafts.length, 2);
    assert.deepEqual(drafts.map((event: { review_note?: string }) => event.review_note), [undefined, undefined]);
  });
});
