// The examples of docs/api.md (calendar subscription, change-feed follower, safe retries, webhook receivers), run as written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { docBlock } from '../helpers/docs.js';
import { ROOT, spawnServer, waitFor } from '../helpers/spawn.js';
import { tempDir } from '../helpers/harness.js';

/** The first fenced block of `language` under docs/api.md's `heading` that contains `marker`. */
function block(heading: string, language: string, marker: string): string {
  return docBlock('docs/api.md', heading, language, marker);
}

test('docs/api.md calendar feed: a feed key made by the CLI, a subscription URL, and the feed it serves', { skip: spawnSync('curl', ['--version']).status !== 0 && 'curl is not installed' }, async () => {
  const { dir, remove } = tempDir();
  try {
    const server = await spawnServer(['--port', '0', '--data-dir', dir]);
    try {
      const script = block('## Calendar feed', 'sh', '--role feed').split('127.0.0.1:3000').join(new URL(server.url).host);
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

test('docs/api.md change feed: follow-changes.mjs, pasted as written, keeps a copy in sync with live changes', async () => {
  const { dir, remove } = tempDir();
  const file = path.join(ROOT, `.api-doc-follow-${process.pid}.mjs`);
  writeFileSync(file, block('## Change feed', 'js', 'text/event-stream'));
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

test('docs/api.md safe retries: the same Idempotency-Key twice makes one event and replays the answer', { skip: spawnSync('curl', ['--version']).status !== 0 && 'curl is not installed' }, async () => {
  const { dir, remove } = tempDir();
  try {
    const server = await spawnServer(['--port', '0', '--data-dir', dir]);
    try {
      const key = /cek_[A-Za-z0-9]+/.exec(server.stderr())![0];
      const script = block('## Safe retries', 'sh', 'Idempotency-Key').split('127.0.0.1:3000').join(new URL(server.url).host);
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

test('docs/api.md webhooks: the curl registers a webhook, the standardwebhooks receiver as written gets a verified message, and the by-hand check agrees', { skip: spawnSync('curl', ['--version']).status !== 0 && 'curl is not installed' }, async () => {
  const { dir, remove } = tempDir();
  // Under test/, so the receiver's `import ... from 'standardwebhooks'` resolves from test/node_modules, where it is installed.
  const receiverFile = path.join(ROOT, 'test', `.api-doc-receiver-${process.pid}.mjs`);
  const verifyFile = path.join(ROOT, `.api-doc-verify-${process.pid}.mjs`);
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = String((probe.address() as net.AddressInfo).port);
  await new Promise((resolve) => probe.close(resolve));
  const server = await spawnServer(['--port', '0', '--data-dir', dir, '--webhook-hosts', '127.0.0.1']);
  let receiver: ReturnType<typeof spawn> | undefined;
  try {
    const key = /cek_[A-Za-z0-9]+/.exec(server.stderr())![0];
    // The receiver's port first, where the doc names it, so a server port that holds the digits 4000 is left whole.
    const script = block('## Webhooks', 'sh', '/webhooks').split('127.0.0.1:4000').join(`127.0.0.1:${port}`).split('127.0.0.1:3000').join(new URL(server.url).host);
    const result = spawnSync('bash', ['-euo', 'pipefail', '-c', script], { cwd: ROOT, env: { ...process.env, ADMIN: key }, encoding: 'utf8', timeout: 30_000 });
    assert.equal(result.status, 0, result.stderr);
    const secret = (JSON.parse(result.stdout) as { secret: string }).secret;
    writeFileSync(receiverFile, block('## Webhooks', 'js', 'standardwebhooks').split('listen(4000,').join(`listen(${port},`));
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

    writeFileSync(verifyFile, `${block('## Webhooks', 'js', 'timingSafeEqual')}\nexport { verified };\n`);
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
