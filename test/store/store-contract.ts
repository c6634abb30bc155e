// The contract every EventStore keeps, run against the memory store and the file store alike.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StoredEvent } from '../../src/events/event.js';
import { ApiError } from '../../src/http/errors.js';
import type { EventStore } from '../../src/store/event-store.js';
import { eventId, sampleRecord } from './helpers.js';
import { StoreUnavailable } from '../../src/store/store-errors.js';

type TestContext = { after(fn: () => void): void };

/** Runs the shared contract; `open` gives a fresh, empty store. */
export function storeContract(name: string, open: (t: TestContext) => Promise<EventStore>): void {
  describe(`${name} keeps the EventStore contract`, () => {
    it('write() creates an event that get() and list() then return', async (t) => {
      const store = await open(t);
      const stored = await store.write(eventId(1), (current) => {
        assert.equal(current, undefined);
        return sampleRecord(1);
      });
      assert.ok(stored !== null);
      assert.equal(store.get(eventId(1)), stored);
      assert.equal(store.size, 1);
      assert.deepEqual(store.list({ limit: 10, page: 1 }), { events: [stored], total: 1 });
      assert.equal(stored.organizerEmail, 'ada@campus.example');
      await store.close();
    });

    it('write() gives each change a higher seq, and a change sees the state before it', async (t) => {
      const store = await open(t);
      const first = (await store.write(eventId(1), () => sampleRecord(1)))!;
      const second = (await store.write(eventId(1), (current) => {
        assert.equal(current, first);
        return sampleRecord(1, { title: 'Renamed' });
      }))!;
      assert.ok(second.seq > first.seq);
      assert.equal(JSON.parse(store.get(eventId(1))!.json).title, 'Renamed');
      await store.close();
    });

    it('write() resolving null deletes the event', async (t) => {
      const store = await open(t);
      await store.write(eventId(1), () => sampleRecord(1));
      assert.equal(await store.write(eventId(1), () => null), null);
      assert.equal(store.get(eventId(1)), undefined);
      assert.equal(store.size, 0);
      assert.equal(store.list({ limit: 10, page: 1 }).total, 0);
      await store.close();
    });

    it('write() rethrows what a change throws, and queues nothing', async (t) => {
      const store = await open(t);
      const refusal = new ApiError('conflict', 'no');
      await assert.rejects(store.write(eventId(1), () => { throw refusal; }), (error) => error === refusal);
      assert.equal(store.get(eventId(1)), undefined);
      const stored = await store.write(eventId(1), (current) => {
        assert.equal(current, undefined);
        return sampleRecord(1);
      });
      assert.ok(stored !== null);
      assert.equal(store.writable, true);
      await store.close();
    });

    it('write() runs changes queued together against each other: of two with the same expected seq, exactly one passes', async (t) => {
      const store = await open(t);
      const original = (await store.write(eventId(1), () => sampleRecord(1)))!;
      const ifMatch = (title: string) => (current: StoredEvent | undefined) => {
        if (current?.seq !== original.seq) throw new ApiError('precondition_failed', 'changed meanwhile');
        return sampleRecord(1, { title });
      };
      const results = await Promise.allSettled([store.write(eventId(1), ifMatch('A')), store.write(eventId(1), ifMatch('B'))]);
      assert.equal(results.filter((result) => result.status === 'fulfilled').length, 1);
      const failed = results.find((result) => result.status === 'rejected');
      assert.ok(failed?.status === 'rejected' && failed.reason instanceof ApiError && failed.reason.code === 'precondition_failed');
      assert.equal(JSON.parse(store.get(eventId(1))!.json).title, 'A');
      await store.close();
    });

    it('write() shows a change to readers only once it resolves (memory after disk)', async (t) => {
      const store = await open(t);
      const pending = store.write(eventId(1), () => sampleRecord(1));
      assert.equal(store.get(eventId(1)), undefined);
      assert.equal(store.list({ limit: 10, page: 1 }).total, 0);
      const stored = await pending;
      assert.equal(store.get(eventId(1)), stored);
      await store.close();
    });

    it('write() refuses a delete of an event that does not exist', async (t) => {
      const store = await open(t);
      await assert.rejects(store.write(eventId(9), () => null), TypeError);
      await store.close();
    });

    it('write() refuses a record that replay could not read back, and queues nothing', async (t) => {
      const store = await open(t);
      const unreadable = [
        sampleRecord(1, { start_time: '2026-09-01T17:00:00Z' }),
        sampleRecord(1, { start_time: '2023-02-29T17:00:00.000Z' }),
        sampleRecord(1, { id: 'evt_short' }),
        sampleRecord(1, { category: 'music' as 'social' }),
        sampleRecord(1, { created_at: 'today' }),
      ];
      for (const record of unreadable) await assert.rejects(store.write(record.id, () => record), /the store cannot log event/);
      assert.equal(store.size, 0);
      assert.equal(store.writable, true);
      await store.close();
    });

    it('close() waits for queued writes, and later writes get 503 unavailable', async (t) => {
      const store = await open(t);
      const writes = [1, 2, 3].map((n) => store.write(eventId(n), () => sampleRecord(n)));
      await store.close();
      assert.equal(store.size, 3);
      for (const write of writes) assert.ok((await write) !== null);
      await assert.rejects(store.write(eventId(4), () => sampleRecord(4)), (error) => error instanceof StoreUnavailable);
    });

    it('list() pages through many concurrent creates in (start, id) order', async (t) => {
      const store = await open(t);
      const hours = [5, 3, 3, 9, 1, 3, 7];
      await Promise.all(
        hours.map((hour, n) => store.write(eventId(100 - n), () => sampleRecord(100 - n, { start_time: `2026-09-01T0${hour}:00:00.000Z`, end_time: '2026-09-01T10:00:00.000Z' }))),
      );
      const ids = (page: number) => store.list({ limit: 3, page }).events.map((event) => `${event.startMs / 3_600_000 % 24}:${event.id.slice(-3)}`);
      assert.deepEqual([...ids(1), ...ids(2), ...ids(3)], ['1:096', '3:095', '3:098', '3:099', '5:100', '7:094', '9:097']);
      assert.deepEqual(ids(4), []);
      await store.close();
    });

    it('a draft is got but listed and fed to no one; published, it is a change-feed creation; made pending again, a deletion whose state says when (API.md §14)', async (t) => {
      const store = await open(t);
      await store.write(eventId(1), () => sampleRecord(1));
      const draft = (await store.write(eventId(2), () => sampleRecord(2, { status: 'draft' })))!;
      assert.equal(store.get(eventId(2)), draft);
      assert.equal(draft.status, 'draft');
      assert.deepEqual(store.list({ limit: 10, page: 1 }).events.map((event) => event.id), [eventId(1)]);
      assert.equal(store.list({ limit: 10, page: 1, statuses: ['draft'] }).total, 1);
      assert.deepEqual(store.changes.after(0, 10).changes.map((change) => change.id), [eventId(1)]);
      const since = store.changes.lastSeq;
      const published = (await store.write(eventId(2), () => sampleRecord(2)))!;
      assert.deepEqual(store.changes.after(since, 10).changes.map((change) => [change.id, change.event === null]), [[eventId(2), false]]);
      const hidden = (await store.write(eventId(2), () => sampleRecord(2, { status: 'pending' })))!;
      assert.equal(hidden.hiddenAt, hidden.seq, 'it left public view with this write');
      assert.ok(hidden.seq > published.seq);
      assert.deepEqual(store.changes.after(since, 10).changes.map((change) => [change.id, change.event === null]), [[eventId(2), true]]);
      const edited = (await store.write(eventId(2), () => sampleRecord(2, { status: 'pending', title: 'Edited while pending' })))!;
      assert.equal(edited.hiddenAt, hidden.seq, 'and keeps saying so');
      assert.deepEqual(store.changes.after(hidden.seq, 10).changes, [], 'its changes while hidden are nobody else\'s');
      assert.equal(store.list({ limit: 10, page: 1 }).total, 1);
      await store.close();
    });
  });
}
