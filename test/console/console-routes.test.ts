// The console's routes (API.md §10), in process: redirect, files without a key, headers, ETag and 304, 404s, and --console off.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createLogger } from '../../src/log/logger.js';
import { startHarness, tempDir, type Harness } from '../helpers/harness.js';
import { CONSOLE_HEADERS } from '../../src/console/console-routes.js';

let harness: Harness;
let files: { dir: string; remove: () => void };
const ICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>';

before(async () => {
  files = tempDir();
  writeFileSync(path.join(files.dir, 'index.html'), '<!doctype html><title>Campus events</title>');
  writeFileSync(path.join(files.dir, 'console.css'), 'body { margin: 0 }');
  writeFileSync(path.join(files.dir, 'main.js'), 'export {};');
  writeFileSync(path.join(files.dir, 'icon.svg'), ICON);
  harness = await startHarness({}, { consoleDir: files.dir });
});

after(async () => {
  await harness.close();
  files.remove();
});

function assertConsoleHeaders(headers: Record<string, string>): void {
  assert.equal(headers['Content-Security-Policy'], "default-src 'self'; frame-ancestors 'none'");
  assert.equal(headers['X-Content-Type-Options'], 'nosniff');
  assert.equal(headers['Referrer-Policy'], 'no-referrer');
}

test('GET / redirects (302) to /console/, and /console to /console/', async () => {
  for (const target of ['/', '/console']) {
    const response = await harness.request('GET', target);
    assert.equal(response.status, 302, target);
    assert.equal(response.headers['Location'], '/console/');
    assertConsoleHeaders(response.headers);
  }
});

test('/console/ and its files need no key and carry their content type, ETag, no-cache and the console headers', async () => {
  const expected: Record<string, [string, string]> = {
    '/console/': ['text/html; charset=utf-8', '<!doctype html><title>Campus events</title>'],
    '/console/console.css': ['text/css; charset=utf-8', 'body { margin: 0 }'],
    '/console/main.js': ['text/javascript; charset=utf-8', 'export {};'],
  };
  for (const [target, [type, body]] of Object.entries(expected)) {
    const response = await harness.request('GET', target);
    assert.equal(response.status, 200, target);
    assert.equal(response.headers['Content-Type'], type, target);
    assert.equal(response.text, body);
    assert.equal(response.headers['Cache-Control'], 'no-cache');
    assert.match(response.headers['ETag']!, /^"[A-Za-z0-9_-]+"$/);
    assertConsoleHeaders(response.headers);
    assert.equal(response.headers['RateLimit-Limit'], undefined, 'no key, no rate-limit headers');
  }
});

test('If-None-Match with the current ETag (strong or weak, or *) answers 304 with the headers and no body', async () => {
  const { headers } = await harness.request('GET', '/console/main.js');
  for (const tag of [headers['ETag']!, `W/${headers['ETag']}`, `"other", ${headers['ETag']}`, '*']) {
    const response = await harness.request('GET', '/console/main.js', { headers: { 'If-None-Match': tag } });
    assert.equal(response.status, 304, tag);
    assert.equal(response.headers['ETag'], headers['ETag']);
    assertConsoleHeaders(response.headers);
  }
  assert.equal((await harness.request('GET', '/console/main.js', { headers: { 'If-None-Match': '"stale"' } })).status, 200);
});

test('/favicon.ico is the console\'s SVG icon, with no key and under the same headers, so no first load logs a 404', async () => {
  for (const target of ['/favicon.ico', '/console/icon.svg']) {
    const response = await harness.request('GET', target);
    assert.equal(response.status, 200, target);
    assert.equal(response.headers['Content-Type'], 'image/svg+xml');
    assert.equal(response.text, ICON);
    assert.equal(response.headers['Cache-Control'], 'no-cache');
    assertConsoleHeaders(response.headers);
  }
});

test('/console/settings.json tells the console the campus time zone (UTC by default) and approval (off by default), and nothing else', async () => {
  const plain = await harness.request('GET', '/console/settings.json');
  assert.equal(plain.status, 200);
  assert.equal(plain.headers['Content-Type'], 'application/json; charset=utf-8');
  assert.deepEqual(plain.json, { time_zone: 'UTC', approval: 'off' });
  assertConsoleHeaders(plain.headers);
  const berlin = await startHarness({ timeZone: 'Europe/Berlin', approval: 'required' }, { consoleDir: files.dir });
  try {
    const response = await berlin.request('GET', '/console/settings.json');
    assert.deepEqual(response.json, { time_zone: 'Europe/Berlin', approval: 'required' });
    assert.notEqual(response.headers['ETag'], plain.headers['ETag'], 'another zone, another ETag');
  } finally {
    await berlin.close();
  }
});

test('HEAD works wherever GET does, and another method is a 405 listing GET', async () => {
  const head = await harness.request('HEAD', '/console/');
  assert.equal(head.status, 200);
  assert.equal(head.headers['Content-Type'], 'text/html; charset=utf-8');
  const post = await harness.request('POST', '/console/main.js', { body: {} });
  assert.equal(post.status, 405);
  assert.equal(post.headers['Allow'], 'GET, HEAD, OPTIONS');
});

test('every answer on a console path carries the console headers: 405, OPTIONS and 404 too', async () => {
  for (const [method, target, status] of [['POST', '/console/', 405], ['DELETE', '/console/main.js', 405], ['PUT', '/', 405], ['OPTIONS', '/console/', 204], ['OPTIONS', '/console/main.js', 204], ['OPTIONS', '/', 204], ['POST', '/favicon.ico', 405]] as const) {
    const response = await harness.request(method, target);
    assert.equal(response.status, status, `${method} ${target}`);
    assertConsoleHeaders(response.headers);
  }
  // An API path gets none of them.
  assert.equal((await harness.request('OPTIONS', '/events')).headers['Content-Security-Policy'], undefined);
});

test('a path the console has no file for is a 404 whatever the method (API.md §3: the path before the method)', async () => {
  for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'] as const) {
    const response = await harness.request(method, '/console/nope');
    assert.equal(response.status, 404, method);
    assertConsoleHeaders(response.headers);
  }
});

test('an unknown console file is a JSON 404 naming it, still with the console headers', async () => {
  for (const name of ['nope.js', 'main.ts', '..', '%2e%2e%2fpackage.json']) {
    const response = await harness.request('GET', `/console/${name}`);
    assert.equal(response.status, 404, name);
    assert.equal(response.json.error, 'not_found');
    assert.ok(response.json.message.includes(name), response.json.message);
    assertConsoleHeaders(response.headers);
  }
  assert.equal((await harness.request('GET', '/console/a/b.js')).status, 404);
});

test('GET /openapi.json documents the API, not the console pages', async () => {
  const paths = Object.keys((await harness.request('GET', '/openapi.json')).json.paths as Record<string, unknown>);
  assert.ok(paths.includes('/events'));
  assert.deepEqual(paths.filter((entry) => entry === '/' || entry === '/favicon.ico' || entry.startsWith('/console')), []);
});

test('the console headers are the ones API.md §10 lists', () => {
  assert.deepEqual(Object.keys(CONSOLE_HEADERS).sort(), ['Content-Security-Policy', 'Referrer-Policy', 'X-Content-Type-Options']);
});

test('with console: false, /, /console/ and its files are 404', async () => {
  const off = await startHarness({ console: false }, { consoleDir: files.dir });
  try {
    for (const target of ['/', '/console/', '/console/main.js', '/console/settings.json', '/favicon.ico']) {
      const response = await off.request('GET', target);
      assert.equal(response.status, 404, target);
      assert.equal(response.json.error, 'not_found');
    }
  } finally {
    await off.close();
  }
});

test('mounted under a base path, / redirects to the console under it, and the page is served there', async () => {
  const mounted = await startHarness({ basePath: '/api/campus' }, { consoleDir: files.dir });
  try {
    const redirect = await mounted.request('GET', '/api/campus/');
    assert.equal(redirect.status, 302);
    assert.equal(redirect.headers['Location'], '/api/campus/console/');
    assert.equal((await mounted.request('GET', '/api/campus/console/')).status, 200);
    assert.equal((await mounted.request('GET', '/console/')).status, 404);
  } finally {
    await mounted.close();
  }
});

test('a build without the console files says so in its 404, and warns once at start', async () => {
  const { dir, remove } = tempDir();
  let logged = '';
  const logger = createLogger({ level: 'warn', write: (text) => (logged += text) });
  const bare = await startHarness({ logger }, { consoleDir: path.join(dir, 'missing') });
  try {
    const response = await bare.request('GET', '/console/');
    assert.equal(response.status, 404);
    assert.match(response.json.message, /make build/);
    logger.flush();
    const warnings = logged.trimEnd().split('\n').map((line) => JSON.parse(line) as { level: string; msg: string });
    assert.deepEqual(warnings.filter((line) => line.msg.includes('no console files')).map((line) => line.level), ['warn']);
  } finally {
    await bare.close();
    remove();
  }
});
