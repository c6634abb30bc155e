// SeriesMembers.list() against filtering, sorting and paging a plain list of the live events, over seeded random series and queries.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CATEGORIES, type Category, type StoredEvent } from '../../../src/events/event.js';
import { toStored } from '../../../src/store/views/served-event.js';
import type { ListQuery } from '../../../src/store/event-store.js';
import { compareEvents } from '../../../src/store/views/sort-events.js';
import { SeriesMembers } from '../../../src/store/views/series-members.js';
import { mulberry32 } from '../../helpers/random.js';
import { sampleRecord } from '../helpers.js';

const SEED = Number(process.env['SERIES_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const SERIES = ['ser_0000000000000000000A', 'ser_0000000000000000000B'];
const TITLES = ['Chess club', 'Choir practice', 'Physics colloquium', 'Chess final'];
const HOUR = 3_600_000;
const BASE = Date.UTC(2027, 0, 1);

test(`SeriesMembers.list() pages a series' events matching categories, dates and words as a filtered plain list would (SERIES_SEED=${SEED})`, () => {
  const random = mulberry32(SEED);
  const below = (n: number): number => Math.floor(random() * n);
  const members = new SeriesMembers();
  const live = new Map<string, StoredEvent>();
  for (let step = 0; step < 600; step++) {
    // Few ids: an id comes back in another series, or in none, or with other times.
    const n = 1 + below(40);
    const id = `evt_${String(n).padStart(16, '0')}`;
    const old = live.get(id);
    if (old !== undefined) {
      members.remove(old);
      live.delete(id);
    }
    if (below(4) > 0) {
      // Start times repeat, so ties go to the id.
      const start = BASE + below(30) * HOUR;
      const seriesId = below(5) === 0 ? undefined : SERIES[below(SERIES.length)];
      const stored = toStored(
        sampleRecord(n, {
          title: TITLES[below(TITLES.length)]!,
          category: CATEGORIES[below(3)]!,
          start_time: new Date(start).toISOString(),
          end_time: new Date(start + (1 + below(5)) * HOUR).toISOString(),
          series_id: seriesId,
        }),
        step + 1,
      );
      members.add(stored);
      live.set(id, stored);
    }
    const categories: Category[] = below(2) === 0 ? [] : [CATEGORIES[below(3)]!, ...(below(2) === 0 ? [CATEGORIES[below(3)]!] : [])];
    const query: ListQuery & { seriesId: string } = {
      seriesId: SERIES[below(SERIES.length)]!,
      ...(categories.length === 1 && below(2) === 0 ? { category: categories[0] } : { categories }),
      startFromMs: below(2) === 0 ? undefined : BASE + below(30) * HOUR,
      endByMs: below(2) === 0 ? undefined : BASE + below(34) * HOUR,
      words: below(3) === 0 ? ['ch'] : below(2) === 0 ? ['chess', 'fin'] : undefined,
      limit: 1 + below(6),
      page: 1 + below(4),
    };
    const matching = [...live.values()]
      .filter((event) => event.seriesId === query.seriesId)
      .filter((event) => categories.length === 0 || categories.includes(event.category))
      .filter((event) => query.startFromMs === undefined || event.startMs >= query.startFromMs)
      .filter((event) => query.endByMs === undefined || event.endMs <= query.endByMs)
      .filter((event) => query.words === undefined || query.words.every((word) => event.json.toLowerCase().includes(`"title":"${word}`) || event.json.toLowerCase().includes(` ${word}`)))
      .sort(compareEvents);
    const offset = (query.page - 1) * query.limit;
    const page = members.list(query);
    const what = `seed ${SEED}, step ${step}: ${JSON.stringify(query)}`;
    assert.equal(page.total, matching.length, `${what}: total`);
    assert.deepEqual(page.events.map((event) => event.id), matching.slice(offset, offset + query.limit).map((event) => event.id), `${what}: page`);
  }
});

test('SeriesMembers: an event without a series is in none, and removing one it never held changes nothing', () => {
  const members = new SeriesMembers();
  const alone = toStored(sampleRecord(1), 1);
  members.add(alone);
  members.remove(alone);
  const occurrence = toStored(sampleRecord(2, { series_id: SERIES[0] }), 2);
  members.remove(occurrence);
  members.add(occurrence);
  members.remove(toStored(sampleRecord(3, { series_id: SERIES[0] }), 3));
  const query = { seriesId: SERIES[0]!, limit: 10, page: 1 };
  assert.deepEqual(members.list(query).events, [occurrence]);
  members.remove(occurrence);
  assert.deepEqual(members.list(query), { events: [], total: 0 });
  members.add(occurrence);
  assert.deepEqual(members.list(query).events, [occurrence], 'a series emptied and filled again lists its event');
});
