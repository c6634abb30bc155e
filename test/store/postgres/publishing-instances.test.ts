// The visibility walk of API.md §14 across two instances on one PostgreSQL database (§12): drafts and pending events made
// on one are in no read, list, search, calendar, change feed or webhook of the other, for anyone but their organizer and
// admins; an approval on the other makes them appear everywhere as a creation, a return to pending as a deletion, and a
// restarted instance (reading the log from its start) keeps all of it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { skip, usePostgres } from '../../helpers/postgres-fixture.js';
import { startInstances, type Instances } from '../../helpers/instances.js';
import { runCli } from '../../helpers/spawn.js';
import { eventually, startReceiver, type Receiver } from '../../webhooks/support.js';
import { connect } from '../../../src/store/postgres/client.js';

const pg = usePostgres();
const SECRET = ['Zephyrine', 'Quokkaly', 'Marmotine'];

/** A valid event a year ahead, with `overrides`. */
function event(overrides: Record<string, unknown>): Record<string, unknown> {
  return { title: 'Public talk', category: 'academic', location: 'Hall', start_time: '2031-05-04T10:00:00Z', end_time: '2031-05-04T12:00:00Z', capacity: 10, ...overrides };
}

describe('publishing across two instances', { skip, timeout: 180_000 }, () => {
  let two: Instances;
  let receiver: Receiver;
  const key: Record<'organizer' | 'other' | 'reader' | 'feed', string> = { organizer: '', other: '', reader: '', feed: '' };
  let draft: string;
  let pending: string;
  let series: string;

  /** A request to instance `i` with `who`'s key. */
  async function as(who: string, i: number, method: string, path: string, body?: unknown): Promise<{ status: number; text: string; json: any }> {
    const answer = await fetch(`${two.servers[i]!.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${who}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await answer.text();
    return { status: answer.status, text, json: answer.headers.get('content-type')?.startsWith('application/json') === true && text !== '' ? JSON.parse(text) : undefined };
  }

  /** Polls instance `i` until `check` holds of the answer (a write on the other is visible within 1 s). */
  async function until(who: string, i: number, path: string, check: (answer: { status: number; text: string; json: any }) => boolean): Promise<{ status: number; text: string; json: any }> {
    for (let tries = 0; ; tries++) {
      const answer = await as(who, i, 'GET', path);
      if (check(answer)) return answer;
      if (tries > 200) assert.fail(`instance ${i} never answered ${path} as expected: ${answer.status} ${answer.text.slice(0, 300)}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  function assertHiddenAbsent(text: string, where: string): void {
    for (const id of [draft, pending, series]) assert.ok(!text.includes(id), `${where} shows ${id}`);
    for (const word of SECRET) assert.ok(!text.toLowerCase().includes(word.toLowerCase()), `${where} shows ${word}`);
  }

  before(async () => {
    const url = await pg.database('publishing');
    two = await startInstances(url, 2, ['--approval', 'required', '--webhook-hosts', '127.0.0.1']);
    for (const [label, role] of [['organizer', 'organizer'], ['other', 'organizer'], ['reader', 'reader'], ['feed', 'feed']] as const) {
      const made = runCli(['keys', 'create', '--name', label, '--email', `${label}@campus.edu`, '--role', role, '--store', url]);
      assert.equal(made.status, 0, made.stderr);
      key[label] = made.stdout.trim();
    }
    for (const who of Object.values(key)) for (const i of [0, 1]) await until(who, i, '/me', (answer) => answer.status === 200);
    receiver = await startReceiver();
    const webhook = (await two.call(0, 'POST', '/webhooks', { url: receiver.url })).json() as Promise<{ secret: string }>;
    receiver.secret = (await webhook).secret;
    for (let n = 0; n < 3; n++) assert.equal((await two.call(0, 'POST', '/events', event({ title: `Public talk ${n}` }))).status, 201);
    draft = (await as(key.organizer, 0, 'POST', '/events', event({ title: `${SECRET[0]} rehearsal`, status: 'draft' }))).json.id;
    pending = (await as(key.organizer, 0, 'POST', '/events', event({ title: `${SECRET[1]} concert` }))).json.id;
    const made = await as(key.organizer, 0, 'POST', '/series', { ...event({ title: `${SECRET[2]} club`, status: 'draft' }), recurrence: 'FREQ=WEEKLY;COUNT=3' });
    assert.equal(made.status, 201, made.text);
    series = made.json.id;
    assert.equal((await two.call(0, 'POST', '/events', event({ title: 'Marker' }))).status, 201);
    await eventually('the marker on the receiver', () => receiver.unique().some((entry) => (entry.message?.data as { title?: string } | undefined)?.title === 'Marker'));
    await until(key.reader, 1, '/events?q=marker', (answer) => answer.json?.total === 1);
  });
  after(async () => {
    await receiver?.close();
    await two?.stop();
  });

  it('on the other instance, a reader, a feed key and another organizer meet them nowhere', async () => {
    for (const who of [key.reader, key.other]) {
      for (const id of [draft, pending]) {
        assert.equal((await as(who, 1, 'GET', `/events/${id}`)).status, 404);
        assert.equal((await as(who, 1, 'POST', `/events/${id}/registrations`, { name: 'R', email: 'r@campus.edu' })).status, 404);
      }
      assert.equal((await as(who, 1, 'GET', `/series/${series}`)).status, 404);
      for (const path of ['/events?limit=100', `/events?q=${SECRET[0]}`, `/events?q=${SECRET[1]}`, '/events?status=published,cancelled', `/events?series_id=${series}`, '/series', '/events.ics', '/changes?since=0&limit=1000']) {
        const answer = await as(who, 1, 'GET', path);
        assert.equal(answer.status, 200, `${path}: ${answer.text}`);
        if (!path.includes('q=') && !path.includes('series_id')) assertHiddenAbsent(answer.text, `GET ${path} on instance 1`);
        else assert.equal(answer.json.total, 0, path);
      }
      assert.equal((await as(who, 1, 'GET', '/events')).json.total, 4, 'the public count');
    }
    assert.equal((await as(key.reader, 1, 'GET', '/events?status=pending')).status, 403);
    assert.equal((await as(key.other, 1, 'GET', '/events?status=draft,pending')).json.total, 0);
    assertHiddenAbsent((await as(key.feed, 1, 'GET', '/events.ics')).text, 'the feed key\'s calendar');
    for (const entry of receiver.unique()) assertHiddenAbsent(entry.body, `webhook ${entry.message?.type}`);
  });

  it('their organizer and an admin see them on the other instance where §14 says: reads and the queue, not the default list', async () => {
    assert.equal((await as(key.organizer, 1, 'GET', `/events/${draft}`)).json.status, 'draft');
    assert.equal((await as(key.organizer, 1, 'GET', `/series/${series}`)).json.status, 'draft');
    assert.deepEqual((await two.call(1, 'GET', '/events?status=pending').then((answer) => answer.json() as Promise<{ events: { id: string }[] }>)).events.map((e) => e.id), [pending]);
    assert.equal((await as(key.organizer, 1, 'GET', '/events?status=draft,pending&limit=100')).json.total, 5);
    assertHiddenAbsent((await as(key.organizer, 1, 'GET', '/events?limit=100')).text, "the organizer's default list");
  });

  it('approved on one instance: a creation on both change feeds and event.created; pending again: a deletion, kept by a restarted instance', async () => {
    const mark = ((await two.call(0, 'GET', '/changes?since=0&limit=1000').then((answer) => answer.json())) as { next_since: number }).next_since;
    assert.equal((await two.call(1, 'POST', `/events/${pending}/approve`)).status, 200);
    for (const i of [0, 1]) {
      const answer = await until(key.reader, i, `/changes?since=${mark}`, (page) => page.json?.changes.length === 1);
      assert.deepEqual(answer.json.changes.map((entry: { id: string; deleted: boolean }) => [entry.id, entry.deleted]), [[pending, false]]);
    }
    await eventually('event.created of the approved event', () => receiver.unique().some((entry) => entry.message?.type === 'event.created' && (entry.message.data as { id?: string }).id === pending));
    assert.equal((await as(key.organizer, 0, 'PUT', `/events/${pending}`, { status: 'cancelled', cancellation_reason: 'Flood' })).json.status, 'cancelled');
    const calendar = await until(key.feed, 1, `/events.ics?q=${SECRET[1]}`, (answer) => answer.text.includes('STATUS:CANCELLED'));
    assert.ok(calendar.text.includes(`UID:${pending}@campus-events`));
    assert.equal((await as(key.organizer, 1, 'PUT', `/events/${pending}`, { status: 'published' })).json.status, 'pending');
    for (const i of [0, 1]) {
      const answer = await until(key.reader, i, `/changes?since=${mark}`, (page) => page.json?.changes[0]?.deleted === true);
      assert.deepEqual(answer.json.changes, [{ seq: answer.json.changes[0].seq, id: pending, deleted: true, event: null }]);
    }
    await eventually('event.deleted', () => receiver.unique().some((entry) => entry.message?.type === 'event.deleted' && (entry.message.data as { id?: string }).id === pending));
    await two.killAndRestart(1);
    const replayed = await until(key.reader, 1, `/changes?since=${mark}`, (page) => page.status === 200);
    assert.deepEqual(replayed.json.changes.map((entry: { id: string; deleted: boolean }) => [entry.id, entry.deleted]), [[pending, true]], 'the restarted instance keeps the tombstone');
    assert.equal((await as(key.reader, 1, 'GET', `/events/${pending}`)).status, 404);
    assert.equal((await as(key.organizer, 1, 'GET', `/events/${pending}`)).json.status, 'pending');
    assert.equal((await as(key.organizer, 1, 'GET', `/events/${draft}`)).json.status, 'draft');
    assertHiddenAbsent((await as(key.reader, 1, 'GET', '/changes?since=0&limit=1000')).text, 'a full copy from the restarted instance');
  });

  it('a webhook deleted, or paused, on the instance that does not deliver it is sent nothing of a write made after the answer', async () => {
    const deleted = await startReceiver();
    const paused = await startReceiver();
    const idOf = (entry: { message?: { data?: unknown } }): string | undefined => (entry.message?.data as { id?: string } | undefined)?.id;
    try {
      // Both made on instance 0, which then delivers them (its insert leases them).
      const made = await Promise.all([deleted, paused].map(async (to) => (await (await two.call(0, 'POST', '/webhooks', { url: to.url })).json()) as { id: string }));
      const first = (await (await two.call(0, 'POST', '/events', event({ title: 'Before the change' }))).json()) as { id: string };
      for (const to of [deleted, paused]) await eventually('the first event', () => to.unique().some((entry) => idOf(entry) === first.id));
      assert.equal((await two.call(1, 'DELETE', `/webhooks/${made[0]!.id}`)).status, 204);
      assert.equal((await two.call(1, 'PUT', `/webhooks/${made[1]!.id}`, { status: 'paused' })).status, 200);
      const later: string[] = [];
      for (let n = 0; n < 20; n++) later.push(((await (await two.call(n % 2, 'POST', '/events', event({ title: `After the change ${n}` }))).json()) as { id: string }).id);
      // The webhook left alone has had the last of them: delivery is past every one.
      await eventually('the last event on the webhook left alone', () => receiver.unique().some((entry) => idOf(entry) === later.at(-1)));
      for (const [name, to] of [['deleted', deleted], ['paused', paused]] as const) {
        assert.deepEqual(to.unique().filter((entry) => later.includes(idOf(entry) ?? '')).map((entry) => entry.message?.type), [], `the ${name} webhook`);
      }
    } finally {
      await deleted.close();
      await paused.close();
    }
  });
});

describe('a draft once public across a PostgreSQL checkpoint', { skip, timeout: 180_000 }, () => {
  it('keeps its tombstone for followers on an instance started from the checkpoint, with no 410, and stays hidden', async () => {
    const url = await pg.database('publishing_checkpoint');
    const two = await startInstances(url, 2, ['--compact-min-bytes', '20000', '--approval', 'required']);
    const db = await connect(url);
    try {
      const made = runCli(['keys', 'create', '--name', 'Olivia', '--email', 'olivia@campus.edu', '--role', 'organizer', '--store', url]);
      assert.equal(made.status, 0, made.stderr);
      const organizer = made.stdout.trim();
      const call = (i: number, key: string, method: string, path: string, body?: unknown): Promise<Response> =>
        fetch(`${two.servers[i]!.url}${path}`, { method, headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      for (let tries = 0; (await call(0, organizer, 'GET', '/me')).status !== 200; tries++) {
        assert.ok(tries < 200, 'the new key is honoured');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const created = (await (await two.call(0, 'POST', '/events', event({ title: 'Once public', organizer: { name: 'Olivia', email: 'olivia@campus.edu' } }))).json()) as { id: string };
      const mark = ((await (await two.call(0, 'GET', '/changes?since=0&limit=1000')).json()) as { next_since: number }).next_since;
      assert.equal(((await (await call(0, organizer, 'PUT', `/events/${created.id}`, { status: 'cancelled' })).json()) as { status: string }).status, 'cancelled');
      assert.equal(((await (await call(0, organizer, 'PUT', `/events/${created.id}`, { status: 'published' })).json()) as { status: string }).status, 'pending');
      // Churn until an instance checkpoints by itself (the log is due at 20 kB, mostly superseded): edits only, since a
      // deletion the checkpoint dropped would rightly make a follower from before it start over (410).
      let checkpoint = 0;
      for (let n = 0; checkpoint === 0; n++) {
        assert.ok(n < 500, 'a checkpoint came');
        const other = (await (await two.call(0, 'POST', '/events', event({ title: `Churn ${n}` }))).json()) as { id: string };
        for (let k = 0; k < 3; k++) assert.equal((await two.call(0, 'PUT', `/events/${other.id}`, { title: `Churn ${n}.${k}` })).status, 200);
        const [row] = await db.query<{ seq: number | null }>('SELECT max(seq)::float8 AS seq FROM campus_checkpoints');
        checkpoint = row?.seq ?? 0;
      }
      const [{ first }] = (await db.query<{ first: number }>('SELECT min(seq)::float8 AS first FROM campus_log')) as [{ first: number }];
      assert.ok(first > mark, 'the lines that made it public and hid it are gone from campus_log');
      await two.killAndRestart(1);
      for (const i of [0, 1]) {
        const answer = await two.call(i, 'GET', `/changes?since=${mark}&limit=1000`);
        assert.equal(answer.status, 200, `instance ${i}: no 410 for a follower since before it was hidden`);
        const entry = ((await answer.json()) as { changes: { id: string; deleted: boolean }[] }).changes.find((change) => change.id === created.id);
        assert.deepEqual(entry && [entry.id, entry.deleted], [created.id, true], `instance ${i} still says it is gone`);
        assert.equal((await two.call(i, 'GET', `/events/${created.id}`)).status, 200, 'an admin sees it');
        assert.equal(((await (await call(i, organizer, 'GET', `/events/${created.id}`)).json()) as { status: string }).status, 'pending');
      }
    } finally {
      await db.end();
      await two.stop();
    }
  });
});
