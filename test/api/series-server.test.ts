// /series through `node dist/server.js` over a real socket: a 500-occurrence series paged through, rescheduled, and read by ical.js.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import ICAL from 'ical.js';
import { tempDir } from '../helpers/harness.js';
import { spawnServer } from '../helpers/spawn.js';
import { createKey, send } from '../durability/support.js';

test('a spawned server creates a 500-occurrence series in one request, pages through it, keeps registrations across a schedule change, and serves its feed', { timeout: 60_000 }, async (t) => {
  const { dir, remove } = tempDir('campus-series-server-');
  const key = createKey(dir);
  const server = await spawnServer(['--port', '0', '--data-dir', dir, '--time-zone', 'America/New_York']);
  t.after(async () => {
    await server.stop();
    remove();
  });
  const created = await send(server.url, key, 'POST', '/series', {
    title: 'Office hours', category: 'academic', location: 'Room 4', capacity: 5,
    start_time: '2027-01-04T14:00:00-05:00', end_time: '2027-01-04T15:00:00-05:00', recurrence: 'FREQ=DAILY;COUNT=500',
  });
  assert.equal(created.status, 201);
  const series = (await created.json()) as { id: string; time_zone: string; occurrence_count: number };
  assert.equal(series.time_zone, 'America/New_York', 'the campus zone by default');
  assert.equal(series.occurrence_count, 500);
  const starts: string[] = [];
  const ids: string[] = [];
  for (let page = 1; page <= 6; page++) {
    const response = await send(server.url, key, 'GET', `/events?series_id=${series.id}&limit=100&page=${page}`);
    const body = (await response.json()) as { events: { id: string; start_time: string }[]; total: number };
    assert.equal(body.total, 500);
    assert.equal(body.events.length, page <= 5 ? 100 : 0);
    for (const event of body.events) {
      starts.push(event.start_time);
      ids.push(event.id);
    }
  }
  assert.equal(new Set(ids).size, 500);
  assert.equal(starts[0], '2027-01-04T19:00:00.000Z');
  assert.equal(starts[100], '2027-04-14T18:00:00.000Z', '14:00 in New York is 18:00Z in summer');
  const registration = await send(server.url, key, 'POST', `/events/${ids[10]}/registrations`, { name: 'Ada', email: 'ada@campus.edu' });
  assert.equal(registration.status, 201);
  const shorter = await send(server.url, key, 'PUT', `/series/${series.id}`, { recurrence: 'FREQ=DAILY;COUNT=20' });
  assert.equal(shorter.status, 200);
  const kept = (await (await send(server.url, key, 'GET', `/events/${ids[10]}`)).json()) as { registered_count: number };
  assert.equal(kept.registered_count, 1);
  const feed = await send(server.url, key, 'GET', `/events.ics?series_id=${series.id}&start_date=2027-01-01`);
  assert.equal(feed.status, 200);
  const calendar = new ICAL.Component(ICAL.parse(await feed.text()));
  const vevents = calendar.getAllSubcomponents('vevent');
  assert.equal(vevents.length, 20);
  assert.deepEqual(vevents.map((vevent) => String(vevent.getFirstPropertyValue('uid'))), ids.slice(0, 20).map((id) => `${id}@campus-events`));
  for (const vevent of vevents) assert.equal(vevent.getFirstPropertyValue('related-to'), `${series.id}@campus-events`);
});
