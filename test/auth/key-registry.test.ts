// KeyRegistry on a folder: a keys.json that becomes unreadable or goes missing while the server runs is reported to
// the operator once per state, and the keys in use are what an operator would want (the last good set for a broken
// file, none for a missing one), until the file is good again, which is reported too.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
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

test('KeyRegistry.fromSource(): an unknown key asks for a look only while the database answers; out of reach, it does not wait for a read bound to fail', async () => {
  let reads = 0;
  let away = false;
  const source = {
    read: async () => {
      reads++;
      if (away) throw new Error('the database cannot be reached');
      return [];
    },
    add: async () => undefined,
  };
  const registry = await KeyRegistry.fromSource(source, { pollMs: 0 });
  try {
    const before = reads;
    await registry.lookAgain();
    assert.equal(reads, before + 1, 'a look reads the keys');
    away = true;
    await registry.refresh();
    const whileAway = reads;
    await Promise.all([registry.lookAgain(), registry.lookAgain(), registry.lookAgain()]);
    assert.equal(reads, whileAway, 'no read while the last one failed');
    away = false;
    await registry.refresh();
    await registry.lookAgain();
    assert.equal(reads, whileAway + 2, 'back to a read per look once a read succeeds');
  } finally {
    registry.close();
  }
});

test('KeyRegistry.open(): an edit that keeps keys.json\'s size and modification time (cp -p, rsync -t) is read too', async () => {
  const { dir, remove } = tempDir('campus-key-registry-');
  const registry = await KeyRegistry.open(dir, { pollMs: 0 });
  try {
    const file = path.join(dir, 'keys.json');
    const key = await createKey(dir, { name: 'Ada', email: 'ada@campus.edu', role: 'admin' }, deps);
    utimesSync(file, 1_000_000_000, 1_000_000_000);
    await registry.refresh();
    assert.equal(registry.lookup(key.secret)?.name, 'Ada');
    const read = statSync(file).ctimeMs;
    const edited = readFileSync(file, 'utf8').replace('"Ada"', '"Bob"');
    // The file system stamps a change at its clock's grain (a few ms on some): edit until the stamp moved.
    do {
      await new Promise((resolve) => setTimeout(resolve, 5));
      writeFileSync(file, edited);
      utimesSync(file, 1_000_000_000, 1_000_000_000);
    } while (statSync(file).ctimeMs === read);
    await registry.refresh();
    assert.equal(registry.lookup(key.secret)?.name, 'Bob');
  } finally {
    registry.close();
    remove();
  }
});
