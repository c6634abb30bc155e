// loadConsoleAssets(): reads the console's files once, with their content types and strong ETags.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CONSOLE_DIR, loadConsoleAssets, withConsoleSettings } from '../../src/console/console-assets.js';
import { tempDir } from '../helpers/harness.js';

test('loadConsoleAssets() serves .html, .css and .js with their content types, and nothing else in the folder', async () => {
  const { dir, remove } = tempDir();
  try {
    writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>x</title>');
    writeFileSync(path.join(dir, 'console.css'), 'body{}');
    writeFileSync(path.join(dir, 'main.js'), 'export {};');
    writeFileSync(path.join(dir, 'main.ts'), 'export {};');
    writeFileSync(path.join(dir, 'main.js.map'), '{}');
    writeFileSync(path.join(dir, 'icon.svg'), '<svg/>');
    writeFileSync(path.join(dir, 'tsconfig.json'), '{}');
    mkdirSync(path.join(dir, 'sub'));
    const assets = await loadConsoleAssets(dir);
    assert.deepEqual([...assets.keys()], ['console.css', 'icon.svg', 'index.html', 'main.js']);
    assert.equal(assets.get('icon.svg')!.contentType, 'image/svg+xml');
    assert.equal(assets.get('index.html')!.contentType, 'text/html; charset=utf-8');
    assert.equal(assets.get('console.css')!.contentType, 'text/css; charset=utf-8');
    assert.equal(assets.get('main.js')!.contentType, 'text/javascript; charset=utf-8');
    assert.equal(assets.get('main.js')!.body, 'export {};');
  } finally {
    remove();
  }
});

test('loadConsoleAssets() gives each file a strong ETag that changes exactly when its bytes do', async () => {
  const { dir, remove } = tempDir();
  try {
    writeFileSync(path.join(dir, 'a.js'), 'one');
    writeFileSync(path.join(dir, 'b.js'), 'one');
    const first = await loadConsoleAssets(dir);
    assert.match(first.get('a.js')!.etag, /^"[A-Za-z0-9_-]{27}"$/);
    assert.equal(first.get('a.js')!.etag, first.get('b.js')!.etag, 'the same bytes, the same tag');
    writeFileSync(path.join(dir, 'a.js'), 'two');
    const second = await loadConsoleAssets(dir);
    assert.notEqual(second.get('a.js')!.etag, first.get('a.js')!.etag);
  } finally {
    remove();
  }
});

test('loadConsoleAssets() on a missing folder gives no files instead of failing the start', async () => {
  const { dir, remove } = tempDir();
  remove();
  assert.equal((await loadConsoleAssets(path.join(dir, 'nowhere'))).size, 0);
});

test('CONSOLE_DIR is web/ beside the module, which the build fills in dist/console/web/', () => {
  assert.equal(path.basename(CONSOLE_DIR), 'web');
  assert.ok(existsSync(path.join(CONSOLE_DIR, 'index.html')), `${CONSOLE_DIR} holds index.html`);
});

test('withConsoleSettings() adds settings.json with the campus time zone (and approval when given), only to a folder that holds the console', async () => {
  const { dir, remove } = tempDir();
  try {
    writeFileSync(path.join(dir, 'main.js'), 'export {};');
    const bare = await loadConsoleAssets(dir);
    assert.equal(withConsoleSettings(bare, { timeZone: 'Asia/Kolkata' }).has('settings.json'), false, 'no index.html: the "make build" 404 stays');
    writeFileSync(path.join(dir, 'index.html'), '<!doctype html>');
    const settings = withConsoleSettings(await loadConsoleAssets(dir), { timeZone: 'Asia/Kolkata' }).get('settings.json')!;
    assert.deepEqual(JSON.parse(settings.body), { time_zone: 'Asia/Kolkata' });
    assert.equal(settings.contentType, 'application/json; charset=utf-8');
    assert.match(settings.etag, /^"[A-Za-z0-9_-]{27}"$/);
    const withApproval = withConsoleSettings(await loadConsoleAssets(dir), { timeZone: 'UTC', approval: 'required' }).get('settings.json')!;
    assert.deepEqual(JSON.parse(withApproval.body), { time_zone: 'UTC', approval: 'required' }, 'approval, when given, tells the console how to word a submit');
  } finally {
    remove();
  }
});
