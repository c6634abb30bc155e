// An occurrence edited or deleted through /events on an instance that has not yet read the series' creation (API.md
// §11 with §12): the write still goes with its series, so the delete is an exdate a later series write keeps, and the
// edit stays the occurrence's own.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { skip, usePostgres } from '../helpers/postgres-fixture.js';
import { startInstances, type Instances } from '../helpers/instances.js';
import { waitFor } from '../helpers/spawn.js';

const postgres = usePostgres();

describe('an occurrence written on an instance behind the series\' creation', { skip, timeout: 60_000 }, () => {
  it('a DELETE adds the exdate and an edit detaches the occurrence, so a later series rename neither brings the one back nor overwrites the other', async () => {
    const two = await startInstances(await postgres.database('occurrence_behind'), 2);
    try {
      for (let round = 0; round < 4; round++) await behindRound(two, round);
    } finally {
      await two.stop();
    }
  });
});

async function behindRound(two: Instances, round: number): Promise<void> {
  // The second instance is paused while the first creates the series, so it answers the two writes below before
  // it heard of the series (as a slow instance would).
  two.pause(1);
  const created = await two.call(0, 'POST', '/series', { title: `Seminar ${round}`, category: 'academic', location: 'Hall', capacity: 5, recurrence: 'FREQ=WEEKLY;COUNT=4', start_time: '2031-03-04T10:00:00Z', end_time: '2031-03-04T12:00:00Z', time_zone: 'UTC' });
  assert.equal(created.status, 201);
  const series = (await created.json()) as { id: string };
  const listed = (await (await two.call(0, 'GET', `/events?series_id=${series.id}`)).json()) as { events: { id: string; start_time: string }[] };
  const [, second, third] = listed.events;
  const removed = two.call(1, 'DELETE', `/events/${second!.id}`);
  const edited = two.call(1, 'PUT', `/events/${third!.id}`, { title: 'Edited alone' });
  await new Promise((resolve) => setTimeout(resolve, 200));
  two.resume(1);
  assert.equal((await removed).status, 204);
  assert.equal((await edited).status, 200);

  const renamed = await two.call(0, 'PUT', `/series/${series.id}`, { title: `Seminar ${round} (renamed)` });
  assert.equal(renamed.status, 200, await renamed.clone().text());
  // The other instance shows a write within a second (§12): wait for the rename there.
  const renamedOn = async (i: number): Promise<boolean> => ((await (await two.call(i, 'GET', `/series/${series.id}`)).json()) as { title: string }).title.endsWith('(renamed)');
  assert.ok(await waitFor(() => renamedOn(1), 5_000), 'the second instance shows the rename');
  for (const i of [0, 1]) {
    const after = (await (await two.call(i, 'GET', `/series/${series.id}`)).json()) as { exdates: string[]; occurrence_count: number };
    assert.deepEqual(after.exdates.map(Date.parse), [Date.parse(second!.start_time)], `round ${round}, instance ${i}: the deleted start is an exdate`);
    assert.equal(after.occurrence_count, 3, `round ${round}, instance ${i}: three occurrences left`);
    const events = (await (await two.call(i, 'GET', `/events?series_id=${series.id}`)).json()) as { events: { id: string; title: string; start_time: string }[] };
    assert.deepEqual(events.events.map((event) => event.start_time).includes(second!.start_time), false, `round ${round}, instance ${i}: the deleted occurrence did not come back`);
    assert.equal(events.events.find((event) => event.id === third!.id)?.title, 'Edited alone', `round ${round}, instance ${i}: the occurrence edited alone kept its title`);
  }
}
