// WriteHealth: a failed write batch is remembered until one commits, and asks for a batch that writes nothing at most once a second.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Queryable } from '../../../src/store/postgres/client.js';
import { SCHEMA_VERSION } from '../../../src/store/postgres/schema.js';
import { WriteHealth } from '../../../src/store/postgres/write-health.js';

/** A database that answers the schema's version with `version.value`, counting the reads. */
function versionSource(version: { value: string | null; reads: number }): Queryable {
  return {
    query: <Row>() => {
      version.reads++;
      return Promise.resolve([{ version: version.value }] as Row[]);
    },
  };
}

const NO_DATABASE: Queryable = { query: () => Promise.reject(new Error('no database in this test')) };

test('a failure is kept until a batch commits, logged once each way, and a probe is due at most once a second meanwhile', () => {
  let now = 1_000_000;
  const lines: string[] = [];
  const health = new WriteHealth({ info: (message) => lines.push(`info ${message}`), warn: (message) => lines.push(`warn ${message}`) }, () => now, NO_DATABASE);
  assert.equal(health.reason, undefined);
  assert.equal(health.probeDue(), false, 'nothing failed: no probe');
  health.ended(Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' }), false);
  assert.equal(health.reason, 'the last write could not be committed: 55P03; trying again');
  health.ended(new Error('the answer to COMMIT was lost'), true);
  assert.equal(health.reason, 'the last write could not be committed: no answer; trying again', 'the newest failure is named');
  assert.equal(health.probeDue(), true);
  now += 999;
  assert.equal(health.probeDue(), false, '999 ms after the last probe');
  now += 1;
  assert.equal(health.probeDue(), true, '1000 ms after it');
  health.ended(undefined, false);
  assert.equal(health.reason, 'the last write could not be committed: no answer; trying again', 'a batch that wrote no row proves nothing (it never waits for a synchronous standby)');
  health.ended(undefined, true);
  assert.equal(health.reason, undefined);
  now += 5_000;
  assert.equal(health.probeDue(), false, 'writes commit: no probe');
  health.ended(undefined, true);
  assert.deepEqual(lines, ['warn a write could not be committed; /health says 503 until one is', 'info writes commit again']);
});

test('a suspicion (a rate-limit lease failed) asks for one probe, and only a failed probe turns /health to 503', () => {
  let now = 5_000_000;
  const health = new WriteHealth({ info: () => undefined, warn: () => undefined }, () => now, NO_DATABASE);
  health.suspect();
  assert.equal(health.reason, undefined, 'a suspicion alone is no failure');
  assert.equal(health.probeDue(), true);
  now += 2_000;
  assert.equal(health.probeDue(), false, 'one probe per suspicion');
  health.ended(undefined, true);
  assert.equal(health.reason, undefined);
  health.suspect();
  assert.equal(health.probeDue(), true);
  health.ended(Object.assign(new Error('cannot execute INSERT in a read-only transaction'), { code: '25006' }), false);
  assert.equal(health.reason, 'the last write could not be committed: 25006; trying again');
});

test('a schema made newer by another program refuses writes until it is ours again; it is read at most every 10 s, and a batch refused for it says so at once', async () => {
  let now = 1_000_000;
  const lines: string[] = [];
  const version = { value: String(SCHEMA_VERSION) as string | null, reads: 0 };
  const health = new WriteHealth({ info: (message) => lines.push(`info ${message}`), warn: (message) => lines.push(`warn ${message}`) }, () => now, versionSource(version));
  const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
  health.lookAtSchema();
  await settle();
  assert.deepEqual([version.reads, health.reason], [1, undefined]);

  version.value = String(SCHEMA_VERSION + 1);
  now += 9_999;
  health.lookAtSchema();
  await settle();
  assert.deepEqual([version.reads, health.reason], [1, undefined], 'not read again within 10 s');
  now += 1;
  health.lookAtSchema();
  await settle();
  assert.equal(version.reads, 2);
  assert.equal(health.reason, `the database's schema is version ${SCHEMA_VERSION + 1}, newer than this program's ${SCHEMA_VERSION}: a newer build migrated it while this instance ran, so this instance writes nothing more; stop it`);
  assert.equal(health.probeDue(), false, 'no probe: the look reads the version again');
  now += 10_000;
  health.lookAtSchema();
  await settle();
  assert.deepEqual(lines, ['warn writes are refused: a newer build migrated the database; stop this instance'], 'logged once');

  // Put back: the next look lets writes go again.
  version.value = String(SCHEMA_VERSION);
  now += 10_000;
  health.lookAtSchema();
  await settle();
  assert.equal(health.reason, undefined);
  assert.equal(lines.at(-1), "info the database's schema is this program's again; writes resume");

  // A missing or unreadable version blocks nothing (a damaged campus_meta is no newer program).
  for (const value of [null, '', 'six']) {
    version.value = value;
    now += 10_000;
    health.lookAtSchema();
    await settle();
    assert.equal(health.reason, undefined, String(value));
  }
});

test('a look at the schema that gets no answer is not joined by another', () => {
  let now = 1_000_000;
  let reads = 0;
  const silent: Queryable = { query: () => (reads++, new Promise(() => undefined)) };
  const health = new WriteHealth({ info: () => undefined, warn: () => undefined }, () => now, silent);
  health.lookAtSchema();
  now += 60_000;
  health.lookAtSchema();
  assert.equal(reads, 1);
  assert.equal(health.reason, undefined);
});
