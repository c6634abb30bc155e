// readHistory() on a real PostgreSQL: reading only the rows that name the events a stretch touches gives the very
// messages a walk of the whole log gives, for seeded random writes (events, registrations, cancels, promotions, deletes),
// with and without a checkpoint before them (before it, what it replaced is reported compacted).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { skip, usePostgres } from '../../helpers/postgres-fixture.js';
import { openApp, type App } from '../../../src/app.js';
import type { PostgresStore } from '../../../src/store/postgres/postgres-store.js';
import { connect } from '../../../src/store/postgres/client.js';
import { readFromStart, readHistory } from '../../../src/store/postgres/history-feed.js';
import { messagesOf } from '../../../src/webhooks/messages.js';
import type { HistoryRead } from '../../../src/store/views/change-history.js';
import { call } from '../../helpers/harness.js';
import { mulberry32 } from '../../helpers/random.js';

const pg = usePostgres();

/** What webhooks would send of a read: every message's position, type and data, and how far compaction went. */
function sent(read: HistoryRead): { messages: string[]; compactedThrough: number } {
  return { messages: read.changes.flatMap((change) => messagesOf(change).map((message) => `${message.seq}.${message.index} ${message.type} ${message.data}`)), compactedThrough: read.compactedThrough };
}

/** `count` seeded random requests: creates, registrations, cancels, renames, capacity changes, deletions. */
async function randomWrites(app: App, random: () => number, count: number, state: { events: string[]; registrations: [string, string][] }): Promise<void> {
  const key = app.initialAdminKey!;
  const pick = <T>(items: readonly T[]): T | undefined => items[Math.floor(random() * items.length)];
  const { events, registrations } = state;
  for (let n = 0; n < count; n++) {
    const roll = random();
    const event = pick(events);
    if (event === undefined || roll < 0.2) {
      const created = await call(app, 'POST', '/events', { key, body: { title: `E${n}`, category: 'social', location: 'Quad', start_time: '2031-05-01T10:00:00Z', end_time: '2031-05-01T12:00:00Z', capacity: 2 } });
      events.push(created.json.id);
    } else if (roll < 0.6) {
      const made = await call(app, 'POST', `/events/${event}/registrations`, { key, body: { name: `P${n}`, email: `p${n}@campus.edu` } });
      if (made.status === 201) registrations.push([event, made.json.id]);
    } else if (roll < 0.75 && registrations.length > 0) {
      const [onEvent, id] = registrations.splice(Math.floor(random() * registrations.length), 1)[0]!;
      await call(app, 'DELETE', `/events/${onEvent}/registrations/${id}`, { key });
    } else if (roll < 0.9) {
      await call(app, 'PUT', `/events/${event}`, { key, body: random() < 0.5 ? { capacity: 3 + Math.floor(random() * 3) } : { title: `Renamed ${n}` } });
    } else {
      await call(app, 'DELETE', `/events/${event}`, { key });
      events.splice(events.indexOf(event), 1);
    }
  }
}

describe('readHistory()', { skip, timeout: 60_000 }, () => {
  it('gives the messages a walk from the log\'s start gives, for any position and limit (seeded random writes)', async () => {
    const seed = Number(process.env['HISTORY_SEED'] ?? Date.now() % 1_000_000);
    const random = mulberry32(seed);
    const url = await pg.database('history_feed');
    const app = await openApp({ store: url, console: false, now: () => Date.parse('2026-11-25T12:00:00Z') }, {});
    const db = await connect(url);
    try {
      await randomWrites(app, random, 100, { events: [], registrations: [] });
      const through = app.store.changes.lastSeq;
      const positions = [0, 1, through - 1, through, ...Array.from({ length: 6 }, () => Math.floor(random() * through))];
      for (const since of positions) {
        for (const limit of [undefined, 1, 7]) {
          const range = { since, through, limit };
          assert.deepEqual(sent(await readHistory(db, range, 0)), sent(await readFromStart(db, range, 0)), `since ${since}, limit ${limit} (seed ${seed})`);
        }
      }
      assert.ok(sent(await readFromStart(db, { since: 0, through }, 0)).messages.length > 100, 'the writes made messages');
    } finally {
      await db.end();
      await app.close();
    }
  });

  it('across a checkpoint: after it, the same messages as a walk from its start; before it, what it replaced is reported compacted (seeded random writes)', async () => {
    const seed = Number(process.env['HISTORY_SEED'] ?? Date.now() % 1_000_000);
    const random = mulberry32(seed);
    const url = await pg.database('history_checkpoint');
    const app = await openApp({ store: url, console: false, now: () => Date.parse('2026-11-25T12:00:00Z'), compactMinBytes: Number.MAX_SAFE_INTEGER }, {});
    const db = await connect(url);
    try {
      const state = { events: [] as string[], registrations: [] as [string, string][] };
      await randomWrites(app, random, 60, state);
      const store = app.store as PostgresStore;
      const outcome = await store.checkpoint();
      assert.ok('written' in outcome);
      const checkpoint = outcome.written.seq;
      await randomWrites(app, random, 60, state);
      const through = store.lastSeq;
      const positions = [checkpoint, checkpoint + 1, through - 1, through, ...Array.from({ length: 6 }, () => checkpoint + Math.floor(random() * (through - checkpoint)))];
      for (const since of positions) {
        for (const limit of [undefined, 1, 7]) {
          const range = { since, through, limit };
          const read = sent(await readHistory(db, range, 0));
          assert.deepEqual(read, sent(await readFromStart(db, range, 0)), `since ${since}, limit ${limit} (seed ${seed})`);
          assert.equal(read.compactedThrough, checkpoint, `since ${since} (seed ${seed})`);
        }
      }
      // Before the checkpoint: nothing after `since` up to it can be sent as it happened; a webhook there reports the gap.
      for (const since of [0, 1, Math.floor(checkpoint / 2), checkpoint - 1]) {
        const read = await readHistory(db, { since, through }, 0);
        assert.equal(read.compactedThrough, checkpoint, `since ${since} (seed ${seed})`);
        const after = sent(read).messages.filter((message) => Number(message.split('.')[0]) > checkpoint);
        assert.deepEqual(after, sent(await readHistory(db, { since: checkpoint, through }, 0)).messages, `since ${since}: after the checkpoint, every message (seed ${seed})`);
      }
    } finally {
      await db.end();
      await app.close();
    }
  });
});
