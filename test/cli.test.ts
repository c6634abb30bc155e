// The CLI's key commands: output, --json, exit codes (0 done, 1 failed, 2 usage).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chownSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { CLI, ROOT, runCli } from './helpers/spawn.js';
import { tempDir } from './helpers/harness.js';
import { encodePut, encodeRegistrationState } from '../src/store/records/encode-record.js';
import { eventId, sampleRecord } from './store/helpers.js';

test('keys create prints the key alone on stdout, with organizer as the default role', () => {
  const { dir, remove } = tempDir();
  try {
    const result = runCli(['keys', 'create', '--name', 'Olivia', '--email', 'olivia@campus.edu', '--data-dir', dir]);
    assert.equal(result.status, 0);
    assert.match(result.stdout, /^cek_[A-Za-z0-9_-]{22,}\n$/);
    const listed = JSON.parse(runCli(['keys', 'list', '--json'], { DATA_DIR: dir }).stdout) as { role: string; name: string }[];
    assert.deepEqual(listed.map((key) => [key.name, key.role]), [['Olivia', 'organizer']]);
  } finally {
    remove();
  }
});

test('keys create on a folder no server has run on (no events.jsonl) says so on stderr, still exit 0; on one a server ran on, nothing', () => {
  const { dir, remove } = tempDir();
  try {
    // The README's Quick start with DATA_DIR set for the server and not for the CLI: the key goes to ./data, a 401.
    const first = runCli(['keys', 'create', '--name', 'Olivia', '--email', 'olivia@campus.edu', '--data-dir', dir]);
    assert.equal(first.status, 0);
    assert.match(first.stdout, /^cek_/);
    assert.equal(first.stderr, `campus-events-cli: note: no server has run on ${dir} yet (it holds no events.jsonl): this key works only on a server started with --data-dir ${dir} (or DATA_DIR=${dir})\n`);
    writeFileSync(path.join(dir, 'events.jsonl'), '');
    const second = runCli(['keys', 'create', '--name', 'Rita', '--email', 'rita@campus.edu', '--data-dir', dir]);
    assert.equal(second.status, 0);
    assert.equal(second.stderr, '');
  } finally {
    remove();
  }
});

test('keys create --json prints one object with id, key, name, email and role', () => {
  const { dir, remove } = tempDir();
  try {
    const result = runCli(['keys', 'create', '--data-dir', dir, '--name', 'Rita', '--email', 'rita@campus.edu', '--role', 'reader', '--json']);
    assert.equal(result.status, 0);
    const created = JSON.parse(result.stdout) as Record<string, unknown>;
    assert.match(String(created['key']), /^cek_/);
    assert.match(String(created['id']), /^key_/);
    assert.equal(created['name'], 'Rita');
    assert.equal(created['email'], 'rita@campus.edu');
    assert.equal(created['role'], 'reader');
    assert.equal(created['hash'], undefined);
  } finally {
    remove();
  }
});

test('keys create --role feed makes a key of the feed role (API.md §9.1)', () => {
  const { dir, remove } = tempDir();
  try {
    const result = runCli(['keys', 'create', '--data-dir', dir, '--name', 'Campus calendar', '--email', 'calendar@campus.edu', '--role', 'feed', '--json']);
    assert.equal(result.status, 0, result.stderr);
    assert.equal((JSON.parse(result.stdout) as Record<string, unknown>)['role'], 'feed');
    const listed = JSON.parse(runCli(['keys', 'list', '--json'], { DATA_DIR: dir }).stdout) as { role: string }[];
    assert.deepEqual(listed.map((key) => key.role), ['feed']);
  } finally {
    remove();
  }
});

test('keys.json keeps only a hash of each key, never the key itself', () => {
  const { dir, remove } = tempDir();
  try {
    const key = runCli(['keys', 'create', '--name', 'Olivia', '--email', 'olivia@campus.edu', '--data-dir', dir]).stdout.trim();
    const stored = readFileSync(path.join(dir, 'keys.json'), 'utf8');
    assert.ok(!stored.includes(key));
    assert.match(stored, /"hash": "[0-9a-f]{64}"/);
  } finally {
    remove();
  }
});

test('keys list --json includes revoked keys with revoked_at and no secrets', () => {
  const { dir, remove } = tempDir();
  try {
    const created = JSON.parse(runCli(['keys', 'create', '--name', 'A', '--email', 'a@campus.edu', '--json', '--data-dir', dir]).stdout) as { id: string; key: string };
    assert.equal(runCli(['keys', 'revoke', created.id, '--data-dir', dir]).status, 0);
    const result = runCli(['keys', 'list', '--json', '--data-dir', dir]);
    assert.equal(result.status, 0);
    const listed = JSON.parse(result.stdout) as { id: string; revoked_at: string | null }[];
    assert.equal(listed.length, 1);
    assert.equal(listed[0]!.id, created.id);
    assert.match(String(listed[0]!.revoked_at), /^\d{4}-\d{2}-\d{2}T/);
    assert.ok(!result.stdout.includes(created.key));
  } finally {
    remove();
  }
});

test('keys list writes all of a long listing to a pipe before it exits (past the pipe\'s 64 KiB), as JSON and as columns', () => {
  const { dir, remove } = tempDir();
  try {
    // 2,000 keys, as years of keys made and revoked leave: a listing of about 300 KiB.
    const keys = Array.from({ length: 2000 }, (_, n) => ({
      id: `key_${String(n).padStart(12, '0')}`,
      name: `Organizer ${n}`,
      email: `organizer${n}@campus.edu`,
      role: 'organizer',
      hash: n.toString(16).padStart(64, '0'),
      created_at: '2026-01-01T00:00:00.000Z',
      revoked_at: n % 2 === 0 ? '2026-02-01T00:00:00.000Z' : null,
    }));
    writeFileSync(path.join(dir, 'keys.json'), JSON.stringify({ version: 1, keys }), { mode: 0o600 });
    const json = runCli(['keys', 'list', '--json', '--data-dir', dir]);
    assert.equal(json.status, 0, json.stderr);
    assert.ok(json.stdout.length > 200_000, `${json.stdout.length} bytes`);
    assert.deepEqual((JSON.parse(json.stdout) as { id: string }[]).map((key) => key.id), keys.map((key) => key.id));
    const table = runCli(['keys', 'list', '--data-dir', dir]);
    assert.equal(table.status, 0, table.stderr);
    assert.equal(table.stdout.trimEnd().split('\n').length, 1 + keys.length);
  } finally {
    remove();
  }
});

test('keys revoke of an unknown id exits 1', () => {
  const { dir, remove } = tempDir();
  try {
    const result = runCli(['keys', 'revoke', 'key_nope', '--data-dir', dir]);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /key_nope/);
  } finally {
    remove();
  }
});

test('usage errors exit 2: unknown command, missing --name, bad role, bad email, unknown flag', () => {
  const { dir, remove } = tempDir();
  try {
    for (const args of [
      ['frobnicate'],
      ['keys', 'create', '--email', 'a@campus.edu'],
      ['keys', 'create', '--name', 'A', '--email', 'a@campus.edu', '--role', 'root'],
      ['keys', 'create', '--name', 'A', '--email', 'not-an-email'],
      ['keys', 'list', '--bogus'],
      [],
    ]) {
      const result = runCli([...args, '--data-dir', dir]);
      assert.equal(result.status, 2, `${args.join(' ')} exits 2`);
      assert.notEqual(result.stderr, '');
    }
  } finally {
    remove();
  }
});

test('cli names the flag a newcomer meant, among the command\'s own: exit 2, one line (issue 33.7)', () => {
  const { dir, remove } = tempDir();
  try {
    for (const [args, line] of [
      [['keys', 'list', '--data', dir], 'campus-events-cli: unknown flag --data; did you mean --data-dir?\n'],
      [['keys', 'create', '--nmae', 'A', '--email', 'a@campus.edu', '--data-dir', dir], 'campus-events-cli: unknown flag --nmae; did you mean --name?\n'],
      [['keys', 'list', '--jsno', '--data-dir', dir], 'campus-events-cli: unknown flag --jsno; did you mean --json?\n'],
      [['backup', '--output', 'x.jsonl', '--data-dir', dir], 'campus-events-cli: unknown flag --output; did you mean --out?\n'],
      [['migrate', '--form', dir, '--to', 'postgres://u@h/d'], 'campus-events-cli: unknown flag --form; did you mean --from?\n'],
      [['verify', '--frobnicate', '--data-dir', dir], 'campus-events-cli: unknown flag --frobnicate; see node dist/cli.js --help\n'],
    ] as const) {
      const result = runCli([...args]);
      assert.equal(result.status, 2, args.join(' '));
      assert.equal(result.stdout, '', args.join(' '));
      assert.equal(result.stderr, line, args.join(' '));
    }
  } finally {
    remove();
  }
});

test('cli names the command a newcomer meant, the commands of a group named alone, and an extra word: exit 2, one line', () => {
  const { dir, remove } = tempDir();
  try {
    // Before: `unknown command "kyes list"; see node dist/cli.js --help` and `unknown command "keys"`, whatever was near.
    for (const [args, line] of [
      [['kyes', 'list'], 'campus-events-cli: unknown command "kyes list"; did you mean keys list?\n'],
      [['key', 'create'], 'campus-events-cli: unknown command "key create"; did you mean keys create?\n'],
      [['keys', 'lst'], 'campus-events-cli: unknown command "keys lst"; did you mean keys list?\n'],
      [['verfy'], 'campus-events-cli: unknown command "verfy"; did you mean verify?\n'],
      [['keys'], 'campus-events-cli: keys needs a command: keys create, list or revoke; see node dist/cli.js --help\n'],
      [['keys', 'delete', 'key_1'], 'campus-events-cli: unknown command "keys delete": keys takes create, list or revoke; see node dist/cli.js --help\n'],
      [['verify', 'now'], 'campus-events-cli: verify takes no arguments, got "now"; see node dist/cli.js --help\n'],
      [['frobnicate'], 'campus-events-cli: unknown command "frobnicate"; see node dist/cli.js --help\n'],
    ] as const) {
      const result = runCli([...args, '--data-dir', dir]);
      assert.equal(result.status, 2, args.join(' '));
      assert.equal(result.stdout, '', args.join(' '));
      assert.equal(result.stderr, line, args.join(' '));
    }
  } finally {
    remove();
  }
});

test('cli --help and -h (as the server takes it) print usage and exit 0', () => {
  for (const flag of ['--help', '-h']) {
    const result = runCli([flag]);
    assert.equal(result.status, 0, flag);
    assert.match(result.stdout, /keys create/);
  }
});

test('cli without a command is a usage error: exit 2, stdout empty, one line on stderr naming the commands', () => {
  const result = runCli([]);
  assert.equal(result.status, 2);
  assert.equal(result.stdout, '');
  assert.match(result.stderr, /keys create/);
  assert.match(result.stderr, /a command is needed/);
  assert.equal(result.stderr.split('\n').filter((line) => line !== '').length, 1, result.stderr);
});

test('cli --help names both ways to run it; --version prints the package version', () => {
  const help = runCli(['--help']);
  assert.match(help.stdout, /^Usage: node dist\/cli\.js COMMAND \[options\]\n   or: campus-events-cli COMMAND \[options\]\n/);
  const version = runCli(['--version']);
  assert.equal(version.status, 0);
  assert.equal(version.stdout, `campus-events-cli ${JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version}\n`);
});

test('keys create, list and revoke refuse a data folder that does not exist (exit 1, naming it and how to make it) and create nothing', () => {
  const { dir, remove } = tempDir();
  try {
    const typo = path.join(dir, 'typo', 'path');
    for (const args of [['keys', 'create', '--name', 'Olivia', '--email', 'olivia@campus.edu'], ['keys', 'list'], ['keys', 'revoke', 'key_x']]) {
      const result = runCli([...args, '--data-dir', typo]);
      assert.equal(result.status, 1, args.join(' '));
      assert.equal(result.stdout, '', 'no key is printed');
      assert.ok(result.stderr.includes(`there is no data folder at ${typo}`), result.stderr);
      assert.ok(result.stderr.includes(`mkdir -p ${typo}`), result.stderr);
    }
    assert.equal(existsSync(path.join(dir, 'typo')), false, 'nothing was created');
  } finally {
    remove();
  }
});

test('keys list prints aligned columns under a header', () => {
  const { dir, remove } = tempDir();
  try {
    runCli(['keys', 'create', '--name', 'Olivia Organizer', '--email', 'olivia@campus.edu', '--data-dir', dir]);
    runCli(['keys', 'create', '--name', 'Al', '--email', 'al@campus.edu', '--role', 'reader', '--data-dir', dir]);
    const lines = runCli(['keys', 'list', '--data-dir', dir]).stdout.trimEnd().split('\n');
    assert.equal(lines.length, 3);
    assert.match(lines[0]!, /^ID +ROLE +NAME +EMAIL +CREATED +STATE$/);
    for (const column of ['ROLE', 'NAME', 'EMAIL', 'CREATED', 'STATE']) {
      const at = lines[0]!.indexOf(column);
      for (const line of lines.slice(1)) assert.match(line.slice(at - 2, at), /^ {2}$/, `${column} starts at the same place in "${line}"`);
    }
    assert.match(lines[2]!, /reader +Al +al@campus\.edu +\S+ +active$/);
  } finally {
    remove();
  }
});

test('keys create and revoke run as root on a folder the service user owns write as that user, so the server can read keys.json', { skip: process.getuid?.() !== 0 ? 'needs root' : false }, () => {
  const { dir, remove } = tempDir();
  try {
    const SERVICE_UID = 65534; // nobody (primary group 65534): any user but root
    // The folder's group is root's, as after a plain `chown nobody`: the CLI takes the user's own group, not that one.
    chownSync(dir, SERVICE_UID, 0);
    const created = runCli(['keys', 'create', '--name', 'Olivia', '--email', 'olivia@campus.edu', '--data-dir', dir, '--json']);
    assert.equal(created.status, 0, created.stderr);
    assert.match(created.stderr, /writing as nobody/);
    assert.equal(statSync(path.join(dir, 'keys.json')).uid, SERVICE_UID);
    assert.equal(statSync(path.join(dir, 'keys.json')).gid, 65534, "the user's own group, not root's");
    const revoked = runCli(['keys', 'revoke', (JSON.parse(created.stdout) as { id: string }).id, '--data-dir', dir]);
    assert.equal(revoked.status, 0, revoked.stderr);
    assert.equal(statSync(path.join(dir, 'keys.json')).uid, SERVICE_UID, 'still the service user\'s after a revoke');
  } finally {
    remove();
  }
});


test('a wrong argument is a usage error (exit 2) even where no data folder is: it is checked first', () => {
  for (const args of [
    ['keys', 'create', '--email', 'a@campus.edu'],
    ['keys', 'create', '--name', 'A', '--email', 'a@campus.edu', '--role', 'root'],
    ['keys', 'create', '--name', 'A', '--email', 'not-an-email'],
  ]) {
    const result = runCli([...args, '--data-dir', '/tmp/campus-events-no-such-folder']);
    assert.equal(result.status, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.doesNotMatch(result.stderr, /no data folder/);
  }
});

test('a --store URL with a bad port or host list is a usage error (exit 2), as the server says, touching no database', () => {
  for (const url of ['postgres://u:p@127.0.0.1:notaport/x', 'postgres://x@[::1/db']) {
    const result = runCli(['keys', 'list', '--store', url]);
    assert.equal(result.status, 2, `${url}: ${result.stderr}`);
    assert.match(result.stderr, /host list/);
    assert.doesNotMatch(result.stderr, /u:p@/, 'the password is not shown');
  }
});

test('backup refuses a log verify calls damaged (a registration against its seats, every checksum good): exit 1, no file', () => {
  const { dir, remove } = tempDir();
  try {
    const waiting = { id: `reg_${'1'.padStart(22, '0')}`, eventId: eventId(1), name: 'P 1', email: 'p1@x.edu', status: 'waitlisted' as const, createdAt: '2030-01-01T00:00:00.000Z', checkedInAt: null, seq: 2 };
    writeFileSync(path.join(dir, 'events.jsonl'), encodePut(1, sampleRecord(1, { capacity: 3 })) + encodeRegistrationState(waiting));
    const out = path.join(dir, 'copy.jsonl');
    const result = runCli(['backup', '--data-dir', dir, '--out', out]);
    assert.equal(result.status, 1, result.stderr);
    assert.match(result.stderr, /1 waitlisted while 3 seats are free/);
    assert.equal(existsSync(out), false);
  } finally {
    remove();
  }
});

test('--store postgres without DATABASE_URL says it is not set, as the server does (exit 2)', () => {
  const result = runCli(['keys', 'list', '--store', 'postgres'], { DATABASE_URL: '' });
  assert.equal(result.status, 2, result.stderr);
  assert.match(result.stderr, /--store postgres reads the database URL from DATABASE_URL, which is not set/);
});

test('a flag whose value is missing names it, not the flag after it (exit 2)', () => {
  const result = runCli(['keys', 'create', '--name', 'x', '--email', 'x@campus.edu', '--role', '--data-dir', '/tmp/nowhere']);
  assert.equal(result.status, 2, result.stderr);
  assert.match(result.stderr, /--role needs a value; got the flag --data-dir after it/);
});

test('--data-dir on the command line with STORE exported: the command works on the database and says the folder is not used; --store file works on the folder; an empty --data-dir= is refused', (t) => {
  const { dir, remove } = tempDir();
  t.after(remove);
  const STORE = 'postgres://campus:secret@127.0.0.1:1/nowhere';
  const onDatabase = runCli(['keys', 'list', '--data-dir', dir], { STORE });
  assert.equal(onDatabase.status, 1, 'the database is not there');
  assert.match(onDatabase.stderr, /\ncampus-events-cli: the database at 127\.0\.0\.1:1 cannot be reached: nothing accepts connections there \(ECONNREFUSED\)\. Check the host and port in the store's URL, and that PostgreSQL runs there\n$/);
  assert.doesNotMatch(onDatabase.stderr, /secret/);
  assert.match(onDatabase.stderr, new RegExp(`--data-dir ${dir} is not used: STORE in the environment names a database, which this command works on; to work on the folder, add --store file`));
  const created = runCli(['keys', 'create', '--name', 'Ada', '--email', 'ada@campus.edu', '--data-dir', dir, '--store', 'file'], { STORE });
  assert.equal(created.status, 0, created.stderr);
  assert.doesNotMatch(created.stderr, /is not used/);
  const listed = runCli(['keys', 'list', '--json', '--data-dir', dir, '--store', 'file'], { STORE });
  assert.deepEqual((JSON.parse(listed.stdout) as { email: string }[]).map((key) => key.email), ['ada@campus.edu']);
  const empty = runCli(['keys', 'list', '--data-dir='], { STORE });
  assert.equal(empty.status, 2);
  assert.match(empty.stderr, /--data-dir must not be empty/);
});

test('an empty STORE or DATA_DIR in the environment is an unset one, as the server reads it: the folder named, or ./data', (t) => {
  const { dir, remove } = tempDir();
  t.after(remove);
  const created = runCli(['keys', 'create', '--name', 'Ada', '--email', 'ada@campus.edu', '--data-dir', dir], { STORE: '' });
  assert.equal(created.status, 0, created.stderr);
  const unset = { ...process.env };
  delete unset['DATA_DIR'];
  delete unset['STORE'];
  const run = (env: Record<string, string>) => spawnSync(process.execPath, [CLI, 'verify', '--json'], { env: { ...unset, ...env } as NodeJS.ProcessEnv, encoding: 'utf8', cwd: ROOT });
  const blank = run({ DATA_DIR: '', STORE: '' });
  const none = run({});
  assert.deepEqual([blank.status, blank.stdout, blank.stderr], [none.status, none.stdout, none.stderr]);
  assert.match(none.stdout + none.stderr, new RegExp(path.join(ROOT, 'data').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
});

test('migrate --to anything but a PostgreSQL URL is a usage error naming --to and what it takes (exit 2)', () => {
  const { dir, remove } = tempDir();
  try {
    for (const target of ['/tmp/elsewhere', 'mysql://u@h/d']) {
      const result = runCli(['migrate', '--from', dir, '--to', target]);
      assert.equal(result.status, 2, target);
      assert.equal(result.stderr, 'campus-events-cli: --to must be a postgres://user:password@host:port/database URL; see node dist/cli.js --help\n', target);
    }
    const unset = runCli(['migrate', '--from', dir, '--to', 'postgres'], { DATABASE_URL: '' });
    assert.equal(unset.status, 2);
    assert.match(unset.stderr, /^campus-events-cli: --to postgres reads the database URL from DATABASE_URL, which is not set; set it, or give the URL itself: --to postgres:\/\//);
  } finally {
    remove();
  }
});

test('migrate from a folder that does not exist, or holds no log, names --from, the flag in use, and touches no database (exit 1)', () => {
  const missing = path.join(ROOT, 'no-such-campus-folder');
  const result = runCli(['migrate', '--from', missing, '--to', 'postgres://campus:secret@127.0.0.1:1/nowhere']);
  assert.equal(result.status, 1, result.stderr);
  assert.match(result.stderr, new RegExp(`there is no data folder at ${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}; check --from`));
  assert.doesNotMatch(result.stderr, /--data-dir|ECONNREFUSED/);
  // A folder without a log (the wrong folder) names --from too.
  const empty = tempDir();
  try {
    const none = runCli(['migrate', '--from', empty.dir, '--to', 'postgres://campus:secret@127.0.0.1:1/nowhere']);
    assert.equal(none.status, 1, none.stderr);
    assert.match(none.stderr, /there is no event log \(events\.jsonl\) in .*; check --from, the folder the server ran on/);
    assert.doesNotMatch(none.stderr, /--data-dir|ECONNREFUSED/);
  } finally {
    empty.remove();
  }
});
