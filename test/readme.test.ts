// The README's shell quick start, embedding example and backup commands, run exactly as written so they cannot rot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { connect } from 'node:net';
import { docBlock, section } from './helpers/docs.js';
import { ROOT, spawnServer, waitFor } from './helpers/spawn.js';
import { tempDir } from './helpers/harness.js';

/** The first fenced block of `language` under the README's `heading` that contains `marker`. */
function block(heading: string, language: string, marker: string): string {
  return docBlock('README.md', heading, language, marker);
}

test('README quick start: create a key, then create, list, update an event, register and cancel an attendee, create a term of lectures and move it to another room, and delete the event with curl, on a folder that already holds an earlier event', { skip: spawnSync('curl', ['--version']).status !== 0 && 'curl is not installed' }, async () => {
  const { dir, remove } = tempDir();
  try {
    const server = await spawnServer(['--port', '0', '--data-dir', dir]);
    try {
      // Someone else's event, earlier than the README's: the script must work on the one it created, not the first listed.
      const adminKey = /cek_[A-Za-z0-9]+/.exec(server.stderr())![0];
      const earlier = await fetch(`${server.url}/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Orientation', category: 'social', location: 'Quad', start_time: '2026-08-01T09:00:00Z', end_time: '2026-08-01T12:00:00Z', capacity: 500 }),
      });
      assert.equal(earlier.status, 201);
      // The only change: the address the test server got instead of the default port.
      const script = block('## Quick start', 'sh', 'keys create').split('127.0.0.1:3000').join(new URL(server.url).host);
      // With no ETag read (an HTTP/2 proxy's lower-case `etag:`, a failed HEAD), curl would send no If-Match at all and
      // the update would overwrite unchecked: the README's own line stops there instead.
      assert.ok(script.includes('"If-Match: ${ETAG:?'), 'the update sends If-Match with the ETag read, or stops');
      assert.ok(script.includes("sed -n 's/^etag: //Ip'"), 'the ETag is read whatever the case of its header name');
      const result = spawnSync('bash', ['-euo', 'pipefail', '-c', script], { cwd: ROOT, env: { ...process.env, DATA_DIR: dir }, encoding: 'utf8', timeout: 30_000 });
      assert.equal(result.status, 0, result.stderr);
      const outputs = result.stdout;
      assert.match(outputs, /"id":"evt_[0-9A-Za-z]{16,}"/, 'the create printed the event');
      assert.match(outputs, /"capacity":150,"registered_count":0/, 'the update printed the new capacity');
      assert.match(outputs, /id,name,email,status,created_at,checked_in_at\r\nreg_[0-9A-Za-z]{22},Grace Hopper,grace@campus\.edu,confirmed,/, 'the attendee list came as CSV');
      assert.equal(outputs.match(/HTTP\/1\.1 204/g)?.length, 2, 'the cancel and the delete answered 204');
      assert.match(outputs, /"recurrence":"FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20280211","exdates":\[\],"occurrence_count":34/, 'the term of lectures was created in one request');
      assert.match(outputs, /"start_time":"2027-10-28T08:00:00\.000Z".*"start_time":"2027-11-02T09:00:00\.000Z"/, 'its occurrences keep 10:00 Berlin time across the change to winter time');
      assert.match(outputs, /"location":"Hall B","capacity":120,"organizer"/, 'one room change for the whole term');
      assert.doesNotMatch(outputs, /"error"/, 'no request of the script failed');
    } finally {
      assert.equal(await server.stop(), 0);
    }
  } finally {
    remove();
  }
});

test('README quick start with approval: an organizer submits (pending, unseen by others), an admin approves it from the queue, and it is cancelled with a reason, on a server started with --approval required', { skip: spawnSync('curl', ['--version']).status !== 0 && 'curl is not installed' }, async () => {
  const { dir, remove } = tempDir();
  try {
    const server = await spawnServer(['--port', '0', '--data-dir', dir, '--approval', 'required']);
    try {
      const script = block('## Quick start', 'sh', 'approve').split('127.0.0.1:3000').join(new URL(server.url).host);
      const result = spawnSync('bash', ['-euo', 'pipefail', '-c', script], { cwd: ROOT, env: { ...process.env, DATA_DIR: dir }, encoding: 'utf8', timeout: 30_000 });
      assert.equal(result.status, 0, result.stderr);
      // curl prints no newline after a body: the answers follow each other on one line.
      const lines = result.stdout.trim().replace(/\}\{"/g, '}\n{"').split('\n').map((line) => JSON.parse(line) as Record<string, any>);
      assert.equal(lines.length, 4, result.stdout);
      const [submitted, queue, approved, cancelled] = lines as [Record<string, any>, Record<string, any>, Record<string, any>, Record<string, any>];
      assert.equal(submitted['status'], 'pending', 'the organizer\'s event waits for approval');
      assert.deepEqual(queue['events'].map((event: { id: string }) => event.id), [submitted['id']], 'the admin\'s queue holds it');
      assert.equal(approved['id'], submitted['id']);
      assert.equal('status' in approved, false, 'approved: published');
      assert.equal(cancelled['status'], 'cancelled');
      assert.equal(cancelled['cancellation_reason'], 'The hall is flooded');
    } finally {
      assert.equal(await server.stop(), 0);
    }
  } finally {
    remove();
  }
});

test('README embedding example runs as written, mounted under /api/campus', async () => {
  const { dir, remove } = tempDir();
  // Inside the package folder, so `import ... from 'campus-events'` resolves to this package's exports.
  const file = path.join(ROOT, `.readme-example-${process.pid}.mjs`);
  writeFileSync(file, block('## Embedding', 'js', 'createApp'));
  const child = spawn(process.execPath, [file], { env: { ...process.env, DATA_DIR: dir, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const port = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
        const match = /host listening on port (\d+)/.exec(stdout);
        if (match) resolve(match[1]!);
      });
      child.on('exit', (code) => reject(new Error(`example exited ${code}: ${stderr}`)));
    });
    const base = `http://127.0.0.1:${port}`;
    assert.equal(await (await fetch(`${base}/`)).text(), 'the host application\n');
    await waitFor(async () => /first admin key/.test(stderr), 2_000);
    const adminKey = /first admin key \(shown once\): (cek_[A-Za-z0-9]+)/.exec(stderr)?.[1];
    assert.ok(adminKey !== undefined, `the example shows the admin key it made: ${stderr}`);
    assert.equal((await fetch(`${base}/api/campus/v1/events`, { headers: { authorization: `Bearer ${adminKey}` } })).status, 200);
    // Keys for an embedded app: the CLI on its folder, while it runs.
    const made = spawnSync(process.execPath, [path.join(ROOT, 'dist/cli.js'), 'keys', 'create', '--name', 'Rita Reader', '--email', 'rita@campus.edu', '--role', 'reader', '--data-dir', dir], { encoding: 'utf8' });
    assert.equal(made.status, 0, made.stderr);
    const readerStatus = await (await fetch(`${base}/api/campus/events`, { headers: { authorization: `Bearer ${made.stdout.trim()}` } })).status;
    assert.equal(readerStatus, 200, 'the app honours a key the CLI made on its folder');
    const health = await fetch(`${base}/api/campus/health`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok' });
    const unauthenticated = await fetch(`${base}/api/campus/v1/events`);
    assert.equal(unauthenticated.status, 401);
    // What Node's own parser refuses gets the API's JSON error, through the example's clientError listener.
    const refused = await rawExchange(Number(port), 'GET /api/campus/events HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n');
    assert.match(refused, /^HTTP\/1\.1 400 [^\r]*\r\n[\s\S]*\r\n\r\n\{"error":"bad_request","message":"[^"]+"\}$/);
    const unknown = await fetch(`${base}/api/campus/nothing-here`);
    assert.equal(unknown.status, 404);
    assert.match(((await unknown.json()) as { message: string }).message, /see \/api\/campus\/openapi\.json for the paths/, 'a 404 points at the document where it is served');
    assert.ok(existsSync(path.join(dir, 'LOCK')), 'the app holds the data folder');
    // A change stream open (as the console's live updates keep one) must not hold the stop: the app ends it.
    const stream = await fetch(`${base}/api/campus/changes?since=0`, { headers: { authorization: `Bearer ${adminKey}`, accept: 'text/event-stream' } });
    assert.equal(stream.status, 200);
    const streamEnded = stream.text();
    // Nor an upload that stalled halfway: after the example's 10 s it is answered 503, and the host exits.
    const stalled = connect(Number(port), '127.0.0.1');
    let stalledAnswer = '';
    stalled.setEncoding('utf8').on('data', (chunk: string) => (stalledAnswer += chunk)).on('error', () => undefined);
    const body = JSON.stringify({ title: 'Half a body' });
    await new Promise<void>((resolve) => stalled.write(`POST /api/campus/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${adminKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`, () => resolve()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const stillRunning = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('still running 15 s after SIGTERM'), 15_000)));
    assert.equal(await Promise.race([exited, stillRunning]).finally(() => clearTimeout(timer)), 0);
    // Ended by the app, not cut: a reset connection would reject here.
    await streamEnded;
    assert.match(stalledAnswer, /^HTTP\/1\.1 503 /, `the stalled upload is answered: ${stalledAnswer}`);
    stalled.destroy();
    assert.ok(!existsSync(path.join(dir, 'LOCK')), 'close() released the data folder');
  } finally {
    child.kill('SIGKILL');
    rmSync(file, { force: true });
    remove();
  }
});

test('README verify, backup and restore commands work as written (with temporary folders for the paths, as the test\'s own user)', async () => {
  const { dir, remove } = tempDir();
  const data = path.join(dir, 'data');
  // The service's user is this test's: its chown and runuser go, and the backups' folder is the temporary one.
  const substitute = (script: string): string =>
    script
      .split('\n').filter((line) => !line.startsWith('chown ')).join('\n')
      .split('runuser -u campus-events -- ').join('')
      .split('install -d -o campus-events -g campus-events -m 700 /backups').join(`mkdir -p ${dir}`)
      .split('/var/lib/campus-events-restored').join(path.join(dir, 'restored'))
      .split('/var/lib/campus-events').join(data)
      .split('/backups/').join(`${dir}/`);
  const bash = (script: string) => spawnSync('bash', ['-euo', 'pipefail', '-c', script], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
  try {
    const server = await spawnServer(['--port', '0', '--data-dir', data]);
    const key = /cek_[A-Za-z0-9]+/.exec(server.stderr())![0];
    const ids: string[] = [];
    try {
      for (let i = 0; i < 5; i++) {
        const response = await fetch(`${server.url}/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ title: `Talk ${i}`, category: 'academic', location: 'Hall A', start_time: '2026-09-01T17:00:00Z', end_time: '2026-09-01T19:00:00Z', capacity: 10 }),
        });
        assert.equal(response.status, 201);
        ids.push(((await response.json()) as { id: string }).id);
      }
      const verify = bash(substitute(block('### Backups and restore', 'sh', 'verify')));
      assert.equal(verify.status, 0, verify.stderr);
      assert.match(verify.stdout, /5/, 'verify counts the five events');
      const backup = bash(substitute(block('### Backups and restore', 'sh', 'backup --out')));
      assert.equal(backup.status, 0, backup.stderr);
    } finally {
      assert.equal(await server.stop(), 0);
    }
    // The restore block ends by starting a server; the test starts it itself, on any port, to check it.
    const restoreLines = substitute(block('### Backups and restore', 'sh', 'mkdir')).trim().split('\n');
    assert.match(restoreLines.at(-1)!, /^node dist\/server\.js --data-dir /);
    const restore = bash(restoreLines.slice(0, -1).join('\n'));
    assert.equal(restore.status, 0, restore.stderr);
    const restored = await spawnServer(['--port', '0', '--data-dir', path.join(dir, 'restored')]);
    try {
      const adminKey = /cek_[A-Za-z0-9]+/.exec(restored.stderr())![0];
      for (const id of ids) {
        const response = await fetch(`${restored.url}/events/${id}`, { headers: { authorization: `Bearer ${adminKey}` } });
        assert.equal(response.status, 200, `${id} is in the restored folder`);
      }
    } finally {
      assert.equal(await restored.stop(), 0);
    }
  } finally {
    remove();
  }
});

test('README quick start ends by opening the console, and the console section shows committed screenshots, the phone list and the conflict screen among them', () => {
  const quickStart = section('README.md', '## Quick start');
  assert.ok(quickStart.trimEnd().endsWith('open http://127.0.0.1:3000/'), 'the quick start ends with "open http://127.0.0.1:3000/"');
  const images = [...section('README.md', '## The console').matchAll(/!\[[^\]]+\]\((test\/console\/screenshots\/[^)]+\.png)\)/g)].map((match) => match[1]!);
  assert.ok(images.length >= 4, `the two of the table, the phone list and the conflict screen, got ${images.join(', ')}`);
  assert.ok(images.includes('test/console/screenshots/conflict-1280.png'), 'the conflict screen is shown');
  assert.ok(images.includes('test/console/screenshots/phone-list-360.png'), 'the phone list is shown');
  for (const image of images) assert.ok(existsSync(path.join(ROOT, image)), `${image} exists`);
});

/** Sends `request` as raw bytes to 127.0.0.1:`port`; resolves with everything the server sent until it closed. */
function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(request));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}
