// KeyRegistry on a folder: a keys.json that becomes unreadable or goes missing while the server runs is reported to
// the operator once per state, and the keys in use are what an operator would want (the last good set for a broken
// file, none for a missing one), until the file is good again, which is reported too.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { createKey, KeyRegistry } from '../../src/auth/key-registry.js';
import { tempDir } from '../helpers/harness.js';

const deps = { randomBytes: (size: number) => new Uint8Array(size).fill(9), now: () => Date.UTC(2026, 0, 1) };

test('KeyRegistry.open(): a broken keys.json keeps the last good keys, a missing one refuses all, each said once, and the way back is said', async () => {
  const { dir, remove } = tempDir('campus-key-registry-');
  const warnings: string[] = [];
  const registry = await KeyRegistry.open(dir, { pollMs: 0, warn: (message, fields) => warnings.push(`${message} [${path.basename(fields['file'] ?? '')}]`) });
  try {
    const file = path.join(dir, 'keys.json');
    const first = await createKey(dir, { name: 'Ada', email: 'ada@campus.edu', role: 'admin' }, deps);
    await registry.refresh();
    assert.equal(registry.lookup(first.secret)?.name, 'Ada');
    const good = readFileSync(file, 'utf8');
    assert.deepEqual(warnings, []);

    writeFileSync(file, '{broken');
    await assert.rejects(registry.refresh());
    await assert.rejects(registry.refresh());
    assert.equal(warnings.length, 1, 'said once while the file stays as it is');
    assert.match(warnings[0]!, /keys\.json is not valid JSON .*; the keys read before stay in use until it is fixed \[keys\.json\]$/);
    assert.equal(registry.lookup(first.secret)?.name, 'Ada', 'the last good keys stay in use');

    rmSync(file);
    await registry.refresh();
    await registry.refresh();
    assert.equal(warnings.length, 2);
    assert.match(warnings[1]!, /^keys\.json is gone from the data folder: every key is refused until it is put back/);
    assert.equal(registry.lookup(first.secret), undefined, 'a missing file leaves no key in use');

    writeFileSync(file, good);
    await registry.refresh();
    assert.deepEqual(warnings.slice(2), ['keys.json is readable again: 1 keys in use [keys.json]']);
    assert.equal(registry.lookup(first.secret)?.name, 'Ada');
    await registry.refresh();
    assert.equal(warnings.length, 3, 'nothing more to say');
  } finally {
    registry.close();
    remove();
  }
});
