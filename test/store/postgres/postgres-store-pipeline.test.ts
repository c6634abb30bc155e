// PostgresStore's pipelined write batches: the next batch waits on the log's lock while the one before commits, then
// decides against it. Closed-loop writers on two instances keep batches overlapping; every instance must end with the
// same log as a fresh reader of the database, each record applied once, seats given in the database's order.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openPostgresStore } from '../../../src/store/postgres/open-postgres-store.js';
import type { PostgresStore } from '../../../src/store/postgres/postgres-store.js';
import { skip, usePostgres } from '../../helpers/postgres-fixture.js';
import { eventFields, eventId, sampleRecord } from '../helpers.js';
import { registrationId } from '../views/roster-helpers.js';

const pg = usePostgres();

describe('PostgresStore: pipelined write batches', { skip }, () => {
  it('two instances under closed-loop writers: each record applied once, in one order, the seats of one event never above capacity', async () => {
    const url = await pg.database('pipeline');
    const [a, b] = await Promise.all([openPostgresStore({ url }), openPostgresStore({ url })]);
    let fresh: PostgresStore | undefined;
    try {
      await a.write(eventId(1), () => sampleRecord(1, { capacity: 50 }));
      const WRITES = 360;
      let next = 0;
      // As HTTP clients do: each sends its next write when the last is answered, so writes arrive while a batch commits.
      const client = async (store: PostgresStore): Promise<void> => {
        while (next < WRITES) {
          const n = next++;
          if (n % 4 === 3) await store.write(eventId(100 + n), () => sampleRecord(100 + n));
          else await store.changeRegistrations(eventId(1), () => ({ op: 'register', registration: { id: registrationId(n), name: `Person ${n}`, email: `p${n}@campus.example` } }));
        }
      };
      await Promise.all(Array.from({ length: 12 }, () => [client(a), client(b)]).flat());
      fresh = await openPostgresStore({ url });
      const last = fresh.lastSeq;
      await Promise.all([a.catchUp(), b.catchUp()]);
      // By fields: a fresh reader packs the events it reads, as a file store's replay does.
      const feed = (store: PostgresStore) => store.changes.after(0, 10_000).changes.map(({ seq, id, event }) => ({ seq, id, event: eventFields(event ?? undefined) }));
      const expected = feed(fresh);
      for (const store of [a, b]) {
        assert.equal(store.lastSeq, last);
        assert.deepEqual(feed(store), expected, 'the same change log as a fresh reader: nothing applied twice or skipped');
        const roster = store.roster(eventId(1));
        const registrations = [...roster.values()];
        assert.equal(registrations.length, WRITES - WRITES / 4);
        assert.equal(new Set(registrations.map((registration) => registration.id)).size, registrations.length, 'each registration once');
        assert.equal(roster.confirmed, 50);
        assert.equal((JSON.parse(store.get(eventId(1))!.json) as { registered_count: number }).registered_count, 50);
        assert.deepEqual(registrations.map((registration) => registration.status), [...fresh.roster(eventId(1)).values()].map((registration) => registration.status));
      }
      // Seats in the database's order: the first 50 registrations in the log are the confirmed ones.
      assert.deepEqual([...fresh.roster(eventId(1)).values()].slice(0, 50).map((registration) => registration.status), Array(50).fill('confirmed'));
    } finally {
      await Promise.all([a.close(), b.close(), fresh?.close()]);
    }
  });
});
