// API.md §7: "Sequence numbers only grow from line to line (compaction keeps them, so gaps are normal)", in a compacted
// log too, where the remembered answers of Idempotency-Keys and the live series keep the seqs of the writes that made
// them: each goes where its seq falls, and one that shares its seq with another line goes out with it as one line.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { openApp, type App } from '../../src/app.js';
import type { FileStore } from '../../src/store/file/file-store.js';
import { call, eventBody, tempDir } from '../helpers/harness.js';

/** The top-level seq of every line of the data folder's log, in file order. */
function lineSeqs(dir: string): number[] {
  return readFileSync(path.join(dir, 'events.jsonl'), 'utf8').trimEnd().split('\n').map((line) => (JSON.parse(line) as { seq: number }).seq);
}

const FUTURE = { start_time: '2099-09-01T17:00:00Z', end_time: '2099-09-01T19:00:00Z' };

const open = (dir: string): Promise<App> => openApp({ dataDir: dir, keyPollMs: 0 }, { unsafeNoSync: true });

test('a compacted log whose answers and series share seqs with live lines: every line\'s seq greater than the one before, and every answer replayed after a restart', async (t) => {
  const { dir, remove } = tempDir();
  t.after(remove);
  let app = await open(dir);
  const key = app.initialAdminKey!;
  const post = (target: string, body: Record<string, unknown>, idem: string): ReturnType<typeof call> => call(app, 'POST', target, { key, body, headers: { 'Idempotency-Key': idem } });
  const series = { ...eventBody(FUTURE), time_zone: 'UTC', recurrence: 'FREQ=WEEKLY;COUNT=3' };
  const first: Record<string, Awaited<ReturnType<typeof call>>> = {};
  // Answers whose write is still the live line (an event unchanged since, a series unchanged, a waitlisted registration
  // whose line is its state), and answers whose write was superseded since (an event edited, a series edited).
  first['kept event'] = await post('/events', eventBody({ title: 'Kept', capacity: 1, ...FUTURE }), 'kept-event');
  first['edited event'] = await post('/events', eventBody({ title: 'Edited', ...FUTURE }), 'edited-event');
  first['kept series'] = await post('/series', series, 'kept-series');
  first['edited series'] = await post('/series', { ...series, title: 'Edited series' }, 'edited-series');
  const full = first['kept event']!.json.id as string;
  first['confirmed'] = await post(`/events/${full}/registrations`, { name: 'Cleo', email: 'cleo@campus.edu' }, 'confirmed');
  first['waitlisted'] = await post(`/events/${full}/registrations`, { name: 'Walt', email: 'walt@campus.edu' }, 'waitlisted');
  for (const answer of Object.values(first)) assert.equal(answer.status, 201, answer.text ?? '');
  await call(app, 'PUT', `/series/${first['edited series']!.json.id}`, { key, body: { location: 'Hall B' } });
  // Superseded lines enough that the compaction has much to drop.
  for (let n = 0; n < 20; n++) assert.equal((await call(app, 'PUT', `/events/${first['edited event']!.json.id}`, { key, body: { title: `Edited ${n}` } })).status, 200);
  await (app.store as FileStore).compact();

  const seqs = lineSeqs(dir);
  assert.ok(seqs.length < 20, `compacted: ${seqs.length} lines`);
  for (let i = 1; i < seqs.length; i++) assert.ok(seqs[i]! > seqs[i - 1]!, `line ${i + 1}'s seq ${seqs[i]} after ${seqs[i - 1]}: ${seqs.join(', ')}`);

  await app.close();
  app = await open(dir);
  const again = {
    'kept event': await post('/events', eventBody({ title: 'Kept', capacity: 1, ...FUTURE }), 'kept-event'),
    'edited event': await post('/events', eventBody({ title: 'Edited', ...FUTURE }), 'edited-event'),
    'kept series': await post('/series', series, 'kept-series'),
    'edited series': await post('/series', { ...series, title: 'Edited series' }, 'edited-series'),
    confirmed: await post(`/events/${full}/registrations`, { name: 'Cleo', email: 'cleo@campus.edu' }, 'confirmed'),
    waitlisted: await post(`/events/${full}/registrations`, { name: 'Walt', email: 'walt@campus.edu' }, 'waitlisted'),
  };
  for (const [what, answer] of Object.entries(again)) {
    assert.equal(answer.headers['Idempotent-Replayed'], 'true', what);
    assert.equal(answer.text, first[what]!.text, `${what}: the first answer`);
    assert.equal(answer.headers['ETag'], first[what]!.headers['ETag'], `${what}: its ETag`);
  }
  await app.close();
});
