// loadCheckpoint() through a whole app on a real PostgreSQL: an instance started from the newest checkpoint and the rows
// after it answers exactly as one that replayed every write (seeded random histories; CHECKPOINT_SEED=n replays).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openApp, type App } from '../../../src/app.js';
import { skip, usePostgres } from '../../helpers/postgres-fixture.js';
import { mulberry32 } from '../../helpers/random.js';
import { call, type TestResponse } from '../../helpers/harness.js';
import type { PostgresStore } from '../../../src/store/postgres/postgres-store.js';

const pg = usePostgres();
const SEED = Number(process.env['CHECKPOINT_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const START = Date.parse('2031-01-10T09:00:00Z');

/** Random bytes from a seed: two apps given the same make the same ids and keys. */
function seededBytes(seed: number): (size: number) => Uint8Array {
  const random = mulberry32(seed);
  return (size) => Uint8Array.from({ length: size }, () => Math.floor(random() * 256));
}

/** An app on `url` whose ids, keys and clock come from `seed` and `clock`. */
function appOn(url: string, seed: number, clock: { now: number }, compactMinBytes: number): Promise<App> {
  return openApp({ store: url, console: false, rateLimit: 1_000_000, now: () => clock.now, randomBytes: seededBytes(seed), compactMinBytes }, {});
}

/** Every page of a GET that pages with `page` (events, series), as text. */
async function allPages(app: App, key: string, path: string): Promise<string[]> {
  const pages: string[] = [];
  for (let page = 1; ; page++) {
    const answer = await call(app, 'GET', `${path}${path.includes('?') ? '&' : '?'}limit=100&page=${page}`, { key });
    assert.equal(answer.status, 200, `${path} page ${page}: ${answer.text}`);
    pages.push(answer.text!);
    if ((answer.json.events ?? answer.json.series ?? []).length < 100) return pages;
  }
}

/** A full copy through /changes, every page as text. */
async function fullCopy(app: App, key: string): Promise<string[]> {
  const pages: string[] = [];
  let target = '/changes?since=0&limit=7';
  for (;;) {
    const answer = await call(app, 'GET', target, { key });
    assert.equal(answer.status, 200, `${target}: ${answer.text}`);
    pages.push(answer.text!);
    if (!answer.json.more) return pages;
    target = `/changes?since=${answer.json.next_since}&limit=7&copy=${answer.json.copy}`;
  }
}

/** Everything both apps answer from memory, as text: events, each one's registrations, series, a full copy of the change feed. */
async function everything(app: App, key: string): Promise<Record<string, string[]>> {
  const events = await allPages(app, key, '/events');
  const ids = events.flatMap((page) => (JSON.parse(page) as { events: { id: string }[] }).events.map((event) => event.id));
  const each: string[] = [];
  for (const id of ids) {
    each.push((await call(app, 'GET', `/events/${id}`, { key })).text!);
    each.push((await call(app, 'GET', `/events/${id}/registrations?limit=100`, { key })).text!);
  }
  return { events, each, series: await allPages(app, key, '/series'), changes: await fullCopy(app, key) };
}

/**
 * `steps` random requests sent to every app alike (creates, renames, capacity changes, deletions, registrations with
 * and without Idempotency-Key, cancellations, check-ins, series created, changed and deleted), the clock moving on.
 * Every app must answer each alike: they are one campus written twice.
 */
async function randomHistory(random: () => number, apps: App[], key: string, clock: { now: number }, steps: number): Promise<{ idem: { path: string; body: unknown; key: string }[] }> {
  const pick = <T>(items: readonly T[]): T | undefined => items[Math.floor(random() * items.length)];
  const events: string[] = [];
  const series: string[] = [];
  const registrations: [string, string][] = [];
  const idem: { path: string; body: unknown; key: string }[] = [];
  const send = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<TestResponse> => {
    const answers = [];
    for (const app of apps) answers.push(await call(app, method, path, { key, body, headers }));
    for (const answer of answers.slice(1)) assert.deepEqual([answer.status, answer.text], [answers[0]!.status, answers[0]!.text], `seed ${SEED}: ${method} ${path}`);
    return answers[0]!;
  };
  for (let n = 0; n < steps; n++) {
    clock.now += Math.floor(random() * 20 * 60_000);
    const roll = random();
    const event = pick(events);
    const day = String(1 + (n % 28)).padStart(2, '0');
    if (event === undefined || roll < 0.15) {
      const created = await send('POST', '/events', { title: `Event ${n}`, category: 'social', location: 'Quad', start_time: `2031-05-${day}T10:00:00Z`, end_time: `2031-05-${day}T12:00:00Z`, capacity: 1 + Math.floor(random() * 3) });
      if (created.status === 201) events.push(created.json.id);
    } else if (roll < 0.45) {
      const body = { name: `P${n}`, email: `p${n}@campus.edu` };
      const idemKey = random() < 0.4 ? `key-${n}` : undefined;
      const made = await send('POST', `/events/${event}/registrations`, body, idemKey === undefined ? {} : { 'Idempotency-Key': idemKey });
      if (made.status === 201) registrations.push([event, made.json.id]);
      if (made.status === 201 && idemKey !== undefined) idem.push({ path: `/events/${event}/registrations`, body, key: idemKey });
    } else if (roll < 0.55 && registrations.length > 0) {
      const [onEvent, id] = registrations.splice(Math.floor(random() * registrations.length), 1)[0]!;
      await send('DELETE', `/events/${onEvent}/registrations/${id}`);
    } else if (roll < 0.62 && registrations.length > 0) {
      const [onEvent, id] = pick(registrations)!;
      await send('POST', `/events/${onEvent}/registrations/${id}/check-in`);
    } else if (roll < 0.8) {
      await send('PUT', `/events/${event}`, random() < 0.5 ? { capacity: 1 + Math.floor(random() * 4) } : { title: `Renamed ${n}` });
    } else if (roll < 0.88) {
      await send('DELETE', `/events/${event}`);
      events.splice(events.indexOf(event), 1);
    } else if (roll < 0.95 || series.length === 0) {
      const made = await send('POST', '/series', { title: `Series ${n}`, category: 'academic', location: 'Hall', capacity: 5, recurrence: 'FREQ=WEEKLY;COUNT=3', start_time: '2031-03-04T10:00:00Z', end_time: '2031-03-04T12:00:00Z' });
      if (made.status === 201) series.push(made.json.id);
    } else {
      const one = pick(series)!;
      if (random() < 0.5) await send('PUT', `/series/${one}`, { title: `Series renamed ${n}` });
      else {
        await send('DELETE', `/series/${one}`);
        series.splice(series.indexOf(one), 1);
      }
    }
  }
  return { idem };
}

describe('an instance started from a checkpoint', { skip, timeout: 180_000 }, () => {
  it(`answers exactly as one that replayed every write: events, registrations, series, remembered answers, a full copy of /changes (CHECKPOINT_SEED=${SEED})`, async () => {
    const random = mulberry32(SEED);
    const clock = { now: START };
    const [checkpointed, replayed] = [await pg.database('from_checkpoint'), await pg.database('replayed')];
    // Checkpoints come by themselves on the first database; never on the second.
    let apps = [await appOn(checkpointed, SEED, clock, 8_000), await appOn(replayed, SEED, clock, Number.MAX_SAFE_INTEGER)];
    const key = apps[0]!.initialAdminKey!;
    assert.equal(apps[1]!.initialAdminKey, key, 'the same seed makes the same key');
    let idem: { path: string; body: unknown; key: string }[] = [];
    let replays = 0;
    try {
      for (let round = 0; round < 3; round++) {
        idem = (await randomHistory(random, apps, key, clock, 60)).idem;
        // Written in the background after writes once due; one more now (or joined, if one runs), then both restarted.
        await (apps[0]!.store as PostgresStore).checkpoint();
        await Promise.all(apps.map((app) => app.close()));
        apps = [await appOn(checkpointed, SEED + round + 1, clock, 8_000), await appOn(replayed, SEED + round + 1, clock, Number.MAX_SAFE_INTEGER)];
        const [fromCheckpoint, fromReplay] = apps.map((app) => app.store as PostgresStore);
        const where = `seed ${SEED}, round ${round}`;
        assert.ok(fromCheckpoint!.checkpointSeen.seq > 0, `${where}: a checkpoint was written`);
        assert.equal(fromReplay!.checkpointSeen.seq, 0, `${where}: the other database has none`);
        assert.deepEqual(await everything(apps[0]!, key), await everything(apps[1]!, key), where);
        assert.equal(fromCheckpoint!.lastSeq, fromReplay!.lastSeq, `${where}: the last seq`);
        // A retry of a registration made under an Idempotency-Key within 24 hours is answered from memory (while its
        // event lives), alike on both.
        for (const retry of idem) {
          const answers = [];
          for (const app of apps) answers.push(await call(app, 'POST', retry.path, { key, body: retry.body, headers: { 'Idempotency-Key': retry.key } }));
          const seen = answers.map((answer) => [answer.status, answer.headers['Idempotent-Replayed'], answer.text]);
          assert.deepEqual(seen[0], seen[1], `${where}: a retry of ${retry.key}`);
          if (answers[0]!.headers['Idempotent-Replayed'] === 'true') replays++;
        }
        // The deletions the checkpoint forgot: before the newest, a 410 (start again from since=0); the other never forgot them.
        const horizon = fromCheckpoint!.changes.horizon;
        if (horizon > 1) {
          assert.equal((await call(apps[0]!, 'GET', `/changes?since=${horizon - 1}`, { key })).status, 410, where);
          assert.equal((await call(apps[1]!, 'GET', `/changes?since=${horizon - 1}`, { key })).status, 200, where);
        }
        const after = (await call(apps[1]!, 'GET', `/changes?since=${horizon}&limit=1000`, { key })).text;
        assert.equal((await call(apps[0]!, 'GET', `/changes?since=${horizon}&limit=1000`, { key })).text, after, `${where}: from the horizon on, the same entries`);
      }
      assert.ok(replays > 0, `seed ${SEED}: some retries were answered from memory`);
    } finally {
      await Promise.all(apps.map((app) => app.close()));
    }
  });
});
