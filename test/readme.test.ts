// The README's shell quick start and embedding example, run exactly as written so they cannot rot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, spawnServer, waitFor } from './helpers/spawn.js';
import { tempDir } from './helpers/harness.js';

const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** The first fenced block of `language` after `heading` that contains `marker`. */
function block(heading: string, language: string, marker: string): string {
  const section = readme.slice(readme.indexOf(heading));
  for (const match of section.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))) {
    if (match[1]!.includes(marker)) return match[1]!;
  }
  assert.fail(`README has no ${language} block with ${marker} after ${heading}`);
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

test('README calendar feed: a feed key made by the CLI, a subscription URL, and the feed it serves', { skip: spawnSync('curl', ['--version']).status !== 0 && 'curl is not installed' }, async () => {
  const { dir, remove } = tempDir();
  try {
    const server = await spawnServer(['--port', '0', '--data-dir', dir]);
    try {
      const script = block('### Calendar feed', 'sh', '--role feed').split('127.0.0.1:3000').join(new URL(server.url).host);
      const result = spawnSync('bash', ['-euo', 'pipefail', '-c', script], { cwd: ROOT, env: { ...process.env, DATA_DIR: dir }, encoding: 'utf8', timeout: 30_000 });
      assert.equal(result.status, 0, result.stderr);
      const [url] = result.stdout.split('\n');
      assert.match(url!, /^https:\/\/events\.campus\.edu\/events\.ics\?key=cek_[A-Za-z0-9]+$/, 'a URL to paste, with nothing to escape');
      // The URL as pasted, pointed at the test server, serves the calendar.
      const response = await fetch(url!.replace('https://events.campus.edu', server.url));
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'text/calendar; charset=utf-8');
      assert.match(result.stdout, /BEGIN:VCALENDAR\r\nVERSION:2\.0\r\n/, 'the curl check printed the calendar');
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
    assert.ok(existsSync(path.join(dir, 'LOCK')), 'the app holds the data folder');
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.ok(!existsSync(path.join(dir, 'LOCK')), 'close() released the data folder');
  } finally {
    child.kill('SIGKILL');
    rmSync(file, { force: true });
    remove();
  }
});

test('README verify, backup and restore commands work as written (with temporary folders for the paths)', async () => {
  const { dir, remove } = tempDir();
  const data = path.join(dir, 'data');
  const substitute = (script: string): string =>
    script
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
      const verify = bash(substitute(block('## Data and durability', 'sh', 'verify')));
      assert.equal(verify.status, 0, verify.stderr);
      assert.match(verify.stdout, /5/, 'verify counts the five events');
      const backup = bash(substitute(block('## Data and durability', 'sh', 'backup --out')));
      assert.equal(backup.status, 0, backup.stderr);
    } finally {
      assert.equal(await server.stop(), 0);
    }
    // The restore block ends by starting a server; the test starts it itself, on any port, to check it.
    const restoreLines = substitute(block('## Data and durability', 'sh', 'mkdir')).trim().split('\n');
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

test('README quick start ends by opening the console, and the console section shows two committed screenshots', () => {
  const quickStart = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1));
  assert.ok(quickStart.trimEnd().endsWith('open http://127.0.0.1:3000/'), 'the quick start ends with "open http://127.0.0.1:3000/"');
  const images = [...readme.matchAll(/!\[[^\]]+\]\((test\/console\/screenshots\/[^)]+\.png)\)/g)].map((match) => match[1]!);
  assert.equal(images.length, 2);
  for (const image of images) assert.ok(existsSync(path.join(ROOT, image)), `${image} exists`);
});

test('README change feed: follow-changes.mjs, pasted as written, keeps a copy in sync with live changes', async () => {
  const { dir, remove } = tempDir();
  const file = path.join(ROOT, `.readme-follow-${process.pid}.mjs`);
  writeFileSync(file, block('### Change feed', 'js', 'text/event-stream'));
  const server = await spawnServer(['--port', '0', '--data-dir', dir]);
  const key = /cek_[A-Za-z0-9]+/.exec(server.stderr())![0];
  const child = spawn(process.execPath, [file], { env: { ...process.env, BASE: server.url, KEY: key }, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    const post = async (): Promise<string> => {
      const response = await fetch(`${server.url}/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Live', category: 'social', location: 'L', start_time: '2030-03-01T17:00:00Z', end_time: '2030-03-01T19:00:00Z', capacity: 5 }),
      });
      return ((await response.json()) as { id: string }).id;
    };
    const first = await post();
    assert.ok(await waitFor(async () => stdout.includes(`seq 1: changed ${first}; 1 events`), 10_000), `the example did not get the first change; it printed: ${stdout}`);
    const second = await post();
    await fetch(`${server.url}/events/${first}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
    const synced = await waitFor(async () => stdout.includes(`seq 3: deleted ${first}; 1 events`), 10_000);
    assert.ok(synced, `the example did not follow the changes; it printed: ${stdout}`);
    assert.ok(stdout.includes(`seq 2: changed ${second}; 2 events`));
  } finally {
    child.kill('SIGKILL');
    await server.stop();
    rmSync(file, { force: true });
    remove();
  }
});

test('README safe retries: the same Idempotency-Key twice makes one event and replays the answer', { skip: spawnSync('curl', ['--version']).status !== 0 && 'curl is not installed' }, async () => {
  const { dir, remove } = tempDir();
  try {
    const server = await spawnServer(['--port', '0', '--data-dir', dir]);
    try {
      const key = /cek_[A-Za-z0-9]+/.exec(server.stderr())![0];
      const script = block('### Safe retries', 'sh', 'Idempotency-Key').split('127.0.0.1:3000').join(new URL(server.url).host);
      const result = spawnSync('bash', ['-euo', 'pipefail', '-c', script], { cwd: ROOT, env: { ...process.env, KEY: key }, encoding: 'utf8', timeout: 30_000 });
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stdout.match(/HTTP\/1\.1 201/g)?.length, 2);
      assert.equal(result.stdout.match(/Idempotent-Replayed: true/gi)?.length, 1);
      const bodies = result.stdout.split('\r\n\r\n').slice(1).map((part) => part.split('HTTP/1.1')[0]);
      assert.equal(bodies[0], bodies[1], 'the same body');
      const list = (await (await fetch(`${server.url}/events`, { headers: { authorization: `Bearer ${key}` } })).json()) as { total: number };
      assert.equal(list.total, 1);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  } finally {
    remove();
  }
});

test('README webhooks: the curl registers a webhook, the standardwebhooks receiver as written gets a verified message, and the by-hand check agrees', { skip: spawnSync('curl', ['--version']).status !== 0 && 'curl is not installed' }, async () => {
  const { dir, remove } = tempDir();
  // Under test/, so the receiver's `import ... from 'standardwebhooks'` resolves from test/node_modules, where it is installed.
  const receiverFile = path.join(ROOT, 'test', `.readme-receiver-${process.pid}.mjs`);
  const verifyFile = path.join(ROOT, `.readme-verify-${process.pid}.mjs`);
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = String((probe.address() as net.AddressInfo).port);
  await new Promise((resolve) => probe.close(resolve));
  const server = await spawnServer(['--port', '0', '--data-dir', dir, '--webhook-hosts', '127.0.0.1']);
  let receiver: ReturnType<typeof spawn> | undefined;
  try {
    const key = /cek_[A-Za-z0-9]+/.exec(server.stderr())![0];
    const script = block('### Webhooks', 'sh', '/webhooks').split('127.0.0.1:3000').join(new URL(server.url).host).split('4000').join(port);
    const result = spawnSync('bash', ['-euo', 'pipefail', '-c', script], { cwd: ROOT, env: { ...process.env, ADMIN_KEY: key }, encoding: 'utf8', timeout: 30_000 });
    assert.equal(result.status, 0, result.stderr);
    const secret = (JSON.parse(result.stdout) as { secret: string }).secret;
    writeFileSync(receiverFile, block('### Webhooks', 'js', 'standardwebhooks').split('4000').join(port));
    receiver = spawn(process.execPath, [receiverFile], { env: { ...process.env, WEBHOOK_SECRET: secret }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    receiver.stdout!.on('data', (chunk) => (stdout += chunk));
    await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }).then((r) => r.status === 401, () => false)), 10_000);
    const created = await fetch(`${server.url}/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Hooked', category: 'social', location: 'L', start_time: '2030-03-01T17:00:00Z', end_time: '2030-03-01T19:00:00Z', capacity: 5 }),
    });
    const id = ((await created.json()) as { id: string }).id;
    assert.ok(await waitFor(async () => stdout.includes(`event.created {"id":"${id}"`), 10_000), `the receiver printed: ${stdout}`);

    writeFileSync(verifyFile, `${block('### Webhooks', 'js', 'timingSafeEqual')}\nexport { verified };\n`);
    const { verified } = (await import(verifyFile)) as { verified: (secret: string, headers: Record<string, string>, body: string) => boolean };
    const { Webhook } = await import('standardwebhooks');
    const body = '{"type":"event.deleted","timestamp":"2030-03-01T17:00:00.000Z","data":{"id":"evt_0000000000000000"}}';
    const now = new Date();
    const headers = { 'webhook-id': 'msg_9_0', 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign('msg_9_0', now, body) };
    assert.equal(verified(secret, headers, body), true);
    assert.equal(verified(secret, headers, body.replace('deleted', 'created')), false);
  } finally {
    receiver?.kill('SIGKILL');
    await server.stop();
    rmSync(receiverFile, { force: true });
    rmSync(verifyFile, { force: true });
    remove();
  }
});
