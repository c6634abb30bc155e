// The built server as a user runs it: the listening line, config errors, shutdown, restart, keys from the CLI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chownSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { ROOT, runCli, runServer, SERVER, spawnServer, waitFor } from './helpers/spawn.js';
import { tempDir } from './helpers/harness.js';
import { encodePut } from '../src/store/records/encode-record.js';
import { sampleRecord } from './store/helpers.js';

/** A hook that holds server.ts's load of the service (see the file). */
const HOLD_RUN_SERVER = path.join(ROOT, 'test/helpers/hold-run-server.mjs');

const event = {
  title: 'Chess club',
  category: 'social',
  location: 'Room 12',
  start_time: '2026-10-01T18:00:00Z',
  end_time: '2026-10-01T20:00:00Z',
  capacity: 30,
};

async function post(url: string, key: string, body: unknown): Promise<Response> {
  return fetch(`${url}/events`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

test('server prints only its listening line on stdout and the first admin key once on stderr', async () => {
  const { dir, remove } = tempDir();
  try {
    const first = await spawnServer(['--port', '0', '--data-dir', dir]);
    assert.match(first.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(await first.stop('SIGTERM'), 0);
    assert.equal(first.stdout(), `listening on ${first.url}\n`);
    const adminKey = /cek_[A-Za-z0-9]+/.exec(first.stderr())?.[0];
    assert.ok(adminKey, 'the first start prints an admin key on stderr');
    const second = await spawnServer(['--port=0', `--data-dir=${dir}`]);
    const health = await fetch(`${second.url}/events`, { headers: { authorization: `Bearer ${adminKey}` } });
    assert.equal(health.status, 200);
    assert.equal(await second.stop('SIGINT'), 0);
    assert.doesNotMatch(second.stderr(), /cek_/, 'the second start prints no key');
    // A terminal that closes, or an operator expecting a reload, sends SIGHUP: a stop as graceful as the others.
    const third = await spawnServer(['--port=0', `--data-dir=${dir}`]);
    assert.equal(await third.stop('SIGHUP'), 0);
    assert.match(third.stderr(), /"msg":"stopping","signal":"SIGHUP"/);
    assert.throws(() => readFileSync(path.join(dir, 'LOCK')), /ENOENT/, 'the folder is released');
  } finally {
    remove();
  }
});

test('run by its path from another folder, the first key\'s hint and the CLI\'s usage name the other program by its whole path, not node dist/…', async () => {
  const { dir, remove } = tempDir();
  const project = tempDir();
  try {
    const fromThere = path.join(ROOT, 'dist/cli.js');
    const server = await spawnServer(['--port', '0', '--data-dir', dir], {}, ['sh', '-c', 'cd "$1" && shift && exec "$@"', 'sh', project.dir, process.execPath, SERVER]);
    assert.equal(await server.stop(), 0);
    assert.ok(server.stderr().includes(`node ${fromThere} keys create --name NAME`), server.stderr());
    const usage = spawnSync(process.execPath, [path.join(ROOT, 'dist/cli.js'), 'keys', 'list', '--data-dir', path.join(project.dir, 'none')], { cwd: project.dir, encoding: 'utf8' });
    assert.equal(usage.status, 1);
    assert.ok(usage.stderr.includes(`node ${path.join(ROOT, 'dist/server.js')} --data-dir`), usage.stderr);
  } finally {
    project.remove();
    remove();
  }
});

test('the first key\'s JSON line keeps the log\'s order: it follows the lines written before it, times never going back', async () => {
  // Before, the key went straight to stderr while the log's earlier lines could still wait in its buffer: most
  // starts with stderr on a file, as under a supervisor (a pipe hides it more often). Four starts one after another (a loaded machine
  // hides it too): no pass by chance.
  for (let round = 0; round < 4; round++) {
    const { dir, remove } = tempDir();
    const errFile = path.join(dir, 'stderr.log');
    const errFd = openSync(errFile, 'w');
    try {
      const child = spawn(process.execPath, [SERVER, '--port', '0', '--data-dir', path.join(dir, 'data')], { stdio: ['ignore', 'pipe', errFd] });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      let out = '';
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      assert.ok(await waitFor(async () => out.includes('listening on'), 15_000), 'the server listened');
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
      const stderr = readFileSync(errFile, 'utf8');
      const lines = stderr.trimEnd().split('\n').map((line) => JSON.parse(line) as { time: string; msg: string; key?: string });
      const keyAt = lines.findIndex((line) => line.key !== undefined);
      const replayedAt = lines.findIndex((line) => line.msg === 'event log replayed');
      assert.ok(keyAt !== -1 && replayedAt !== -1, stderr);
      assert.ok(replayedAt < keyAt, `the replay line comes before the key line: ${stderr}`);
      for (let i = 1; i < lines.length; i++) assert.ok(lines[i - 1]!.time <= lines[i]!.time, `line ${i + 1} goes back in time: ${stderr}`);
    } finally {
      closeSync(errFd);
      remove();
    }
  }
});

test('server exits 2 with one line on stderr for a bad flag or value', () => {
  for (const [args, env, reason] of [
    [['--port', 'abc'], {}, /--port/],
    [['--rate-limit', '0'], {}, /--rate-limit/],
    [['--bogus'], {}, /--bogus/],
    [[], { PORT: 'abc' }, /PORT/],
    [['--port'], {}, /--port/],
  ] as const) {
    const result = runServer([...args], { ...env });
    assert.equal(result.status, 2, `${args.join(' ')} exits 2`);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr.trim().split('\n').length, 1, 'one line on stderr');
    assert.match(result.stderr, reason);
  }
});

test('server names the flag a newcomer meant: --data is --data-dir, exit 2, one line (issue 33.7)', () => {
  const result = runServer(['--data', '/tmp/x']);
  assert.equal(result.status, 2);
  assert.equal(result.stdout, '');
  assert.equal(result.stderr, 'campus-events: unknown flag --data; did you mean --data-dir?\n');
  assert.equal(runServer(['--prot', '3000']).stderr, 'campus-events: unknown flag --prot; did you mean --port?\n');
});

test('on a terminal the first admin key is a plain line of its own, not inside a JSON line (issue 33.7, spawned under script(1) for a pseudo-terminal)', async (t) => {
  if (spawnSync('script', ['--version']).status !== 0) {
    if (process.env['CI'] === 'true') assert.fail('script(1) (util-linux) is needed for a pseudo-terminal');
    return t.skip('script(1) is not installed');
  }
  const { dir, remove } = tempDir();
  // script(1) runs the server on a pseudo-terminal: its stdout and stderr both are that terminal, merged here.
  const child = spawn('script', ['-qfec', `${process.execPath} ${SERVER} --port 0 --data-dir ${dir}`, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    assert.ok(await waitFor(async () => /listening on http/.test(out), 15_000), `the server listened on the terminal: ${out}`);
    const lines = out.split(/\r?\n/);
    const keyLines = lines.filter((line) => /cek_/.test(line));
    assert.equal(keyLines.length, 1, `the key once: ${out}`);
    assert.match(keyLines[0]!, /^cek_[A-Za-z0-9]{39}$/, 'a line that is the key and nothing else');
    assert.ok(!lines.some((line) => line.startsWith('{')), 'no JSON lines on a terminal');
  } finally {
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
    remove();
  }
});

test('server --help prints usage and exits 0', () => {
  const result = runServer(['--help']);
  assert.equal(result.status, 0);
  assert.match(result.stdout, /--port/);
  assert.match(result.stdout, /RATE_WINDOW/);
});

test('a flag beats the environment', async () => {
  const { dir, remove } = tempDir();
  try {
    const server = await spawnServer(['--port', '0', '--data-dir', dir], { PORT: '1', DATA_DIR: '/nonexistent/never' });
    assert.notEqual(new URL(server.url).port, '1');
    const code = await server.stop();
    assert.equal(code, 0, server.stderr());
  } finally {
    remove();
  }
});

/** Every line of `stderr` is a JSON object, and the last is an error whose msg matches `message`. */
function assertJsonLines(stderr: string, message: RegExp): void {
  const lines = stderr.trimEnd().split('\n');
  const parsed = lines.map((line) => {
    try {
      return JSON.parse(line) as { level?: string; msg?: string };
    } catch {
      return assert.fail(`not a JSON line: ${line}`);
    }
  });
  assert.equal(parsed.at(-1)!.level, 'error');
  assert.match(parsed.at(-1)!.msg!, message);
}

test('server --version prints the package version and exits 0; --help names both ways to run it', () => {
  const version = runServer(['--version']);
  assert.equal(version.status, 0);
  assert.equal(version.stdout, `campus-events ${JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version}\n`);
  const help = runServer(['--help']);
  assert.match(help.stdout, /^Usage: node dist\/server\.js \[options\]\n   or: campus-events \[options\]/);
});

test('a damaged log stops the start with exit 1 and one JSON error line naming the line', async () => {
  const { dir, remove } = tempDir();
  try {
    const lines = [encodePut(1, sampleRecord(1)), encodePut(2, sampleRecord(2)), encodePut(3, sampleRecord(1, { title: 'Renamed' }))];
    writeFileSync(path.join(dir, 'events.jsonl'), lines.join('').replace(sampleRecord(2).title, 'Damaged'));
    const result = runServer(['--port', '0', '--data-dir', dir]);
    assert.equal(result.status, 1);
    assertJsonLines(result.stderr, /cannot start: .*line 2/);
  } finally {
    remove();
  }
});

test('root on the service account\'s folder is warned at start; the account\'s next start names the file root left and the chown', { skip: process.getuid?.() !== 0 ? 'needs root, to start as root and as nobody' : false }, async () => {
  const { dir, remove } = tempDir();
  try {
    const NOBODY = 65534;
    chownSync(dir, NOBODY, NOBODY);
    const asRoot = await spawnServer(['--port', '0', '--data-dir', dir]);
    assert.equal(await asRoot.stop(), 0);
    const warned = asRoot.stderr().split('\n').filter((line) => line.includes('running as root')).map((line) => JSON.parse(line) as { level: string; msg: string });
    assert.equal(warned.length, 1, asRoot.stderr());
    assert.equal(warned[0]!.level, 'warn');
    assert.match(warned[0]!.msg, new RegExp(`^running as root on ${dir}, which belongs to nobody: files written now become root's`));
    const asNobody = spawnSync(process.execPath, [SERVER, '--port', '0', '--data-dir', dir], { uid: NOBODY, gid: NOBODY, encoding: 'utf8', timeout: 10_000 });
    assert.equal(asNobody.status, 1);
    assertJsonLines(asNobody.stderr, new RegExp(`cannot start: EACCES: .*: ${dir}/\\S+ belongs to root, not to nobody, whose folder it is .*chown -R nobody ${dir}`));
  } finally {
    remove();
  }
});

test('server exits 1 when its port is in use', async () => {
  const { dir, remove } = tempDir();
  const blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  try {
    const port = (blocker.address() as net.AddressInfo).port;
    const result = runServer(['--port', String(port), '--data-dir', dir]);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /in use/);
    assertJsonLines(result.stderr, /cannot start: port \d+ on 127\.0\.0\.1 is already in use/);
  } finally {
    blocker.close();
    remove();
  }
});

test('server exits 1 naming --host when its name does not resolve, not a database the file store does not use', () => {
  const { dir, remove } = tempDir();
  try {
    // .invalid never resolves (RFC 6761): the lookup fails at once, offline too.
    const result = runServer(['--port', '0', '--host', 'campus.invalid', '--data-dir', dir]);
    assert.equal(result.status, 1);
    assertJsonLines(result.stderr, /cannot start: --host campus\.invalid is no name this machine can look up \((ENOTFOUND|EAI_AGAIN)\): give one of its addresses or names/);
    assert.doesNotMatch(result.stderr, /database/);
  } finally {
    remove();
  }
});

test('server exits 1 naming where a database it cannot reach is, and why, in words (no password)', () => {
  const result = runServer(['--port', '0', '--store', 'postgres://campus:secret@127.0.0.1:1/campus']);
  assert.equal(result.status, 1);
  assertJsonLines(result.stderr, /cannot start: the database at 127\.0\.0\.1:1 cannot be reached: nothing accepts connections there \(ECONNREFUSED\)\. Check the host and port in the store's URL, and that PostgreSQL runs there/);
  assert.doesNotMatch(result.stderr, /secret/);
});

test('server exits 1 naming the fault when --data-dir is a file, or lies under one, and creates nothing there', () => {
  const { dir, remove } = tempDir();
  try {
    const file = path.join(dir, 'events-folder');
    writeFileSync(file, 'not a folder');
    for (const [dataDir, fault] of [[file, 'is a file, not a folder'], [path.join(file, 'data'), 'lies under a file, not a folder']] as const) {
      const result = runServer(['--port', '0', '--data-dir', dataDir]);
      assert.equal(result.status, 1, result.stderr);
      assertJsonLines(result.stderr, new RegExp(`cannot start: ${dataDir.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} ${fault}: --data-dir \\(DATA_DIR\\) must name a folder`));
    }
    assert.equal(readFileSync(file, 'utf8'), 'not a folder');
  } finally {
    remove();
  }
});

test('server exits 1 naming the file when keys.json, webhooks.json or LOCK is a folder (node\'s EISDIR names none)', () => {
  for (const name of ['keys.json', 'webhooks.json', 'LOCK']) {
    const { dir, remove } = tempDir();
    try {
      mkdirSync(path.join(dir, name));
      const result = runServer(['--port', '0', '--data-dir', dir]);
      assert.equal(result.status, 1, result.stderr);
      assertJsonLines(result.stderr, new RegExp(`cannot start: ${path.join(dir, name).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is a folder where this file belongs: move it away`));
    } finally {
      remove();
    }
  }
});

test('a start refused by a damaged webhooks.json names the file and leaves no admin key unshown: the start after it makes and prints one', async () => {
  const { dir, remove } = tempDir();
  try {
    const file = path.join(dir, 'webhooks.json');
    writeFileSync(file, '{not json');
    const refused = runServer(['--port', '0', '--data-dir', dir]);
    assert.equal(refused.status, 1, refused.stderr);
    assertJsonLines(refused.stderr, new RegExp(`cannot start: ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is not valid JSON`));
    assert.doesNotMatch(refused.stderr, /cek_/);
    assert.equal(existsSync(path.join(dir, 'keys.json')), false, 'no key was made by the refused start');
    writeFileSync(file, '{"webhooks":[]}');
    const started = await spawnServer(['--port', '0', '--data-dir', dir]);
    assert.match(started.stderr(), /cek_[A-Za-z0-9_-]+/, 'the next start prints the first admin key');
    assert.equal(await started.stop(), 0);
  } finally {
    remove();
  }
});

test('a second server on the same data folder refuses to start, naming the owner', async () => {
  const { dir, remove } = tempDir();
  try {
    const first = await spawnServer(['--port', '0', '--data-dir', dir]);
    const second = runServer(['--port', '0', '--data-dir', dir]);
    assert.equal(second.status, 1);
    assert.match(second.stderr, new RegExp(String(first.child.pid)));
    assertJsonLines(second.stderr, /cannot start: /);
    assert.equal(await first.stop(), 0);
  } finally {
    remove();
  }
});

test('SIGTERM exits 0 and every acknowledged event is back after a restart', async () => {
  const { dir, remove } = tempDir();
  try {
    const key = runCli(['keys', 'create', '--name', 'Olivia', '--email', 'olivia@campus.edu', '--data-dir', dir]).stdout.trim();
    const server = await spawnServer(['--port', '0', '--data-dir', dir]);
    const created = await Promise.all(Array.from({ length: 20 }, (_, i) => post(server.url, key, { ...event, title: `Event ${i}` })));
    const ids = await Promise.all(created.map(async (response) => {
      assert.equal(response.status, 201);
      return ((await response.json()) as { id: string }).id;
    }));
    assert.equal(await server.stop('SIGTERM'), 0);
    const again = await spawnServer(['--port', '0', '--data-dir', dir]);
    for (const id of ids) {
      const response = await fetch(`${again.url}/events/${id}`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(response.status, 200, `event ${id} survived the restart`);
    }
    assert.equal(await again.stop(), 0);
  } finally {
    remove();
  }
});

test('a key created by the CLI while the server runs works within 2 s, and a revoked one is refused within 2 s', async () => {
  const { dir, remove } = tempDir();
  try {
    const server = await spawnServer(['--port', '0', '--data-dir', dir]);
    const created = runCli(['keys', 'create', '--name', 'Late Comer', '--email', 'late@campus.edu', '--json', '--data-dir', dir]);
    assert.equal(created.status, 0);
    const { key, id } = JSON.parse(created.stdout) as { key: string; id: string };
    const status = async (): Promise<number> => (await fetch(`${server.url}/events`, { headers: { authorization: `Bearer ${key}` } })).status;
    assert.ok(await waitFor(async () => (await status()) === 200, 2_000), 'the new key works within 2 s');
    assert.equal(runCli(['keys', 'revoke', id, '--data-dir', dir]).status, 0);
    assert.ok(await waitFor(async () => (await status()) === 401, 2_000), 'the revoked key is refused within 2 s');
    assert.equal(await server.stop(), 0);
  } finally {
    remove();
  }
});

test('a request whose body is still arriving at SIGTERM is finished, then the server exits 0', async () => {
  const { dir, remove } = tempDir();
  try {
    const key = runCli(['keys', 'create', '--name', 'Olivia', '--email', 'olivia@campus.edu', '--data-dir', dir]).stdout.trim();
    const server = await spawnServer(['--port', '0', '--data-dir', dir]);
    const body = JSON.stringify(event);
    const { port } = new URL(server.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(`POST /events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    server.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.write(body.slice(10));
    assert.equal(await server.exited, 0);
    assert.match(answer, /^HTTP\/1\.1 201 /, answer);
    socket.destroy();
  } finally {
    remove();
  }
});

test('a first start that cannot listen leaves no unseen admin key: the next start prints one', async () => {
  const { dir, remove } = tempDir();
  const blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  try {
    const failed = runServer(['--port', String((blocker.address() as net.AddressInfo).port), '--data-dir', dir]);
    assert.equal(failed.status, 1);
    const started = await spawnServer(['--port', '0', '--data-dir', dir]);
    assert.equal(await started.stop(), 0);
    assert.match(started.stderr(), /cek_[A-Za-z0-9]{39}/, 'the key is printed on the first start that listens');
  } finally {
    blocker.close();
    remove();
  }
});

test('a stop signal while the server starts is kept for the end of the start: the new admin key is printed, the stop is graceful, exit 0', async () => {
  const { dir, remove } = tempDir();
  try {
    // A log long enough that reading it takes a moment: the signal lands while it is read, before the key is made.
    let log = '';
    for (let n = 1; n <= 100_000; n++) log += encodePut(n, sampleRecord(n));
    writeFileSync(path.join(dir, 'events.jsonl'), log);
    const child = spawn(process.execPath, [SERVER, '--port', '0', '--data-dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let [stdout, stderr] = ['', ''];
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | string | null>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
    // The folder's LOCK is taken once the process runs its start, with its handlers in place.
    assert.ok(await waitFor(async () => existsSync(path.join(dir, 'LOCK')), 10_000), 'the start took the folder');
    child.kill('SIGTERM');
    assert.equal(await exited, 0, stderr);
    assert.equal(stdout, '', 'it never said it listens');
    const key = /cek_[A-Za-z0-9]{39}/.exec(stderr)?.[0];
    assert.ok(key, `the admin key made on this start is printed: ${stderr}`);
    assert.match(stderr, /"msg":"stopping","signal":"SIGTERM"/);
    assert.throws(() => readFileSync(path.join(dir, 'LOCK')), /ENOENT/, 'the folder is released');
    const again = await spawnServer(['--port', '0', '--data-dir', dir]);
    try {
      const listed = await fetch(`${again.url}/events?limit=1`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(listed.status, 200, 'the printed key works');
      assert.doesNotMatch(again.stderr(), /cek_/, 'and no other is made');
    } finally {
      assert.equal(await again.stop(), 0);
    }
  } finally {
    remove();
  }
});

test('SIGTERM before the service is loaded is kept for the end of the start: exit 0, the admin key printed', async () => {
  const { dir, remove } = tempDir();
  const hold = tempDir();
  try {
    // server.ts asks for run-server.js once it catches the stop signals; the hook holds that load until told to go.
    const child = spawn(process.execPath, ['--import', HOLD_RUN_SERVER, SERVER, '--port', '0', '--data-dir', dir], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HOLD_DIR: hold.dir } });
    let [stdout, stderr] = ['', ''];
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | string | null>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
    assert.ok(await waitFor(async () => existsSync(path.join(hold.dir, 'reached')), 10_000), `server.ts asks for the service: ${stderr}`);
    child.kill('SIGTERM');
    writeFileSync(path.join(hold.dir, 'go'), '');
    assert.equal(await exited, 0, stderr);
    assert.equal(stdout, '', 'it never said it listens');
    assert.match(stderr, /cek_[A-Za-z0-9]{39}/, 'the admin key made on this start is printed');
    assert.match(stderr, /"msg":"stopping","signal":"SIGTERM","when":"once started"/);
    assert.throws(() => readFileSync(path.join(dir, 'LOCK')), /ENOENT/, 'the folder is released');
  } finally {
    hold.remove();
    remove();
  }
});

test('the listening line names the host as configured', async () => {
  const { dir, remove } = tempDir();
  try {
    const server = await spawnServer(['--port', '0', '--host', 'localhost', '--data-dir', dir]);
    assert.match(server.url, /^http:\/\/localhost:\d+$/);
    assert.equal(await server.stop(), 0);
  } finally {
    remove();
  }
});

test('the started line names the data folder by its absolute path; a start after kill -9 warns that it took over the LOCK, naming the old pid', async () => {
  const { dir, remove } = tempDir();
  try {
    /** Starts the server in `dir` with the relative `--data-dir data`; its stderr lines once it listens, and the child. */
    const start = async (): Promise<{ child: ReturnType<typeof spawn>; lines: () => { msg: string; [field: string]: unknown }[] }> => {
      const child = spawn(process.execPath, [SERVER, '--port', '0', '--data-dir', 'data'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
      assert.ok(await waitFor(async () => out.includes('listening on'), 15_000), 'the server listened');
      return { child, lines: () => err.trimEnd().split('\n').map((line) => JSON.parse(line) as { msg: string }) };
    };
    const first = await start();
    const killed = new Promise((resolve) => first.child.on('exit', resolve));
    first.child.kill('SIGKILL');
    await killed;
    const second = await start();
    const exited = new Promise((resolve) => second.child.on('exit', resolve));
    second.child.kill('SIGTERM');
    await exited;
    const lines = second.lines();
    assert.equal(lines.find((line) => line.msg === 'started')?.['data_dir'], path.join(dir, 'data'));
    const takeover = lines.find((line) => line.msg.startsWith('took over the data folder'));
    assert.equal(takeover?.['pid'], first.child.pid, JSON.stringify(lines));
    assert.equal(takeover?.['level'], 'warn');
  } finally {
    remove();
  }
});

test('a server whose stderr reader goes away goes on serving, and stops with exit 0 on SIGTERM', async (t) => {
  const { dir, remove } = tempDir();
  t.after(remove);
  const child = spawn(process.execPath, [SERVER, '--port', '0', '--data-dir', dir, '--console', 'off'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  // A failed check must not leave the server running (and the test process waiting for it).
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  assert.ok(await waitFor(async () => /listening on /.test(out), 10_000), 'listening');
  const url = /listening on (\S+)/.exec(out)![1]!;
  // The reader of stderr closes its end: the server's next log lines meet EPIPE.
  child.stderr.destroy();
  for (let i = 0; i < 20; i++) {
    const response = await fetch(`${url}/health`).catch((error: unknown) => assert.fail(`${String(error)} ${String((error as { cause?: unknown }).cause)} exit ${child.exitCode} ${child.signalCode}`));
    assert.equal(response.status, 200, `request ${i + 1}`);
    await response.arrayBuffer();
    const denied = await fetch(`${url}/events`, { headers: { authorization: 'Bearer cek_wrong' } });
    assert.equal(denied.status, 401);
    await denied.arrayBuffer();
  }
  assert.equal(child.exitCode, null, 'still running');
  child.kill('SIGTERM');
  assert.equal(await exited, 0);
});

test('log lines that stderr does not take are dropped past a bound, not held in memory, and a line says how many once it reads again', { timeout: 120_000 }, async (t) => {
  const { dir, remove } = tempDir();
  t.after(remove);
  const child = spawn(process.execPath, [SERVER, '--port', '0', '--data-dir', dir, '--console', 'off'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  // A failed check must not leave the server running (and the test process waiting for it).
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  assert.ok(await waitFor(async () => /listening on /.test(out), 10_000), 'listening');
  const url = /listening on (\S+)/.exec(out)![1]!;
  // stderr is not read (its pipe holds 64 KiB): 12,000 requests make about 7 MB of request-log lines, each line as
  // long as a path, a client's X-Request-Id and a User-Agent make one (longer ones are clipped).
  const REQUESTS = 12_000;
  const headers = { 'x-request-id': 'r'.repeat(128), 'user-agent': 'u'.repeat(120) };
  await Promise.all(Array.from({ length: 20 }, async () => {
    for (let i = 0; i < REQUESTS / 20; i++) await (await fetch(`${url}/health?${'p'.repeat(192)}`, { headers })).arrayBuffer();
  }));
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  // Once the reader is back and what waited has drained, the next line is preceded by the count of those dropped.
  assert.ok(await waitFor(async () => {
    await (await fetch(`${url}/health`)).arrayBuffer();
    return /"msg":"log lines dropped: stderr was not read fast enough","lines":\d+/.test(err);
  }, 20_000), `a line counts what was dropped; stderr had ${err.length} bytes`);
  const dropped = Number(/"lines":(\d+)/.exec(err.slice(err.indexOf('log lines dropped')))![1]);
  const kept = err.split('\n').filter((line) => line.includes('"path":"/health?p')).length;
  assert.ok(dropped > 0 && kept < REQUESTS && kept + dropped >= REQUESTS, `every request's line kept or counted: dropped ${dropped}, kept ${kept}`);
  assert.ok(err.length < 6 * 1024 * 1024, `at most the bound waited: ${err.length} bytes`);
  child.kill('SIGTERM');
  assert.equal(await exited, 0);
});

test('a stop waits for stderr to take the log lines still waiting for it: the last line is "stopped", none cut in half', { timeout: 60_000 }, async (t) => {
  const { dir, remove } = tempDir();
  t.after(remove);
  const child = spawn(process.execPath, [SERVER, '--port', '0', '--data-dir', dir, '--console', 'off'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const stderrClosed = new Promise((resolve) => child.stderr.once('close', resolve));
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  assert.ok(await waitFor(async () => /listening on /.test(out), 10_000), 'listening');
  const url = /listening on (\S+)/.exec(out)![1]!;
  // Not read meanwhile: 2,000 request lines, about 400 KB, more than the pipe holds.
  for (let i = 0; i < 2000; i++) await (await fetch(`${url}/health`)).arrayBuffer();
  child.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 300));
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  assert.equal(await exited, 0);
  await stderrClosed;
  const lines = err.trimEnd().split('\n');
  for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), `a whole JSON line: ${line.slice(0, 200)}`);
  assert.equal(lines.filter((line) => line.includes('"path":"/health"')).length, 2000);
  assert.match(lines.at(-1)!, /"msg":"stopped"/);
});
