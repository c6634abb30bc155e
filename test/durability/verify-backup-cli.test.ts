// `node dist/cli.js verify` and `backup` as a user runs them: reports, warnings, exit codes.
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from '../helpers/spawn.js';
import { encodeDelete, encodePut } from '../../src/store/records/encode-record.js';
import { sampleRecord } from '../store/helpers.js';
import { openApp } from '../../src/app.js';
import { call, eventBody, tempDir } from '../helpers/harness.js';

let root: string;
let remove: () => void;

before(() => {
  ({ dir: root, remove } = tempDir('campus-verify-cli-'));
});
after(() => remove());

/** A data folder whose log holds 3 puts of 2 events and a delete: 4 lines, 1 live event (a compaction writes it and a mark: 2 superseded). */
function folder(name: string, tail = ''): string {
  const dir = path.join(root, name);
  const lines = [encodePut(1, sampleRecord(1)), encodePut(2, sampleRecord(2)), encodePut(3, sampleRecord(1, { title: 'Renamed' })), encodeDelete(4, sampleRecord(2).id)];
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'events.jsonl'), lines.join('') + tail);
  return dir;
}

test('verify reports records, superseded records, live events and the last seq of a healthy log, and exits 0', () => {
  const dir = folder('healthy');
  const result = runCli(['verify', '--data-dir', dir]);
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stderr, '');
  assert.match(result.stdout, /events\.jsonl: healthy\n {2}records: 4 \(2 superseded; 0 Idempotency-Key answers, kept 24 h\)\n {2}live events: 1\n {2}live registrations: 0 \(registered_count of every event checked against them\)\n {2}live series: 0\n {2}last seq: 4\n/);
  const json = runCli(['verify', '--json', '--data-dir', dir]);
  assert.equal(json.status, 0);
  assert.deepEqual(JSON.parse(json.stdout), {
    ok: true,
    file: path.join(dir, 'events.jsonl'),
    exists: true,
    lines: 4,
    live_events: 1,
    live_registrations: 0,
    live_series: 0,
    remembered_answers: 0,
    superseded_lines: 2,
    last_seq: 4,
    bytes: readFileSync(path.join(dir, 'events.jsonl')).length,
    torn: null,
    compaction_temp_file: false,
  });
});

test('verify counts the Idempotency-Key answers younger than 24 h apart: compaction keeps them, so they are not superseded', async () => {
  const dir = path.join(root, 'answers');
  mkdirSync(dir);
  const app = await openApp({ dataDir: dir, keyPollMs: 0 }, { unsafeNoSync: true });
  const key = app.initialAdminKey!;
  // Two creates under keys, one of them edited since (its first line superseded, its answer still kept), one without.
  const first = await call(app, 'POST', '/events', { key, body: eventBody({ title: 'A' }), headers: { 'Idempotency-Key': 'a' } });
  await call(app, 'POST', '/events', { key, body: eventBody({ title: 'B' }), headers: { 'Idempotency-Key': 'b' } });
  await call(app, 'POST', '/events', { key, body: eventBody({ title: 'C' }) });
  await call(app, 'PUT', `/events/${first.json.id}`, { key, body: { title: 'A, renamed' } });
  await app.close();
  const report = JSON.parse(runCli(['verify', '--json', '--data-dir', dir]).stdout) as Record<string, number>;
  // A compaction would write 3 puts and 2 idem lines for these 4 lines: nothing to save.
  assert.deepEqual([report['lines'], report['live_events'], report['remembered_answers'], report['superseded_lines']], [4, 3, 2, 0]);
  assert.match(runCli(['verify', '--data-dir', dir]).stdout, /records: 4 \(0 superseded; 2 Idempotency-Key answers, kept 24 h\)/);
});

test('verify reports a torn tail with its line number as a warning and exits 0, changing nothing', () => {
  const dir = folder('torn', '{"seq":5,"op":"put","crea');
  const before = readFileSync(path.join(dir, 'events.jsonl'));
  const result = runCli(['verify', '--data-dir', dir]);
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /healthy up to a torn tail/);
  assert.match(result.stderr, /^warning: torn tail at line 5 \(byte offset \d+, 25 bytes to the end\): the last line is incomplete/);
  assert.deepEqual(readFileSync(path.join(dir, 'events.jsonl')), before);
  const report = JSON.parse(runCli(['verify', '--json', '--data-dir', dir]).stdout) as { ok: boolean; torn: { line: number } };
  assert.equal(report.torn.line, 5);
  assert.equal(report.ok, true, 'a torn tail is healthy, as the text form says');
});

test('verify names the damaged line and exits 1 when a bad line is followed by good ones', () => {
  const dir = folder('damaged');
  const file = path.join(dir, 'events.jsonl');
  writeFileSync(file, readFileSync(file, 'utf8').replace('Renamed', 'Renamex'));
  const result = runCli(['verify', '--data-dir', dir]);
  assert.equal(result.status, 1);
  assert.match(result.stderr, /line 3 \(byte offset \d+\) is damaged: the checksum does not match/);
  // What to do next, not "check it with verify", which this is.
  assert.match(result.stderr, /A server will not start on this log, so that no data is dropped silently; restore it from a backup/);
  assert.doesNotMatch(result.stderr, /with `verify`/);
  const json = runCli(['verify', '--json', '--data-dir', dir]);
  assert.equal(json.status, 1);
  const report = JSON.parse(json.stdout) as { ok: boolean; error: string };
  assert.equal(report.ok, false);
  assert.match(report.error, /line 3 \(byte offset \d+\) is damaged/);
});

test('verify of a folder without a log says so and exits 0; of a missing folder exits 1; a stray flag exits 2', () => {
  const empty = path.join(root, 'empty');
  mkdirSync(empty);
  const result = runCli(['verify', '--data-dir', empty]);
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /no event log yet/);
  const missing = runCli(['verify', '--data-dir', path.join(root, 'nowhere')]);
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /no data folder at .*nowhere/);
  assert.equal(runCli(['verify', '--out', 'x', '--data-dir', empty]).status, 2);
});

test('backup copies the whole lines, leaves out a torn tail, and never overwrites', () => {
  const dir = folder('to-back-up', '{"seq":5,"op":"put"');
  const out = path.join(root, 'copy.jsonl');
  const result = runCli(['backup', '--out', out, '--data-dir', dir]);
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /^backed up 4 records \(last seq 4, \d+ bytes\) of .* to .*copy\.jsonl; left out 19 bytes after the last whole line/);
  const log = readFileSync(path.join(dir, 'events.jsonl'));
  assert.deepEqual(readFileSync(out), log.subarray(0, log.length - 19));
  assert.equal(existsSync(`${out}.tmp`), false);

  appendFileSync(out, 'kept');
  const again = runCli(['backup', '--out', out, '--data-dir', dir]);
  assert.equal(again.status, 1);
  assert.match(again.stderr, /copy\.jsonl already exists; a backup never overwrites one/);
  assert.match(readFileSync(out, 'utf8'), /kept$/);
  assert.equal(runCli(['backup', '--data-dir', dir]).status, 2, 'no --out: a usage error');
});

test('cli --help lists verify and backup', () => {
  const result = runCli(['--help']);
  assert.equal(result.status, 0);
  assert.match(result.stdout, /\n {2}verify \[--json\]/);
  assert.match(result.stdout, /\n {2}backup --out FILE/);
});

test('backup into a folder that does not exist says so in words (exit 1), not with a raw ENOENT', () => {
  const dir = folder('to-back-up-nowhere');
  const out = path.join(root, 'missing', 'dir', 'x.jsonl');
  const result = runCli(['backup', '--out', out, '--data-dir', dir]);
  assert.equal(result.status, 1);
  assert.equal(result.stderr, `campus-events-cli: the folder of --out, ${path.dirname(out)}, does not exist; create it first (mkdir -p ${path.dirname(out)}) or choose another --out\n`);
  assert.doesNotMatch(result.stderr, /ENOENT|\.tmp/);
});
