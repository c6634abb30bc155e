// The CLI and the server against PostgreSQL (API.md §12): keys with --store, migrate, backup both ways, a missing client, a newer schema.
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { connect } from '../src/store/postgres/client.js';
import { encodePut, encodeRegister, encodeRegistrationState } from '../src/store/records/encode-record.js';
import type { Registration } from '../src/store/views/roster.js';
import { eventId, sampleRecord } from './store/helpers.js';
import { tempDir } from './helpers/harness.js';
import { newEvent } from './helpers/instances.js';
import { skip, usePostgres } from './helpers/postgres-fixture.js';
import { ROOT, runCli, runServer, spawnServer, type SpawnedServer } from './helpers/spawn.js';

const pg = usePostgres();

function call(server: SpawnedServer, key: string, method: string, target: string, body?: unknown): Promise<Response> {
  return fetch(`${server.url}${target}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** The answers to a list of reads, without what differs by instance (request ids, dates of the answer). */
async function reads(server: SpawnedServer, key: string, eventIds: string[], seriesIds: string[] = []): Promise<unknown[]> {
  const targets = [
    '/events?limit=100',
    '/changes?since=0&limit=1000',
    '/me',
    '/series',
    ...eventIds.flatMap((id) => [`/events/${id}`, `/events/${id}/registrations?limit=100`]),
    ...seriesIds.flatMap((id) => [`/series/${id}`, `/events?series_id=${id}`]),
  ];
  return Promise.all(targets.map(async (target) => {
    const answer = await call(server, key, 'GET', target);
    return { target, status: answer.status, etag: answer.headers.get('etag'), body: await answer.json() };
  }));
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, what);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the CLI with --store postgres://', { skip, timeout: 120_000 }, () => {
  it('keys list, backup and verify on a database no instance has started on (a name mistyped) make no table there: no keys, a refused backup, an empty store', async () => {
    const url = await pg.database('cli_untouched');
    const { dir, remove } = tempDir();
    try {
      const listed = runCli(['keys', 'list', '--json', '--store', url]);
      assert.equal(listed.status, 0, listed.stderr);
      assert.deepEqual(JSON.parse(listed.stdout), []);
      const backup = runCli(['backup', '--out', path.join(dir, 'b.jsonl'), '--store', url]);
      assert.equal(backup.status, 1);
      assert.match(backup.stderr, /holds no campus-events tables \(no instance has started on it\): nothing to back up; check the database's name/);
      assert.equal(existsSync(path.join(dir, 'b.jsonl')), false);
      assert.equal(runCli(['verify', '--store', url]).status, 0);
      const db = await connect(url);
      try {
        assert.deepEqual(await db.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public'"), [], 'no table was made');
      } finally {
        await db.end();
      }
    } finally {
      remove();
    }
  });

  it('keys create, list and revoke in the database; a running server honours a new key and refuses a revoked one within 2 s', async () => {
    const url = await pg.database('keys');
    const created = runCli(['keys', 'create', '--name', 'Olivia', '--email', 'olivia@campus.edu', '--role', 'organizer', '--json', '--store', url]);
    assert.equal(created.status, 0, created.stderr);
    const key = JSON.parse(created.stdout) as { id: string; key: string; role: string };
    assert.equal(key.role, 'organizer');
    const server = await spawnServer(['--port', '0', '--store', url, '--console', 'off']);
    try {
      assert.equal((await call(server, key.key, 'GET', '/me')).status, 200);
      const late = runCli(['keys', 'create', '--name', 'Rita', '--email', 'rita@campus.edu', '--role', 'reader', '--store', url]);
      assert.equal(late.status, 0, late.stderr);
      const secret = late.stdout.trim();
      await until(async () => (await call(server, secret, 'GET', '/me')).status === 200, 'a key made by the CLI works within 2 s');
      const listed = JSON.parse(runCli(['keys', 'list', '--json'], { STORE: url }).stdout) as { id: string; key?: string }[];
      assert.equal(listed.length, 2, 'Olivia and Rita (keys existed, so the server made no first admin key)');
      assert.ok(listed.every((entry) => entry.key === undefined && !('hash' in entry)));
      assert.equal(runCli(['keys', 'revoke', key.id, '--store', url]).status, 0);
      await until(async () => (await call(server, key.key, 'GET', '/me')).status === 401, 'a revoked key is refused within 2 s');
      assert.equal(runCli(['keys', 'revoke', 'key_nosuchkey', '--store', url]).status, 1);
    } finally {
      await server.stop();
    }
  });

  it('migrate copies a data folder (events, series, registrations, keys) into an empty database: the same answers from both stores; backup brings it back', async () => {
    const { dir, remove } = tempDir();
    try {
      const fileServer = await spawnServer(['--port', '0', '--data-dir', dir, '--console', 'off']);
      const adminKey = /"key":"(cek_[A-Za-z0-9_-]+)"/.exec(fileServer.stderr())![1]!;
      const ids: string[] = [];
      const seriesIds: string[] = [];
      try {
        for (let n = 0; n < 4; n++) ids.push(((await (await call(fileServer, adminKey, 'POST', '/events', newEvent(n, 2))).json()) as { id: string }).id);
        for (let n = 0; n < 3; n++) assert.equal((await call(fileServer, adminKey, 'POST', `/events/${ids[0]}/registrations`, { name: `P${n}`, email: `p${n}@campus.edu` })).status, 201);
        assert.equal((await call(fileServer, adminKey, 'PUT', `/events/${ids[1]}`, { title: 'Renamed' })).status, 200);
        assert.equal((await call(fileServer, adminKey, 'DELETE', `/events/${ids[2]}`)).status, 204);
        // A series (one atomic group of lines) whose first occurrence is edited alone, another cancelled, one registered for.
        const series = await call(fileServer, adminKey, 'POST', '/series', { ...newEvent(9, 3), recurrence: 'FREQ=WEEKLY;COUNT=4', start_time: '2031-03-04T10:00:00Z', end_time: '2031-03-04T12:00:00Z' });
        assert.equal(series.status, 201, await series.clone().text());
        seriesIds.push(((await series.json()) as { id: string }).id);
        const occurrences = ((await (await call(fileServer, adminKey, 'GET', `/events?series_id=${seriesIds[0]}`)).json()) as { events: { id: string }[] }).events.map((event) => event.id);
        assert.equal(occurrences.length, 4);
        assert.equal((await call(fileServer, adminKey, 'PUT', `/events/${occurrences[0]}`, { location: 'Annex' })).status, 200);
        assert.equal((await call(fileServer, adminKey, 'DELETE', `/events/${occurrences[1]}`)).status, 204);
        assert.equal((await call(fileServer, adminKey, 'POST', `/events/${occurrences[2]}/registrations`, { name: 'S', email: 's@campus.edu' })).status, 201);
        ids.push(occurrences[0]!, occurrences[2]!);
      } finally {
        await fileServer.stop();
      }
      const fileAgain = await spawnServer(['--port', '0', '--data-dir', dir, '--console', 'off']);
      const before = await reads(fileAgain, adminKey, ids, seriesIds).finally(() => fileAgain.stop());
      assert.deepEqual((before as { target: string; status: number }[]).filter((read) => read.status !== 200 && !read.target.includes(ids[2]!)), [], 'every read but the deleted event\'s answers 200 on the data folder');

      const url = await pg.database('migrate');
      const migrated = runCli(['migrate', '--from', dir, '--to', url]);
      assert.equal(migrated.status, 0, migrated.stderr);
      // Counted as verify counts them: an atomic group (the series) is its members.
      const verified = /records: (\d+)/.exec(runCli(['verify', '--data-dir', dir]).stdout)![1];
      const counted = /^migrated (\d+) records \(last seq \d+\), \d+ keys and \d+ webhooks from /.exec(migrated.stdout);
      assert.ok(counted !== null, migrated.stdout);
      assert.equal(Number(counted[1]), Number(verified), `${migrated.stdout} against verify's ${verified}`);
      assert.equal(runCli(['migrate', '--from', dir, '--to', url]).status, 1, 'never into a database that holds data');
      const pgServer = await spawnServer(['--port', '0', '--store', url, '--console', 'off']);
      const out = path.join(dir, 'backup-from-pg.jsonl');
      try {
        assert.deepEqual(await reads(pgServer, adminKey, ids, seriesIds), before);
        const backup = runCli(['backup', '--out', out, '--store', url]);
        assert.equal(backup.status, 0, backup.stderr);
        assert.match(backup.stdout, new RegExp(`^backed up ${counted[1]} records `), 'what was migrated, counted the same way');
      } finally {
        await pgServer.stop();
      }
      // Back to a data folder: the backup, as events.jsonl, with the keys file.
      const back = path.join(dir, 'back');
      mkdirSync(back);
      renameSync(out, path.join(back, 'events.jsonl'));
      cpSync(path.join(dir, 'keys.json'), path.join(back, 'keys.json'));
      const restored = await spawnServer(['--port', '0', '--data-dir', back, '--console', 'off']);
      try {
        assert.deepEqual(await reads(restored, adminKey, ids, seriesIds), before);
      } finally {
        await restored.stop();
      }
    } finally {
      remove();
    }
  });

  it('migrate takes a folder compacted just after a series was changed (its document and the mark at one seq), and the answers to remember: the same answers from the database', async () => {
    const { dir, remove } = tempDir();
    try {
      const fileServer = await spawnServer(['--port', '0', '--data-dir', dir, '--console', 'off', '--compact-min-bytes', '4000']);
      const adminKey = /"key":"(cek_[A-Za-z0-9_-]+)"/.exec(fileServer.stderr())![1]!;
      let seriesId: string;
      const retried = { ...newEvent(2, 3), title: 'Sent twice' };
      const retry = (server: SpawnedServer): Promise<Response> =>
        fetch(`${server.url}/events`, { method: 'POST', headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json', 'idempotency-key': 'move-1' }, body: JSON.stringify(retried) });
      let first: { id: string };
      try {
        const created = await retry(fileServer);
        assert.equal(created.status, 201);
        first = (await created.json()) as { id: string };
        // A deletion the compaction forgets: its mark says so.
        const doomed = ((await (await call(fileServer, adminKey, 'POST', '/events', newEvent(3, 3))).json()) as { id: string }).id;
        assert.equal((await call(fileServer, adminKey, 'DELETE', `/events/${doomed}`)).status, 204);
        const series = await call(fileServer, adminKey, 'POST', '/series', { ...newEvent(1, 3), recurrence: 'FREQ=WEEKLY;COUNT=3', start_time: '2031-03-04T10:00:00Z', end_time: '2031-03-04T12:00:00Z' });
        assert.equal(series.status, 201);
        seriesId = ((await series.json()) as { id: string }).id;
        // Renames grow the log past the threshold: the compaction comes right after a series write.
        for (let n = 0; n < 40; n++) assert.equal((await call(fileServer, adminKey, 'PUT', `/series/${seriesId}`, { location: `Room ${n}` })).status, 200);
      } finally {
        await fileServer.stop();
      }
      // Each record as seq:op, a group line's members included (compaction writes lines that share a seq as one).
      const seqs = readFileSync(path.join(dir, 'events.jsonl'), 'utf8').split('\n').filter((line) => line !== '').flatMap((line) => {
        const parsed = JSON.parse(line) as { seq: number; op: string; lines?: { seq: number; op: string }[] };
        return (parsed.op === 'group' ? parsed.lines! : [parsed]).map((record) => `${record.seq}:${record.op}`);
      });
      const docstate = seqs.find((entry) => entry.endsWith(':docstate'))!.split(':')[0];
      assert.ok(seqs.includes(`${docstate}:mark`), `the case at hand: the series' document and the mark at one seq (${seqs.join(' ')})`);
      assert.ok(seqs.some((entry) => entry.endsWith(':idem')), 'and an answer to remember that the compaction rewrote');
      const fileAgain = await spawnServer(['--port', '0', '--data-dir', dir, '--console', 'off']);
      const gone = (await call(fileAgain, adminKey, 'GET', '/changes?since=1')).status;
      assert.equal(gone, 410, 'the compaction forgot deletions');
      const before = await reads(fileAgain, adminKey, [], [seriesId]).finally(() => fileAgain.stop());

      const url = await pg.database('migrate_compacted');
      const migrated = runCli(['migrate', '--from', dir, '--to', url]);
      assert.equal(migrated.status, 0, migrated.stderr);
      const verified = runCli(['verify', '--store', url]);
      assert.equal(verified.status, 0, verified.stdout + verified.stderr);
      const pgServer = await spawnServer(['--port', '0', '--store', url, '--console', 'off']);
      try {
        assert.deepEqual(await reads(pgServer, adminKey, [], [seriesId]), before);
        assert.equal((await call(pgServer, adminKey, 'PUT', `/series/${seriesId}`, { location: 'After the move' })).status, 200);
        // What the compaction forgot is forgotten there too: a change-feed position before it is a 410 on both.
        assert.equal((await call(pgServer, adminKey, 'GET', '/changes?since=1')).status, gone);
        // The first answer, remembered through the compaction and the move: a retry writes nothing.
        const again = await retry(pgServer);
        assert.equal(again.status, 201);
        assert.equal(again.headers.get('idempotent-replayed'), 'true');
        assert.equal(((await again.json()) as { id: string }).id, first.id);
      } finally {
        await pgServer.stop();
      }
    } finally {
      remove();
    }
  });

  it('migrate of a folder whose log ends in a torn write says what it left out, as backup does, and moves the rest', async () => {
    const { dir, remove } = tempDir();
    try {
      const fileServer = await spawnServer(['--port', '0', '--data-dir', dir, '--console', 'off']);
      const adminKey = /"key":"(cek_[A-Za-z0-9_-]+)"/.exec(fileServer.stderr())![1]!;
      try {
        assert.equal((await call(fileServer, adminKey, 'POST', '/events', newEvent(1))).status, 201);
      } finally {
        await fileServer.stop();
      }
      const torn = '{"seq":2,"op":"put","event":{"id":"evt_';
      appendFileSync(path.join(dir, 'events.jsonl'), torn);
      const migrated = runCli(['migrate', '--from', dir, '--to', await pg.database('migrate_torn')]);
      assert.equal(migrated.status, 0, migrated.stderr);
      assert.match(migrated.stdout, new RegExp(`^migrated 1 records \\(last seq 1\\), 1 keys and 0 webhooks from .+; left out ${torn.length} bytes after the last whole line \\(a write in progress or a torn tail\\)\n$`));
    } finally {
      remove();
    }
  });

  it('migrate refuses a folder verify calls damaged (registrations against their seats), and backup refuses a database holding a damaged row: exit 1, naming it, nothing made', async () => {
    const { dir, remove } = tempDir();
    try {
      const attendee = (n: number, status: 'confirmed' | 'waitlisted', seq: number): Registration => ({ id: `reg_${String(n).padStart(22, '0')}`, eventId: eventId(1), name: `P ${n}`, email: `p${n}@x.edu`, status, createdAt: '2030-01-01T00:00:00.000Z', checkedInAt: null, seq });
      // Every line's checksum holds, but one person waits while seats are free: no server starts on it.
      writeFileSync(path.join(dir, 'events.jsonl'), [encodePut(1, sampleRecord(1, { capacity: 3 })), encodeRegistrationState(attendee(1, 'waitlisted', 2))].join(''));
      const broken = await pg.database('migrate_contradiction');
      const refused = runCli(['migrate', '--from', dir, '--to', broken]);
      assert.equal(refused.status, 1, refused.stderr);
      assert.match(refused.stderr, /1 waitlisted while 3 seats are free/);
      const db = await connect(broken);
      try {
        assert.deepEqual(await db.query("SELECT to_regclass('campus_log') IS NOT NULL AS present"), [{ present: false }], 'nothing was made in the database');
      } finally {
        await db.end();
      }

      writeFileSync(path.join(dir, 'events.jsonl'), [encodePut(1, sampleRecord(1, { capacity: 3 })), encodeRegister(attendee(1, 'confirmed', 2))].join(''));
      const url = await pg.database('backup_damaged');
      assert.equal(runCli(['migrate', '--from', dir, '--to', url]).status, 0);
      const damaging = await connect(url);
      try {
        await damaging.query("UPDATE campus_log SET line = replace(line, 'P 1', 'Q 1') WHERE line LIKE '%P 1%'");
      } finally {
        await damaging.end();
      }
      const out = path.join(dir, 'backup.jsonl');
      const backup = runCli(['backup', '--store', url, '--out', out]);
      assert.equal(backup.status, 1, backup.stderr);
      assert.match(backup.stderr, /campus_log row 2 is damaged/);
      assert.equal(existsSync(out) || existsSync(`${out}.tmp`), false, 'no backup file, whole or partial');
    } finally {
      remove();
    }
  });

  it('keys list and backup read a database of an older schema as it is: old instances may still run on it (an upgrade migrates it when the new build starts)', async () => {
    const url = await pg.database('older');
    const { dir, remove } = tempDir();
    const made = runCli(['keys', 'create', '--name', 'Ada', '--email', 'ada@campus.edu', '--role', 'admin', '--store', url]);
    assert.equal(made.status, 0, made.stderr);
    const db = await connect(url);
    try {
      // As the build before the change-stream caps left it: schema 4, without campus_streams.
      await db.query('DROP TABLE campus_streams');
      await db.query("UPDATE campus_meta SET value = '4' WHERE name = 'schema_version'");
      const listed = runCli(['keys', 'list', '--json', '--store', url]);
      assert.equal(listed.status, 0, listed.stderr);
      assert.deepEqual((JSON.parse(listed.stdout) as { name: string }[]).map((key) => key.name), ['Ada']);
      const backup = runCli(['backup', '--out', path.join(dir, 'b.jsonl'), '--store', url]);
      assert.equal(backup.status, 0, backup.stderr);
      assert.deepEqual(await db.query("SELECT value FROM campus_meta WHERE name = 'schema_version'"), [{ value: '4' }]);
      assert.deepEqual(await db.query("SELECT to_regclass('campus_streams') IS NULL AS absent"), [{ absent: true }]);
      // And as a build before checkpoints left it: schema 2.
      await db.query('DROP TABLE campus_checkpoint_parts, campus_checkpoints');
      await db.query("UPDATE campus_meta SET value = '2' WHERE name = 'schema_version'");
      assert.equal(runCli(['keys', 'list', '--store', url]).status, 0);
      const older = runCli(['backup', '--out', path.join(dir, 'b2.jsonl'), '--store', url]);
      assert.equal(older.status, 0, older.stderr);
      assert.deepEqual(await db.query("SELECT value FROM campus_meta WHERE name = 'schema_version'"), [{ value: '2' }]);
      assert.deepEqual(await db.query("SELECT to_regclass('campus_checkpoints') IS NULL AS absent"), [{ absent: true }]);
    } finally {
      await db.end();
      remove();
    }
  });

  it('a start while another session holds the tables locked (a migrate copying a folder in) is refused after the 3 s lock time-out, saying so rather than PostgreSQL\'s own words', async () => {
    const url = await pg.database('locked');
    assert.equal(runCli(['keys', 'list', '--store', url]).status, 0);
    assert.equal(runCli(['keys', 'create', '--name', 'Ada', '--email', 'ada@campus.edu', '--store', url]).status, 0, 'the schema made');
    const db = await connect(url);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holding = db.transaction(async (tx) => {
      await tx.query('LOCK TABLE campus_log, campus_checkpoints, campus_keys, campus_webhooks IN ACCESS EXCLUSIVE MODE');
      locked();
      await held;
    });
    try {
      await isLocked;
      // The lock is the database's: spawnSync blocking this process leaves it held.
      const result = runServer(['--port', '0', '--store', url], {}, 20_000);
      assert.equal(result.status, 1, result.stderr);
      assert.match(result.stderr, /cannot start: the database's tables stayed locked by another session for over 3 s \(a migrate still copying a folder into it\?\): try again once it is done/);
    } finally {
      release();
      await holding;
      await db.end();
    }
  });

  it('a first start that cannot listen (its port in use) leaves no unseen admin key in the database, and no folder: the next start prints one', async () => {
    const url = await pg.database('first_listen');
    const { dir, remove } = tempDir();
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      const folder = path.join(dir, 'unused');
      const failed = runServer(['--port', String((blocker.address() as net.AddressInfo).port), '--store', url, '--data-dir', folder]);
      assert.equal(failed.status, 1, failed.stderr);
      assert.match(failed.stderr, /port \d+ on 127\.0\.0\.1 is already in use/);
      assert.equal(existsSync(folder), false, 'the store is the database: the folder is not made');
      assert.match(runCli(['keys', 'list', '--store', url]).stdout, /^no keys/im);
      const started = await spawnServer(['--port', '0', '--store', url, '--console', 'off']);
      assert.equal(await started.stop(), 0);
      assert.match(started.stderr(), /cek_[A-Za-z0-9]{39}/, 'the key is printed on the first start that listens');
    } finally {
      blocker.close();
      remove();
    }
  });

  it('a database whose schema is newer than the program is refused: exit 1, the reason on stderr', async () => {
    const url = await pg.database('newer');
    const db = await connect(url);
    try {
      await db.query('CREATE TABLE campus_meta (name text PRIMARY KEY, value text NOT NULL)');
      await db.query("INSERT INTO campus_meta VALUES ('schema_version', '99')");
    } finally {
      await db.end();
    }
    const result = runServer(['--port', '0', '--store', url]);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /schema is version 99, newer than this program's \d+/);
    for (const args of [['keys', 'list'], ['backup', '--out', path.join(tmpdir(), 'never-written.jsonl')]]) {
      const refused = runCli([...args, '--store', url]);
      assert.equal(refused.status, 1, args.join(' '));
      assert.match(refused.stderr, /schema is version 99, newer than this program's \d+/);
    }
  });
});

describe('without the pg package', () => {
  it('--store postgres:// is a one-line error naming the package, exit 2 (server and CLI); the file store needs nothing but Node', async () => {
    const { dir, remove } = tempDir();
    try {
      // The built program alone, with no node_modules beside it: as installed without the optional peer.
      cpSync(path.join(ROOT, 'dist'), path.join(dir, 'dist'), { recursive: true });
      cpSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
      assert.ok(!existsSync(path.join(dir, 'node_modules')));
      const server = runServer(['--port', '0', '--store', 'postgres://campus@127.0.0.1:1/campus'], {}, 10_000, path.join(dir, 'dist/server.js'));
      assert.equal(server.status, 2);
      assert.equal(server.stderr.trim().split('\n').length, 1);
      assert.match(server.stderr, /npm install pg/);
      const cli = runCli(['keys', 'list', '--store', 'postgres://campus@127.0.0.1:1/campus'], {}, path.join(dir, 'dist/cli.js'));
      assert.equal(cli.status, 2);
      assert.match(cli.stderr, /^campus-events-cli: .*npm install pg.*\n$/);
      const fileServer = await spawnServer(['--port', '0', '--data-dir', path.join(dir, 'data'), '--console', 'off'], {}, [process.execPath, path.join(dir, 'dist/server.js')]);
      assert.equal((await fetch(`${fileServer.url}/health`)).status, 200);
      await fileServer.stop();
    } finally {
      remove();
    }
  });
});
