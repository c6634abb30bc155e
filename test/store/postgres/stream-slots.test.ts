// The change streams' caps over every instance on one database (API.md §9.2 with §12): 8 per key and 1000 in all
// count the streams of all instances, a slot freed on one is free on the others, and a dead instance's lapse.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChangeStreams } from '../../../src/feeds/change-stream.js';
import { ApiError } from '../../../src/http/errors.js';
import { connect, type Database } from '../../../src/store/postgres/client.js';
import { migrateSchema } from '../../../src/store/postgres/schema.js';
import { STREAMS_LOCK, StreamSlotTable } from '../../../src/store/postgres/stream-slots.js';
import { skip, usePostgres } from '../../helpers/postgres-fixture.js';
import { startInstances } from '../../helpers/instances.js';
import { waitFor } from '../../helpers/spawn.js';
import { changeFeed, FakeTimers } from '../../feeds/stream-support.js';

const postgres = usePostgres();

async function refusedWith(opening: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(opening, (error: unknown) => {
    assert.ok(error instanceof ApiError, String(error));
    assert.equal(error.code, 'rate_limited');
    assert.match(error.message, pattern);
    return true;
  });
}

/** Two instances' ChangeStreams (3 streams per key, 5 in all) on one database, each with its own connections. */
async function twoInstances(name: string): Promise<{ a: ChangeStreams; b: ChangeStreams; dbA: Database; dbB: Database; timersA: FakeTimers; timersB: FakeTimers; url: string }> {
  const url = await postgres.database(name);
  const [dbA, dbB] = [await connect(url), await connect(url)];
  await migrateSchema(dbA);
  const { source } = changeFeed();
  const [timersA, timersB] = [new FakeTimers(), new FakeTimers()];
  const instance = (db: Database, timers = new FakeTimers()): ChangeStreams => new ChangeStreams({ source, isKeyLive: () => true, timers, perKey: 3, total: 5, shared: new StreamSlotTable(db), publishMs: 3_000 });
  return { a: instance(dbA, timersA), b: instance(dbB, timersB), dbA, dbB, timersA, timersB, url };
}

const admitted = (settled: PromiseSettledResult<unknown>[]): number => settled.filter((each) => each.status === 'fulfilled').length;

describe('ChangeStreams of two instances sharing one StreamSlotTable database', { skip, timeout: 30_000 }, () => {
  it('counts both instances\' streams against the per-key and total caps, and frees a slot on both once a stream ends', async () => {
    const { a, b, dbA, dbB } = await twoInstances('stream_slots_model');
    try {
      const onA = [await a.open('key_1', 0), await a.open('key_1', 0)];
      await b.open('key_1', 0);
      await refusedWith(b.open('key_1', 0), /already has 3 open change streams over all instances/);
      await refusedWith(a.open('key_1', 0), /already has 3 open change streams over all instances/);
      assert.equal(a.size + b.size, 3, 'a refused stream holds no slot');
      await b.open('key_2', 0);
      await a.open('key_2', 0);
      await refusedWith(b.open('key_3', 0), /instances already hold 5 open change streams/);
      // One ends on A: B may open one at once (A wrote its count when the stream ended).
      onA[0]!.cancel();
      const opened = await waitFor(async () => {
        try {
          await b.open('key_1', 0);
          return true;
        } catch {
          return false;
        }
      }, 5_000);
      assert.ok(opened, 'B opened the slot A freed');
      assert.equal(b.size, 3);
      // Full again (A 2, B 3). A stops: its streams are free for B at once.
      await refusedWith(b.open('key_3', 0), /instances already hold 5/);
      await a.closeAll();
      await b.open('key_3', 0);
      await b.open('key_3', 0);
      assert.equal(b.size, 5);
      await b.closeAll();
    } finally {
      await dbA.end();
      await dbB.end();
    }
  });

  it('leaves out the streams of an instance whose counts lapsed (killed: no longer written), but not those still written', async () => {
    const url = await postgres.database('stream_slots_lapse');
    const db = await connect(url);
    try {
      await migrateSchema(db);
      await db.query("INSERT INTO campus_streams (instance, key_id, open, until) VALUES ('run_dead', 'key_1', 3, clock_timestamp() - interval '1 second')");
      const { source } = changeFeed();
      const streams = new ChangeStreams({ source, isKeyLive: () => true, timers: new FakeTimers(), perKey: 3, total: 5, shared: new StreamSlotTable(db) });
      for (let n = 0; n < 3; n++) await streams.open('key_1', 0);
      await db.query("INSERT INTO campus_streams (instance, key_id, open, until) VALUES ('run_alive', 'key_2', 2, clock_timestamp() + interval '10 seconds')");
      await refusedWith(streams.open('key_2', 0), /instances already hold 5/);
      await streams.closeAll();
      const left = await db.query<{ instance: string }>('SELECT instance FROM campus_streams ORDER BY instance');
      assert.deepEqual(left.map((row) => row.instance), ['run_alive'], 'the lapsed row was cleared, and a stopped instance removed its own');
    } finally {
      await db.end();
    }
  });
});

describe('opens that come together on both instances', { skip, timeout: 30_000 }, () => {
  it('admit exactly what the caps leave, for one key and in all, whatever order their claims commit in', async () => {
    const { a, b, dbA, dbB } = await twoInstances('stream_slots_burst');
    try {
      assert.equal(admitted(await Promise.allSettled(Array.from({ length: 12 }, (_, n) => (n % 2 === 0 ? a : b).open('key_1', 0)))), 3);
      assert.equal(a.size + b.size, 3, 'a refused stream holds no slot');
      assert.equal(admitted(await Promise.allSettled(Array.from({ length: 12 }, (_, n) => (n % 2 === 0 ? a : b).open(`key_${2 + (n % 6)}`, 0)))), 2);
      assert.equal(a.size + b.size, 5);
      await a.closeAll();
      await b.closeAll();
    } finally {
      await dbA.end();
      await dbB.end();
    }
  });
});

describe('an instance whose counts lapsed while it was paused', { skip, timeout: 30_000 }, () => {
  it('ends its newest streams past the caps once it writes its counts again, the others having admitted streams in their place', async () => {
    const { a, b, dbA, dbB, timersA } = await twoInstances('stream_slots_resumed');
    try {
      await a.open('key_1', 0);
      await a.open('key_1', 0);
      // A is paused past its counts' life: they lapse, and B admits the key's three.
      await dbA.query("UPDATE campus_streams SET until = clock_timestamp() - interval '1 second'");
      for (let n = 0; n < 3; n++) await b.open('key_1', 0);
      // A runs again: its next write of its counts finds them gone, and it ends what no longer fits.
      timersA.fire(3_000);
      assert.ok(await waitFor(async () => a.size === 0, 5_000), `A ended its two streams (${a.size} left)`);
      assert.equal(b.size, 3);
      await b.closeAll();
    } finally {
      await dbA.end();
      await dbB.end();
    }
  });
});

describe('streams admitted while the database was slow', { skip, timeout: 30_000 }, () => {
  it('past the caps once it answers again: the newest end when the counts are next written, down to the cap', async () => {
    const { a, b, dbA, dbB, timersB, url } = await twoInstances('stream_slots_slow');
    const holder = await connect(url);
    try {
      // B's counts are written (one of key_1), and it last heard that A held none.
      await b.open('key_1', 0);
      await a.open('key_1', 0);
      await a.open('key_1', 0);
      // Claims wait past their 2 s for a lock held elsewhere: B decides by what it last heard, and admits two more.
      await holder.query(`SELECT pg_advisory_lock(${STREAMS_LOCK})`);
      await Promise.all([b.open('key_1', 0), b.open('key_1', 0)]);
      assert.equal(a.size + b.size, 5, 'past the cap of 3 while the database could not say');
      await holder.query(`SELECT pg_advisory_unlock(${STREAMS_LOCK})`);
      timersB.fire(3_000);
      assert.ok(await waitFor(async () => b.size === 1, 5_000), `B ended its two newest (${b.size} left)`);
      assert.equal(a.size, 2);
      await a.closeAll();
      await b.closeAll();
    } finally {
      await holder.end();
      await dbA.end();
      await dbB.end();
    }
  });
});

describe('an instance whose database does not answer', { skip, timeout: 30_000 }, () => {
  it('counts the other instances\' streams as it last heard of them, with its own', async () => {
    const { a, b, dbA, dbB } = await twoInstances('stream_slots_away');
    try {
      await a.open('key_1', 0);
      await a.open('key_1', 0);
      await b.open('key_1', 0);
      // B's connection to the database goes: it still knows A holds two of key_1's three.
      await dbB.end();
      await refusedWith(b.open('key_1', 0), /already has 3 open change streams over all instances/);
      await b.open('key_2', 0);
      await b.open('key_3', 0);
      await refusedWith(b.open('key_4', 0), /instances already hold 5/);
      await a.closeAll();
      await b.closeAll();
    } finally {
      await dbA.end();
    }
  });
});

describe('what an instance remembers of the others, and streams that end while their claim is under way', { skip, timeout: 30_000 }, () => {
  it('a key the others no longer hold counts 0 once the database is away, not what they held before', async () => {
    const { a, b, dbA, dbB } = await twoInstances('stream_slots_forget');
    try {
      const onA = [await a.open('key_1', 0), await a.open('key_1', 0)];
      await b.open('key_1', 0);
      for (const stream of onA) stream.cancel();
      await a.closeAll();
      // B's next claim of the key hears that A holds none of it now.
      await b.open('key_1', 0);
      await dbB.end();
      await b.open('key_1', 0);
      assert.equal(b.size, 3, 'three of key_1, the cap, all on B');
      await b.closeAll();
    } finally {
      await dbA.end();
    }
  });

  it('a stream ended while its claim waits for the lock is not admitted when the claim returns, and is not counted', async () => {
    const { a, b, dbA, dbB, url } = await twoInstances('stream_slots_ended');
    const holder = await connect(url);
    try {
      await holder.query(`SELECT pg_advisory_lock(${STREAMS_LOCK})`);
      const opening = b.open('key_1', 0);
      opening.catch(() => undefined);
      // The claim is waiting for the lock: B stops, ending the stream mid-claim.
      const waiting = async (): Promise<boolean> => (await holder.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"))[0]!.n > 0;
      assert.ok(await waitFor(waiting, 5_000), 'the claim waits for the lock');
      const closing = b.closeAll();
      await holder.query(`SELECT pg_advisory_unlock(${STREAMS_LOCK})`);
      await closing;
      await assert.rejects(opening, (error: unknown) => error instanceof ApiError && error.code === 'unavailable');
      assert.equal(b.size, 0);
      const rows = await holder.query<{ open: number }>('SELECT open FROM campus_streams');
      assert.deepEqual(rows, [], 'B counts no stream of its own on the other instances');
      // And A may open the key's three.
      for (let n = 0; n < 3; n++) await a.open('key_1', 0);
      await a.closeAll();
    } finally {
      await holder.end();
      await dbA.end();
      await dbB.end();
    }
  });
});

describe('two instances over HTTP', { skip, timeout: 60_000 }, () => {
  it('the 9th open stream of one key is a 429 whichever instance holds the other 8, and one closed on either lets one more open', async () => {
    const two = await startInstances(await postgres.database('stream_slots_http'), 2);
    const controllers: AbortController[] = [];
    // The open answers are kept: fetch cancels the body of an answer collected unread, which would close its stream.
    const open: Response[] = [];
    const openOn = async (i: number): Promise<number> => {
      const controller = new AbortController();
      const answer = await fetch(`${two.servers[i]!.url}/changes?since=0`, { headers: { authorization: `Bearer ${two.adminKey}`, accept: 'text/event-stream' }, signal: controller.signal });
      if (answer.status === 200) {
        controllers.push(controller);
        open.push(answer);
      } else await answer.text();
      return answer.status;
    };
    try {
      const statuses = [];
      for (let n = 0; n < 5; n++) statuses.push(await openOn(0));
      for (let n = 0; n < 3; n++) statuses.push(await openOn(1));
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 200, 200]);
      assert.equal(await openOn(1), 429, 'the 9th, on the instance holding 3');
      assert.equal(await openOn(0), 429, 'the 9th, on the instance holding 5');
      controllers.shift()!.abort();
      assert.ok(await waitFor(async () => (await openOn(1)) === 200, 5_000), 'a stream closed on the first instance lets one open on the second');
    } finally {
      for (const controller of controllers) controller.abort();
      await two.stop();
    }
  });
});
