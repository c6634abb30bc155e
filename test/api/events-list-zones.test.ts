// The date rules of GET /events and /events.ics (API.md §5, §9.1) rerun in four campus zones: UTC, Los Angeles,
// Berlin and Kiritimati (UTC+14), at the edges of local days and across daylight-saving changes (23- and 25-hour days).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startOfDay } from '../../src/lib/time-zone.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { parseFeed } from '../feeds/parse-feed.js';
import { createEvent } from './support.js';

const HOUR = 3_600_000;
/** Each zone with an ordinary day and its daylight-saving days (local dates), with each day's length in hours. */
const ZONES: { zone: string; days: [string, number][] }[] = [
  { zone: 'UTC', days: [['2026-09-01', 24]] },
  { zone: 'America/Los_Angeles', days: [['2026-09-01', 24], ['2026-03-08', 23], ['2026-11-01', 25]] },
  { zone: 'Europe/Berlin', days: [['2026-09-01', 24], ['2026-03-29', 23], ['2026-10-25', 25]] },
  { zone: 'Pacific/Kiritimati', days: [['2026-09-01', 24], ['2026-12-31', 24]] },
];

const iso = (ms: number): string => new Date(ms).toISOString();

/** The first instant of local day `date` (YYYY-MM-DD) in `zone`, and that of the day after. */
function dayBounds(zone: string, date: string): { start: number; end: number } {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const next = new Date(Date.UTC(year, month - 1, day + 1));
  return { start: startOfDay(zone, year, month, day), end: startOfDay(zone, next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate()) };
}

for (const { zone, days } of ZONES) {
  describe(`GET /events days in ${zone}`, () => {
    let h: Harness;
    before(async () => (h = await startHarness({ timeZone: zone })));
    after(() => h.close());

    async function titles(query: string): Promise<string[]> {
      const response = await h.request('GET', `/events?${query}`, { key: h.keys.reader });
      assert.equal(response.status, 200, response.text ?? '');
      return response.json.events.map((event: { title: string }) => event.title);
    }

    for (const [date, hours] of days) {
      it(`${date} runs from local midnight to local midnight, ${hours} hours; a millisecond either side is outside`, async () => {
        const { start, end } = dayBounds(zone, date);
        assert.equal((end - start) / HOUR, hours, 'the day has the length the zone gives it');
        const made: [string, number, number][] = [
          [`${date} whole day`, start, end],
          [`${date} starts 1 ms early`, start - 1, start + HOUR],
          [`${date} ends 1 ms late`, end - HOUR / 2, end + 1],
          [`${date} last hour`, end - HOUR, end],
        ];
        for (const [title, from, to] of made) await createEvent(h, h.keys.organizer, { title, start_time: iso(from), end_time: iso(to) });
        assert.deepEqual(await titles(`start_date=${date}&end_date=${date}&q=${encodeURIComponent(date)}`), [`${date} whole day`, `${date} last hour`]);
        assert.deepEqual(await titles(`start_date=${date}&q=${encodeURIComponent(date)}`), [`${date} whole day`, `${date} last hour`, `${date} ends 1 ms late`]);
        assert.deepEqual(await titles(`end_date=${date}&q=${encodeURIComponent(date)}`), [`${date} starts 1 ms early`, `${date} whole day`, `${date} last hour`]);
      });
    }
  });

  describe(`GET /events.ics in ${zone}: the default window starts at local midnight 31 days before today`, () => {
    let h: Harness;
    // Today is 2026-09-15 in the zone, 1 ms before its end: the window starts at the start of 2026-08-15 there.
    const clock = dayBounds(zone, '2026-09-15').end - 1;
    before(async () => (h = await startHarness({ timeZone: zone, now: () => clock })));
    after(() => h.close());

    it('includes an event starting at that midnight and leaves out one starting a millisecond before', async () => {
      const { start } = dayBounds(zone, '2026-08-15');
      await createEvent(h, h.keys.organizer, { title: 'Just before', start_time: iso(start - 1), end_time: iso(start + HOUR) });
      await createEvent(h, h.keys.organizer, { title: 'First in', start_time: iso(start), end_time: iso(start + HOUR) });
      const feed = await h.request('GET', `/events.ics?key=${h.keys.feed}`);
      assert.deepEqual(parseFeed(feed.text!).events.map((event) => event.summary), ['First in']);
      const dated = await h.request('GET', `/events.ics?key=${h.keys.feed}&start_date=2026-08-14`);
      assert.deepEqual(parseFeed(dated.text!).events.map((event) => event.summary), ['Just before', 'First in']);
    });
  });
}
