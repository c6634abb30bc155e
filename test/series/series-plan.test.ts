// planUpdate() and friends: which occurrences a series write keeps, changes, deletes and creates, against a fixed clock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Principal } from '../../src/auth/principal.js';
import { toStored } from '../../src/store/views/served-event.js';
import { toRecord, type EventRecord, type StoredEvent } from '../../src/events/event.js';
import { ApiError } from '../../src/http/errors.js';
import { emptyRoster } from '../../src/store/views/roster.js';
import type { GroupView } from '../../src/store/event-store.js';
import type { SeriesDocument } from '../../src/series/series-document.js';
import { validateSeries } from '../../src/series/series-input.js';
import { planCreate, planUpdate, withDetached, withoutOccurrence } from '../../src/series/series-plan.js';

const ORGANIZER: Principal = { keyId: 'key_o', name: 'Olivia Organizer', email: 'olivia@campus.edu', role: 'organizer' };
const DAY_MS = 86_400_000;
const FIRST = Date.UTC(2027, 8, 6, 9);
const BODY = { title: 'Lecture', category: 'academic', location: 'Hall A', capacity: 10, time_zone: 'UTC', start_time: new Date(FIRST).toISOString(), end_time: new Date(FIRST + 3_600_000).toISOString(), recurrence: 'FREQ=DAILY;COUNT=5' };

/** A series of five daily occurrences and a view over them (registrations as given). */
function fixture(registered: Record<number, number> = {}): { series: SeriesDocument; events: Map<string, StoredEvent>; view: GroupView } {
  let n = 0;
  const created = planCreate('ser_0000000000000000000A', '2027-01-01T00:00:00.000Z', validateSeries(BODY, ORGANIZER, undefined, 'UTC'), {
    nowMs: FIRST - DAY_MS,
    newEventId: () => `evt_${String(++n).padStart(16, '0')}`,
    view: undefined as unknown as GroupView,
  });
  const events = new Map(created.plan.events.map(({ id, record }, index) => [id, toStored({ ...(record as EventRecord), registered_count: registered[index] ?? 0 }, index + 1)]));
  const view: GroupView = {
    event: (id) => events.get(id),
    roster: (id) => {
      const count = events.get(id)?.json.includes('"registered_count":0,') === false ? 1 : 0;
      return count === 0 ? emptyRoster() : ({ ...emptyRoster(), confirmed: count, waitlisted: 0 } as ReturnType<typeof emptyRoster>);
    },
    document: () => undefined,
  };
  return { series: created.document, events, view };
}

const ids = (plan: { events: readonly { id: string; record: EventRecord | null }[] }, kind: 'put' | 'delete'): string[] =>
  plan.events.filter((each) => (kind === 'delete') === (each.record === null)).map((each) => each.id);

test('planCreate() makes one event per occurrence, each with the series id, and lists them in the document', () => {
  const { series, events } = fixture();
  assert.equal(series.occurrences.length, 5);
  for (const event of events.values()) assert.equal(event.seriesId, 'ser_0000000000000000000A');
});

test('planUpdate() never changes an occurrence that has started, and changes the others that were not edited alone', () => {
  const { series, view } = fixture();
  const fourth = view.event(series.occurrences[3]!)!;
  const edited = withDetached(series, fourth, { ...toRecord(fourth), location: 'Gym' });
  const input = validateSeries({ location: 'Hall B' }, ORGANIZER, edited, 'UTC');
  // Two occurrences have started by now.
  const { plan, document } = planUpdate(edited, input, { nowMs: FIRST + DAY_MS + 1, newEventId: () => assert.fail('no new occurrence'), view });
  assert.deepEqual(ids(plan, 'put'), [series.occurrences[2], series.occurrences[4]]);
  assert.deepEqual(ids(plan, 'delete'), []);
  assert.deepEqual(document.occurrences, series.occurrences);
  assert.deepEqual(Object.keys(document.detached), [series.occurrences[3]]);
});

test('planUpdate() of a shorter schedule deletes the occurrences it drops, unless one holds registrations (409 naming it)', () => {
  const { series, view } = fixture();
  const shorter = validateSeries({ recurrence: 'FREQ=DAILY;COUNT=3' }, ORGANIZER, series, 'UTC');
  const { plan, document } = planUpdate(series, shorter, { nowMs: FIRST - 1, newEventId: () => assert.fail('no new occurrence'), view });
  assert.deepEqual(ids(plan, 'delete'), series.occurrences.slice(3));
  assert.deepEqual(document.occurrences, series.occurrences.slice(0, 3));
  const held = fixture({ 4: 1 });
  assert.throws(
    () => planUpdate(held.series, validateSeries({ recurrence: 'FREQ=DAILY;COUNT=3' }, ORGANIZER, held.series, 'UTC'), { nowMs: FIRST - 1, newEventId: () => 'x', view: held.view }),
    (error: unknown) => error instanceof ApiError && error.code === 'conflict' && error.message.includes(held.series.occurrences[4]!),
  );
});

test('planUpdate() of a longer schedule creates the new starts, but none that would already have started', () => {
  const { series, view } = fixture();
  let n = 100;
  const moved = validateSeries({ start_time: new Date(FIRST - 2 * DAY_MS).toISOString(), end_time: new Date(FIRST - 2 * DAY_MS + 3_600_000).toISOString(), recurrence: 'FREQ=DAILY;COUNT=8' }, ORGANIZER, series, 'UTC');
  const { plan, document } = planUpdate(series, moved, { nowMs: FIRST - DAY_MS - 1, newEventId: () => `evt_${String(++n).padStart(16, '0')}`, view });
  // Starts FIRST-2d (past: not made) and FIRST-1d (future: made), the five kept, one more at the end.
  const created = plan.events.filter((each) => !series.occurrences.includes(each.id));
  assert.deepEqual(created.map((each) => each.record!.start_time), [new Date(FIRST - DAY_MS).toISOString(), new Date(FIRST + 5 * DAY_MS).toISOString()]);
  assert.equal(document.occurrences.length, 7);
});

test('withoutOccurrence() puts the start the schedule gave it in exdates, even after it was moved alone', () => {
  const { series, view } = fixture();
  const event = view.event(series.occurrences[1]!)!;
  const detached = withDetached(series, event, { ...toRecord(event), start_time: '2027-09-07T15:00:00.000Z' });
  const moved = toStored({ ...JSON.parse(event.json), created_at: event.createdAt, start_time: '2027-09-07T15:00:00.000Z', end_time: '2027-09-07T16:00:00.000Z' }, 99);
  const after = withoutOccurrence(detached, moved);
  assert.deepEqual(after.exdates, [new Date(FIRST + DAY_MS).toISOString()]);
  assert.equal(after.occurrences.length, 4);
  assert.deepEqual(after.detached, {});
});

test('planUpdate() of a new length gives it to an occurrence edited alone whose times the schedule gave it, not to one whose own times were edited', () => {
  const { series, events, view } = fixture();
  const [, , third, fourth] = series.occurrences.map((id) => view.event(id)!);
  // The third's description was edited alone; the fourth was made to end half an hour later alone.
  let edited = withDetached(series, third!, { ...toRecord(third!), description: 'Guest speaker' });
  edited = withDetached(edited, fourth!, { ...toRecord(fourth!), end_time: new Date(fourth!.endMs + 1_800_000).toISOString() });
  events.set(fourth!.id, toStored({ ...toRecord(fourth!), end_time: new Date(fourth!.endMs + 1_800_000).toISOString() }, 50));
  const longer = validateSeries({ end_time: new Date(FIRST + 4_500_000).toISOString(), location: 'Hall B' }, ORGANIZER, edited, 'UTC');
  const { plan } = planUpdate(edited, longer, { nowMs: FIRST - 1, newEventId: () => assert.fail('no new occurrence'), view });
  const put = new Map(plan.events.map((each) => [each.id, each.record!]));
  assert.deepEqual([...put.keys()], [0, 1, 2, 4].map((index) => series.occurrences[index]), 'all but the one whose end was its own');
  for (const [index, id] of series.occurrences.entries()) {
    if (index === 3) continue;
    assert.equal(put.get(id)!.end_time, new Date(FIRST + index * DAY_MS + 4_500_000).toISOString(), `occurrence ${index} ends at 10:15`);
  }
  assert.equal(put.get(third!.id)!.location, 'Hall A', 'the one edited alone keeps its shared fields');
  assert.equal(put.get(series.occurrences[4]!)!.location, 'Hall B');
  assert.deepEqual(plan.events.filter((each) => each.record === null), []);
});
