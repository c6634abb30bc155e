// Compaction of the file store's log (API.md §7): what it writes, when it runs, writes racing it, and a crash or failure at each step.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it, test } from 'node:test';
import { ApiError } from '../../../src/http/errors.js';
import { openFileStore } from '../../../src/store/file/open-file-store.js';
import type { FileStore } from '../../../src/store/file/file-store.js';
import type { FileStoreOptions } from '../../../src/store/file/open-file-store.js';
import { COMPACTION_STEPS, compactionTempFile } from '../../../src/store/file/log-compaction.js';
import { eventFields, eventId, logLines, sampleRecord, tempDir, TestFileSystem } from '../helpers.js';
import { StoreUnavailable } from '../../../src/store/store-errors.js';
import { ReaderBehind } from '../../../src/store/views/change-history.js';

const NEVER = Number.MAX_SAFE_INTEGER;

/** Every live event as [id, json, seq], in list order. */
function snapshot(store: FileStore): [string, string, number][] {
  return store.list({ limit: 100_000, page: 1 }).events.map((stored) => [stored.id, stored.json, stored.seq]);
}

/** The seq of every line of a log file, in file order. */
function lineSeqs(file: string): number[] {
  return logLines(file).map((line) => (JSON.parse(line) as { seq: number }).seq);
}

function assertGrowing(seqs: number[]): void {
  for (let i = 1; i < seqs.length; i++) assert.ok(seqs[i]! > seqs[i - 1]!, `seq ${seqs[i]} follows ${seqs[i - 1]} at line ${i + 1}`);
}

/** Captures what the store logs. */
function recordingLogger(): { messages: string[]; info(message: string): void; warn(message: string): void } {
  const messages: string[] = [];
  return { messages, info: (message) => messages.push(message), warn: (message) => messages.push(`warn: ${message}`) };
}

/**
 * Writes from many callers at once, as requests would send them: creates, updates and deletes.
 * `expected` follows the acknowledgements only: the state a reopened store must hold.
 */
class Workload {
  readonly expected = new Map<string, string | null>();
  readonly pending = new Set<Promise<unknown>>();
  /** Live ids as sent (acknowledged or not), so a delete never targets an id already deleted. */
  readonly #sent: string[] = [];
  #next: number;
  #round = 0;
  readonly #store: FileStore;

  /** Creates get ids from `firstId` on. */
  constructor(store: FileStore, firstId = 0) {
    this.#store = store;
    this.#next = firstId;
  }

  /** Takes an event written outside the workload into the model. */
  adopt(id: string, title: string): void {
    this.expected.set(id, title);
    if (!this.#sent.includes(id)) this.#sent.push(id);
  }

  /** Sends `creates` creates, then an update and a delete of older events. */
  burst(creates: number): void {
    const round = this.#round++;
    for (let k = 0; k < creates; k++) {
      const n = this.#next++;
      this.#send(eventId(n), `Created ${n} in ${round}`);
      this.#sent.push(eventId(n));
    }
    const update = this.#sent[round % this.#sent.length];
    if (update !== undefined) this.#send(update, `Updated in ${round}`);
    if (this.#sent.length > 4) this.#send(this.#sent.splice(round % (this.#sent.length - 1), 1)[0]!, null);
  }

  #send(id: string, title: string | null): void {
    const write = this.#store.write(id, title === null ? () => null : () => sampleRecord(Number(id.slice(4)), { title }));
    const tracked = write.then(
      () => this.expected.set(id, title),
      () => undefined,
    );
    this.pending.add(tracked);
    void tracked.then(() => this.pending.delete(tracked));
  }

  /** Waits until every write sent (also while waiting) is acknowledged or refused, or `ms` pass (a frozen store never answers some). */
  async settle(ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.pending.size > 0 && Date.now() < deadline) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all([...this.pending]), new Promise((resolve) => (timer = setTimeout(resolve, Math.min(20, deadline - Date.now()))))]);
      clearTimeout(timer);
    }
  }

  /** Asserts `store` holds exactly the acknowledged state: every acknowledged write, nothing else. */
  check(store: FileStore): void {
    const live = new Map(snapshot(store).map(([id, json]) => [id, JSON.parse(json).title as string]));
    const wanted = new Map([...this.expected].filter((entry): entry is [string, string] => entry[1] !== null));
    assert.deepEqual(live, wanted);
  }
}

/** A store with 20 events each written 4 times (60 of 80 lines superseded), and a workload that knows them. */
async function supersededStore(dir: string, options: Partial<FileStoreOptions> = {}): Promise<{ store: FileStore; work: Workload }> {
  const store = await openFileStore({ dataDir: dir, compactMinBytes: NEVER, ...options });
  const work = new Workload(store, 20);
  for (let version = 0; version < 4; version++) {
    await Promise.all(Array.from({ length: 20 }, (_, n) => store.write(eventId(n), () => sampleRecord(n, { title: `Version ${version}` }))));
  }
  for (let n = 0; n < 20; n++) work.adopt(eventId(n), 'Version 3');
  return { store, work };
}

test('compact() rewrites the log as the live events in seq order, keeping their seqs, and a reopen finds the same state', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'events.jsonl');
  const { store, work } = await supersededStore(dir);
  await store.write(eventId(3), () => null);
  work.expected.set(eventId(3), null);
  const before = snapshot(store);
  const lastSeq = store.stats.lastSeq;
  assert.equal(store.stats.lines, 81);

  const result = await store.compact();
  // 19 live events, and the mark line at the delete's seq (the last one): the feed's horizon and the last seq survive.
  assert.deepEqual(result && { linesBefore: result.linesBefore, linesAfter: result.linesAfter }, { linesBefore: 81, linesAfter: 20 });
  assert.deepEqual(store.stats, { lines: 20, liveEvents: 19, liveRegistrations: 0, supersededLines: 1, bytes: fs.statSync(file).size, lastSeq });
  assert.deepEqual(snapshot(store), before);
  const seqs = lineSeqs(file);
  assertGrowing(seqs);
  assert.deepEqual(seqs, [...store.list({ limit: 100, page: 1 }).events.map((stored) => stored.seq), lastSeq].sort((a, b) => a - b));
  assert.equal(fs.existsSync(compactionTempFile(file)), false);

  const next = await store.write(eventId(100), () => sampleRecord(100));
  assert.equal(next!.seq, lastSeq + 1, 'the seq goes on from where it was');
  await store.close();
  const reopened = await openFileStore({ dataDir: dir });
  work.expected.set(eventId(100), 'Event 100');
  work.check(reopened);
  assert.equal(reopened.stats.lines, 21);
  await reopened.close();
});

describe('FileStore compacts by itself after a commit', () => {
  it('once the log is over compactMinBytes and more than half superseded, and not more often than needed', async (t) => {
    const logger = recordingLogger();
    const store = await openFileStore({ dataDir: tempDir(t), compactMinBytes: 2000, logger });
    for (let n = 0; n < 10; n++) await store.write(eventId(n), () => sampleRecord(n));
    assert.ok(store.stats.bytes > 2000, 'the live events alone are over the threshold');
    for (let n = 0; n < 10; n++) await store.write(eventId(n), () => sampleRecord(n, { title: 'First update' }));
    const compactionMessages = (): string[] => logger.messages.filter((message) => message.includes('compact'));
    assert.deepEqual(compactionMessages(), [], 'not while superseded lines are half of the log or fewer');
    await store.write(eventId(0), () => sampleRecord(0, { title: 'Second update' }));
    await store.compact();
    assert.deepEqual(compactionMessages(), ['compacting the event log', 'compacted the event log'], 'once the 11th of 21 lines is superseded');
    for (let round = 0; round < 20; round++) {
      for (let n = 0; n < 10; n++) await store.write(eventId(n), () => sampleRecord(n, { title: `Round ${round}` }));
    }
    await store.close();
    const compactions = logger.messages.filter((message) => message === 'compacted the event log').length;
    // 200 more updates of 10 events: a compaction each time superseded lines pass half, about every 11 writes
    // (fewer when a slow disk lets writes pile up while one runs: the upper bound is the promise).
    assert.ok(compactions >= 1 && compactions <= 21, `${compactions} compactions`);
    // The last one may have started just before close(), which abandons it (the log unchanged).
    const abandoned = logger.messages.filter((message) => message.startsWith('compaction abandoned')).length;
    assert.ok(abandoned <= 1, `${abandoned} compactions abandoned`);
    assert.equal(logger.messages.filter((message) => message === 'compacting the event log').length, compactions + abandoned);
  });

  it('counts the answers of Idempotency-Keys as kept: a log of mostly such answers is not compacted after every write', async (t) => {
    const logger = recordingLogger();
    let clock = Date.UTC(2026, 10, 29);
    const store = await openFileStore({ dataDir: tempDir(t), compactMinBytes: 8192, logger, now: () => (clock += 10) });
    // Each created with its own Idempotency-Key, edited twice, then deleted: the event is gone, its answer is kept for 24 hours.
    for (let n = 0; n < 60; n++) {
      await store.write(eventId(n), () => sampleRecord(n), { idem: { key: `key-${n}`, keyId: 'key_a', requestHash: 'h' } });
      for (const title of ['Edited', 'Edited again']) await store.write(eventId(n), () => sampleRecord(n, { title }));
      await store.write(eventId(n), () => null);
    }
    const compactions = (): number => logger.messages.filter((message) => message === 'compacted the event log').length;
    const before = compactions();
    assert.ok(before >= 1, 'the deletions made the log due once');
    for (let n = 60; n < 90; n++) await store.write(eventId(n), () => sampleRecord(n));
    assert.equal(compactions(), before, '30 creates with the answers still kept call for no compaction');
    assert.equal(store.stats.supersededLines * 2 <= store.stats.lines, true, `${store.stats.supersededLines} of ${store.stats.lines} lines superseded`);
    await store.close();
  });

  it('never while the log is under compactMinBytes, however superseded', async (t) => {
    const logger = recordingLogger();
    const store = await openFileStore({ dataDir: tempDir(t), compactMinBytes: 1_000_000, logger });
    for (let round = 0; round < 100; round++) await store.write(eventId(1), () => sampleRecord(1, { title: `Round ${round}` }));
    assert.equal(store.stats.supersededLines, 99);
    await store.close();
    assert.deepEqual(logger.messages.filter((message) => message.includes('compact')), []);
  });
});

test('writes arriving at every step of a compaction are neither lost nor reordered', async (t) => {
  const dir = tempDir(t);
  let work: Workload | undefined;
  const { store, work: initial } = await supersededStore(dir, {
    onCompactionStep: () => {
      work?.burst(3);
    },
  });
  work = initial;
  const compaction = store.compact();
  work.burst(3);
  const result = await compaction;
  assert.ok(result !== undefined && result.tailLines > 0, 'some lines were committed after the snapshot and copied');
  await work.settle();
  assert.equal(work.pending.size, 0);
  work.check(store);
  const lines = store.stats.lines;
  await store.close();
  const file = path.join(dir, 'events.jsonl');
  assertGrowing(lineSeqs(file));
  assert.equal(logLines(file).length, lines);
  const reopened = await openFileStore({ dataDir: dir });
  work.check(reopened);
  await reopened.close();
});

describe('a crash at each step of a compaction leaves one complete, correct log', () => {
  COMPACTION_STEPS.forEach((name, index) => {
    const step = index + 1;
    it(`crash before step ${step} (${name}): a new store finds every acknowledged write and nothing else`, async (t) => {
      const dir = tempDir(t);
      const file = path.join(dir, 'events.jsonl');
      let work: Workload | undefined;
      let reachedStep: () => void = () => undefined;
      const reached = new Promise<void>((resolve) => (reachedStep = resolve));
      // The crashed store stays frozen at that step, holding no LOCK, as a killed process would leave it.
      const { store, work: initial } = await supersededStore(dir, {
        lock: false,
        onCompactionStep: (at) => {
          work?.burst(2);
          if (at !== step) return undefined;
          reachedStep();
          return new Promise<void>(() => undefined);
        },
      });
      work = initial;
      const linesBefore = logLines(file).length;
      void store.compact();
      // Wait for the compaction to reach the step, so no burst of an earlier step's hook comes after the snapshot below.
      await reached;
      work.burst(2);
      // Before the pause, every write goes through; from it on, none is answered.
      await work.settle(step <= 4 ? 10_000 : 100);
      if (step <= 4) assert.equal(work.pending.size, 0);
      const committed = snapshot(store);
      assert.equal(fs.existsSync(compactionTempFile(file)), step >= 2 && step <= 7, 'a temporary file exists between its creation and its rename');

      const reopened = await openFileStore({ dataDir: dir });
      assert.deepEqual(snapshot(reopened), committed);
      work.check(reopened);
      assert.equal(fs.existsSync(compactionTempFile(file)), false, 'the leftover temporary file is removed');
      const lines = logLines(file);
      assertGrowing(lineSeqs(file));
      if (step >= 8) assert.ok(lines.length < linesBefore, `compacted: ${lines.length} lines, ${linesBefore} before`);
      else assert.ok(lines.length >= linesBefore, 'the old log, untouched but for appends');
      await reopened.write(eventId(999), () => sampleRecord(999));
      await reopened.close();
      const again = await openFileStore({ dataDir: dir });
      assert.equal(again.get(eventId(999))?.id, eventId(999));
      await again.close();
    });
  });
});

describe('a compaction that fails at a step', () => {
  COMPACTION_STEPS.forEach((name, index) => {
    const step = index + 1;
    const afterRename = step === 8 || step === 9;
    const outcome = afterRename ? 'refuses writes until restart' : 'leaves the log as it was and writes go on';
    it(`fails before step ${step} (${name}): ${outcome}`, async (t) => {
      const dir = tempDir(t);
      const file = path.join(dir, 'events.jsonl');
      let work: Workload | undefined;
      const logger = recordingLogger();
      const { store, work: initial } = await supersededStore(dir, {
        logger,
        onCompactionStep: (at) => {
          work?.burst(2);
          if (at === step) throw Object.assign(new Error(`injected failure at step ${step}`), { code: 'EIO' });
        },
      });
      work = initial;
      await assert.rejects(store.compact(), /injected failure/);
      await work.settle();
      assert.equal(work.pending.size, 0, 'every write sent is answered');
      assert.equal(fs.existsSync(compactionTempFile(file)), false);
      assert.equal(store.writable, !afterRename);
      if (afterRename) {
        await assert.rejects(store.write(eventId(500), () => sampleRecord(500)), (error) => error instanceof StoreUnavailable);
        assert.ok(logger.messages.some((message) => /^warn: compaction failed after renaming/.test(message)));
      } else {
        await store.write(eventId(500), () => sampleRecord(500));
        work.expected.set(eventId(500), 'Event 500');
        assert.ok(logger.messages.some((message) => /^warn: compaction failed; the log is intact and writes go on/.test(message)));
      }
      work.check(store);
      await store.close();
      const reopened = await openFileStore({ dataDir: dir });
      work.check(reopened);
      await reopened.close();
    });
  });

  it('fails when writing the temporary file fails (ENOSPC): the log is unchanged, writes go on, a reopen finds them', async (t) => {
    const dir = tempDir(t);
    const files = new TestFileSystem();
    const { store, work } = await supersededStore(dir, { fs: files });
    files.faults.failWriteAt = files.writes + 1;
    await assert.rejects(store.compact(), /ENOSPC/);
    assert.equal(store.writable, true);
    work.burst(3);
    await work.settle();
    work.check(store);
    await store.close();
    assert.equal(fs.existsSync(compactionTempFile(path.join(dir, 'events.jsonl'))), false);
    const reopened = await openFileStore({ dataDir: dir });
    work.check(reopened);
    assert.equal(reopened.stats.lines, 85);
    await reopened.close();
  });
});

test('close() during a compaction abandons it before the pause, and closes cleanly with the log unchanged', async (t) => {
  const dir = tempDir(t);
  let hold: Promise<void> | undefined;
  let release!: () => void;
  const { store, work } = await supersededStore(dir, {
    onCompactionStep: (at) => {
      if (at !== 3) return undefined;
      hold = new Promise((resolve) => (release = resolve));
      return hold;
    },
  });
  const compaction = store.compact();
  await new Promise((resolve) => setImmediate(resolve));
  while (hold === undefined) await new Promise((resolve) => setTimeout(resolve, 1));
  const closing = store.close();
  release();
  await assert.rejects(compaction, { name: 'CompactionAbandoned' });
  await closing;
  const reopened = await openFileStore({ dataDir: dir });
  work.check(reopened);
  assert.equal(reopened.stats.lines, 80);
  await reopened.close();
});

test('openFileStore() removes a half-written temporary file left by a crash, and the log is intact', async (t) => {
  const dir = tempDir(t);
  const { store, work } = await supersededStore(dir);
  await store.close();
  const file = path.join(dir, 'events.jsonl');
  fs.writeFileSync(compactionTempFile(file), logLines(file).slice(0, 3).join('') + '{"seq":99,"op":"pu');
  const logger = recordingLogger();
  const reopened = await openFileStore({ dataDir: dir, logger });
  assert.equal(fs.existsSync(compactionTempFile(file)), false);
  assert.ok(logger.messages.includes('warn: removed the temporary file of an interrupted compaction; the log itself is intact'));
  work.check(reopened);
  await reopened.close();
});

test('compact() keeps registrations: statuses, check-ins, counts and seqs survive it and a reopen (a confirmation included)', async (t) => {
  const dir = tempDir(t);
  const store = await openFileStore({ dataDir: dir });
  await store.write(eventId(1), () => sampleRecord(1, { capacity: 2 }));
  const register = (n: number) => store.changeRegistrations(eventId(1), () => ({ op: 'register', registration: { id: `reg_${String(n).padStart(22, '0')}`, name: `P ${n}`, email: `p${n}@x.edu` } }));
  for (const n of [1, 2, 3, 4]) await register(n);
  await store.changeRegistrations(eventId(1), () => ({ op: 'cancel', id: `reg_${'1'.padStart(22, '0')}` }));
  await store.changeRegistrations(eventId(1), () => ({ op: 'checkIn', id: `reg_${'3'.padStart(22, '0')}` }));
  await store.write(eventId(2), () => sampleRecord(2));
  const state = (s: typeof store) => ({ event: eventFields(s.get(eventId(1))), registrations: [...s.roster(eventId(1)).values()] });
  const before = state(store);
  await store.compact();
  assert.deepEqual(state(store), before);
  await store.close();
  const reopened = await openFileStore({ dataDir: dir });
  t.after(() => reopened.close());
  assert.deepEqual(state(reopened), before);
  assert.deepEqual(before.registrations.map((r) => `${r.name}:${r.status}:${r.checkedInAt === null ? '-' : 'in'}`), ['P 2:confirmed:-', 'P 3:confirmed:in', 'P 4:waitlisted:-']);
  assert.equal(reopened.stats.liveRegistrations, 3);
});

test('a compaction that fails before its rename never logs that it failed after renaming, even once writes are refused', async (t) => {
  const logger = recordingLogger();
  const files = new TestFileSystem({ noSync: true });
  let store: FileStore | undefined;
  const { store: opened } = await supersededStore(tempDir(t), {
    fs: files,
    logger,
    onCompactionStep: async (at) => {
      if (at !== 3) return;
      // A batch fails meanwhile (the disk filled), then the compaction's own fsync fails too.
      files.faults.failWriteAt = files.writes + 1;
      await store!.write(eventId(900), () => sampleRecord(900)).catch(() => undefined);
      throw Object.assign(new Error('ENOSPC: injected fsync failure'), { code: 'ENOSPC' });
    },
  });
  store = opened;
  await assert.rejects(store.compact(), /ENOSPC/);
  assert.equal(store.writable, false);
  const failures = logger.messages.filter((message) => message.includes('compaction failed'));
  assert.deepEqual(failures, ['warn: compaction failed before its rename; the log is intact']);
  await store.close();
});

for (const [how, lose] of [
  [
    'replaced',
    (file: string) => {
      fs.writeFileSync(`${file}.new`, 'an operator put this file here\n');
      fs.renameSync(`${file}.new`, file);
    },
  ],
  ['removed', (file: string) => fs.unlinkSync(file)],
] as const) {
  test(`events.jsonl ${how} while a compaction runs: the compaction is called off, so the check of the name finds it as it would without one`, async (t) => {
    const dir = tempDir(t);
    const file = path.join(dir, 'events.jsonl');
    const { store, work } = await supersededStore(dir, {
      // Before the rename, as an operator's command would land between the compaction's steps.
      onCompactionStep: (at) => {
        if (at === COMPACTION_STEPS.findIndex((step) => step.startsWith('rename it over events.jsonl')) + 1) lose(file);
      },
    });
    await assert.rejects(store.compact(), /the log lost its name while it was compacted/, 'called off');
    await store.checkLogName();
    if (how === 'replaced') assert.equal(fs.readFileSync(file, 'utf8'), 'an operator put this file here\n', 'the file under the name is left as it is');
    const kept = how === 'replaced' ? path.join(dir, fs.readdirSync(dir).find((name) => name.startsWith('events.jsonl.removed-'))!) : file;
    assert.equal(logLines(kept).length, 80, 'what was acknowledged is on disk, uncompacted');
    await assert.rejects(store.write(eventId(0), () => sampleRecord(0, { title: 'After' })), 'later writes are refused');
    await store.close();
    if (how === 'removed') {
      // Written back under its name: a start finds every acknowledged write.
      const reopened = await openFileStore({ dataDir: dir });
      work.check(reopened);
      await reopened.close();
    }
  });
}

test('a compaction a reader behind at the deadline called off is warned of once, and tried again once the reader caught up, though no write comes', async (t) => {
  const dir = tempDir(t);
  const logger = recordingLogger();
  const store = await openFileStore({ dataDir: dir, compactMinBytes: 2000, logger });
  // A reader (a webhook) delivering in good order, first too slowly for the compaction's wait.
  let behind = true;
  const handle = store.history.holdCompaction(
    () => (behind ? { reason: 'a webhook is delivering', lasting: false } : undefined),
    async () => {
      if (behind) throw new ReaderBehind('webhook whk_slow has not acknowledged the changes');
    },
  );
  for (let n = 0; !logger.messages.some((message) => message.startsWith('compaction abandoned')); n++) {
    assert.ok(n < 200, 'a compaction was started and called off');
    await store.write(eventId(n % 5), () => sampleRecord(n % 5, { title: `Version ${n}` }));
  }
  const lines = store.stats.lines;
  // Said once where the operator looks, however many writes come meanwhile.
  for (let n = 0; n < 20; n++) await store.write(eventId(n % 5), () => sampleRecord(n % 5, { title: `Later ${n}` }));
  assert.equal(logger.messages.filter((message) => message.startsWith('warn: a compaction was called off')).length, 1);
  behind = false;
  // The reader caught up and saved its position: the store looks again, with no write since.
  handle.recheck();
  for (let waited = 0; store.stats.lines >= lines; waited += 10) {
    assert.ok(waited < 5000, 'a compaction once the reader caught up');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await store.close();
});

test('compact() asked while the check of the log\'s name runs waits for it, and compacts (it answered undefined, as for a store that cannot write)', { timeout: 10_000 }, async (t) => {
  const dir = tempDir(t);
  const { store } = await supersededStore(dir);
  t.after(() => store.close());
  const check = store.checkLogName();
  const result = await store.compact();
  await check;
  assert.ok(result !== undefined && result.linesAfter < result.linesBefore);
});
