// compactLog over a file system in memory and a host that records what it is asked: the file written equals the obvious one
// (answers, documents, then events, registrations and the mark line merged in seq order, then the tail), every call in its
// step, and a failure at any call or step cleans up as the step says (COMPACTION_STEPS).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toStored } from '../../../src/store/views/served-event.js';
import type { StoredEvent } from '../../../src/events/event.js';
import { encodeDocument, encodeGroup, encodeIdempotency, encodeMark, encodeRegistrationState, encodeStored } from '../../../src/store/records/encode-record.js';
import type { StoredDocument } from '../../../src/store/records/jsonl-record.js';
import { CompactionAbandoned, compactLog, compactionTempFile, markOf, type CommittedState, type CompactionHost, type LogHandle } from '../../../src/store/file/log-compaction.js';
import type { Registration } from '../../../src/store/views/roster.js';
import type { IdempotencyEntry } from '../../../src/store/views/idempotency-table.js';
import { mulberry32 } from '../../helpers/random.js';
import { eventId, sampleRecord } from '../helpers.js';
import { registrationId } from '../views/roster-helpers.js';
import { RecordingFileSystem, type MemoryFaults } from './recording-file-system.js';

const SEED = Number(process.env.COMPACTION_SEED ?? Date.now() % 100_000);
const FILE = '/data/events.jsonl';
const TEMP = compactionTempFile(FILE);
const CHUNK_CHARS = 1024 * 1024;

/** A committed state as the store hands it over (without its log), with the old log and the lines appended while the snapshot is written. */
interface Case {
  state: Omit<CommittedState, 'log'>;
  /** Bytes and lines of the old log the snapshot covers. */
  old: string;
  oldLines: number;
  tail: string;
  tailLines: number;
  sync: boolean;
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

const TEXTS = ['Plain', 'Café "quoted" \\ back', '東京大学 lecture', 'tab\there', 'emoji 🎉', 'new\nline'];

function randomCase(random: () => number, size = 60): Case {
  const lastSeq = Math.floor(random() * size);
  const events: StoredEvent[] = [];
  const registrations: Registration[] = [];
  const tombstones = new Map<string, number>();
  const dead: number[] = [];
  for (let seq = 1; seq <= lastSeq; seq++) {
    const kind = random();
    if (kind < 0.4) events.push(toStored(sampleRecord(seq, { title: `${pick(random, TEXTS)} ${seq}`, description: pick(random, TEXTS) }), seq));
    else if (kind < 0.6) {
      registrations.push({
        id: registrationId(seq),
        eventId: eventId(Math.floor(random() * 9)),
        name: pick(random, TEXTS),
        email: `p${seq}@campus.example`,
        status: random() < 0.5 ? 'confirmed' : 'waitlisted',
        createdAt: '2026-08-02T10:00:00.000Z',
        checkedInAt: random() < 0.3 ? '2026-09-01T17:05:00.000Z' : null,
        seq,
      });
    } else if (kind < 0.8) tombstones.set(eventId(1000 + seq), seq);
    else dead.push(seq);
  }
  // A tombstone past the snapshot (a deletion committed after it) is not the snapshot's to drop.
  if (random() < 0.3) tombstones.set(eventId(5000), lastSeq + 1 + Math.floor(random() * 3));
  registrations.sort(() => random() - 0.5);
  const answers: IdempotencyEntry[] = [];
  for (let n = Math.floor(random() * 4); n > 0; n--) {
    const seq = 1 + Math.floor(random() * Math.max(1, lastSeq));
    answers.push({ key: `key ${n} ${pick(random, ['a', 'é', '~'])}`, keyId: `k${n}`, requestHash: `h${n}`, atMs: Date.UTC(2026, 7, 1, n), seq, answer: { kind: 'event', view: `{"title":"${pick(random, TEXTS).replace(/["\\\n\t]/g, '')}"}`, createdAt: '2026-08-01T12:00:00.000Z' } });
  }
  const documents: StoredDocument[] = [];
  for (let n = Math.floor(random() * 3); n > 0; n--) documents.push({ collection: 'series', id: `ser_${String(n).padStart(16, '0')}`, json: `{"n":${n},"t":${JSON.stringify(pick(random, TEXTS))}}`, seq: 1 + Math.floor(random() * Math.max(1, lastSeq)) });
  const horizon = dead.length > 0 && random() < 0.5 ? pick(random, dead) : undefined;
  const state: Omit<CommittedState, 'log'> = { events, registrations, lastSeq, tombstones, ...(horizon === undefined ? {} : { horizon }) };
  if (answers.length > 0 || random() < 0.5) state.answers = answers;
  if (documents.length > 0 || random() < 0.5) state.documents = documents;
  const oldLines = Math.floor(random() * 5);
  const tailLines = random() < 0.3 ? 0 : 1 + Math.floor(random() * 3);
  return {
    state,
    old: Array.from({ length: oldLines }, (_, n) => `old line ${n} ${pick(random, TEXTS)}\n`.replace(/\n(?=.)/g, ' ')).join(''),
    oldLines,
    tail: Array.from({ length: tailLines }, (_, n) => `tail line ${n} é\n`).join(''),
    tailLines,
    sync: random() < 0.5,
  };
}

/** The obvious mark: at the newest seq no live line holds, saying the newest deletion dropped (a horizon, or a tombstone up to the last seq). */
function plainMark(state: Omit<CommittedState, 'log'>): { seq: number; gone: number } | undefined {
  const live = [...state.events.map((event) => event.seq), ...state.registrations.map((registration) => registration.seq)];
  const free = Array.from({ length: state.lastSeq }, (_, n) => n + 1).filter((seq) => !live.includes(seq));
  if (free.length === 0) return undefined;
  const gone = Math.max(state.horizon ?? 0, ...[...(state.tombstones?.values() ?? [])].filter((seq) => seq <= state.lastSeq));
  return { seq: free[free.length - 1]!, gone };
}

/**
 * The snapshot's chunks of text as the obvious writer makes them: every line in seq order (answers and series at the
 * seqs of the writes that made them), the lines that share a seq as one group line (the kept ones first), a chunk
 * ending once it reaches CHUNK_CHARS.
 */
function plainChunks(state: Omit<CommittedState, 'log'>): { chunks: string[]; lines: number } {
  const mark = plainMark(state);
  const own: [number, string][] = [
    ...state.events.map((event): [number, string] => [event.seq, encodeStored(event)]),
    ...state.registrations.map((registration): [number, string] => [registration.seq, encodeRegistrationState(registration)]),
    ...(mark === undefined ? [] : [[mark.seq, encodeMark(mark.seq, mark.gone)] as [number, string]]),
  ];
  const kept: [number, string][] = [
    ...(state.answers ?? []).map((answer): [number, string] => [answer.seq, encodeIdempotency(answer)]),
    ...(state.documents ?? []).map((document): [number, string] => [document.seq, encodeDocument(document, 'docstate')]),
  ];
  const seqs = [...new Set([...own, ...kept].map(([seq]) => seq))].sort((a, b) => a - b);
  const atSeq = (lines: [number, string][], seq: number): string[] => lines.filter(([at]) => at === seq).map(([, line]) => line);
  let text = '';
  const chunks: string[] = [];
  for (const seq of seqs) {
    if (text.length >= CHUNK_CHARS) {
      chunks.push(text);
      text = '';
    }
    const together = [...atSeq(kept, seq), ...atSeq(own, seq)];
    text += together.length === 1 ? together[0]! : encodeGroup(together);
  }
  if (text !== '') chunks.push(text);
  return { chunks, lines: own.length + kept.length };
}

/** Every call a compaction that succeeds makes, in order, and the file and result it leaves. */
function plainRun(c: Case): { calls: string[]; file: string; result: object } {
  const { chunks, lines } = plainChunks(c.state);
  const calls = ['step 1', `open ${TEMP} w+`, 'step 2', 'committed'];
  let length = 0;
  for (const chunk of chunks) {
    const bytes = Buffer.byteLength(chunk);
    calls.push(`write ${TEMP} ${bytes}@${length}`, 'stopping');
    length += bytes;
  }
  const fsync = c.sync ? [`fsync ${TEMP}`] : [];
  const old = Buffer.byteLength(c.old);
  const tail = Buffer.byteLength(c.tail);
  calls.push('step 3', ...fsync, 'step 4', 'stopping', 'pause', 'step 5');
  if (tail > 0) calls.push(`read ${FILE} ${tail}@${old}`, `write ${TEMP} ${tail}@${length}`);
  const total = length + tail;
  calls.push('step 6', ...fsync, 'step 7', `rename ${TEMP} ${FILE}`, 'step 8', ...(c.sync ? ['syncDirectory /data'] : []), 'step 9');
  calls.push(`swap ${TEMP} ${total} ${lines + c.tailLines} ${c.state.lastSeq}`, `close ${FILE}`, 'step 10', 'resume');
  const result = { linesBefore: c.oldLines + c.tailLines, bytesBefore: old + tail, linesAfter: lines + c.tailLines, bytesAfter: total, tailLines: c.tailLines };
  return { calls, file: chunks.join('') + c.tail, result };
}

interface Misbehaviour {
  faults?: MemoryFaults;
  /** onStep throws at this step. */
  throwAt?: number;
  /** stopping() answers true from its Nth call on. */
  stopFrom?: number;
  /** pause() resolves with undefined (the store can no longer write). */
  unwritable?: boolean;
  /** resume() throws. */
  resumeThrows?: boolean;
  /** The host has no onStep hook (as in production). */
  noHook?: boolean;
}

/** Runs compactLog on a case, recording the host's calls among the file system's. */
async function run(c: Case, misbehave: Misbehaviour = {}): Promise<{ fs: RecordingFileSystem; outcome: unknown; logFd: number }> {
  const fs = new RecordingFileSystem(misbehave.faults);
  fs.put(FILE, c.old + c.tail);
  const logFd = fs.openQuietly(FILE);
  let stops = 0;
  const record = (call: string): void => void fs.calls.push(call);
  const host: Omit<CompactionHost, 'onStep'> & { onStep?: CompactionHost['onStep'] } = {
    fs,
    file: FILE,
    sync: c.sync,
    committed: () => {
      record('committed');
      return { ...c.state, registrations: [...c.state.registrations], log: { fd: logFd, length: Buffer.byteLength(c.old), lines: c.oldLines } };
    },
    pause: async () => {
      record('pause');
      return misbehave.unwritable === true ? undefined : { fd: logFd, length: Buffer.byteLength(c.old + c.tail), lines: c.oldLines + c.tailLines };
    },
    swap: (log: LogHandle, through: number) => record(`swap ${fs.pathOf(log.fd)} ${log.length} ${log.lines} ${through}`),
    resume: () => {
      record('resume');
      if (misbehave.resumeThrows === true) throw new Error('resume failed');
    },
    refuse: (error) => record(`refuse ${(error as Error).message}`),
    settle: () => Promise.resolve(),
    stopping: () => {
      record('stopping');
      return misbehave.stopFrom !== undefined && ++stops >= misbehave.stopFrom;
    },
    namesLog: () => Promise.resolve(true),
  };
  if (misbehave.noHook !== true) {
    host.onStep = (step) => {
      record(`step ${step}`);
      if (step === misbehave.throwAt) throw new Error(`thrown at step ${step}`);
    };
  }
  const outcome = await compactLog(host).catch((error: unknown) => error);
  return { fs, outcome, logFd };
}

test(`compactLog() writes the obvious file with every call in its step, for random committed states (COMPACTION_SEED=${SEED})`, async () => {
  const random = mulberry32(SEED);
  for (let round = 0; round < 150; round++) {
    const c = randomCase(random);
    const plain = plainRun(c);
    const { fs, outcome } = await run(c);
    const where = `seed ${SEED} round ${round}`;
    assert.deepEqual(outcome, plain.result, where);
    assert.deepEqual(fs.calls, plain.calls, where);
    assert.equal(fs.text(FILE), plain.file, where);
    assert.equal(fs.files.has(TEMP), false, where);
    assert.deepEqual(fs.openPaths(), [TEMP], `${where}: the new log stays open, the old one is closed`);
    assert.deepEqual(markOf(c.state), plainMark(c.state), where);
  }
});

/** The calls a compaction that fails at call `at` of a successful run makes: those up to it, then the cleanup its step needs. */
function failedCalls(success: string[], at: number, message: string, paused = success.indexOf('pause') < at): string[] {
  const done = (call: string): boolean => success.findIndex((entry) => entry.startsWith(call)) < at;
  const calls = success.slice(0, at + 1);
  if (!done('open')) return calls;
  if (done('swap')) return [...calls, 'resume'];
  if (done('rename')) return [...calls, `close ${TEMP}`, `refuse ${message}`, 'resume'];
  return [...calls, `close ${TEMP}`, `unlink ${TEMP}`, ...(paused ? ['resume'] : [])];
}

test(`compactLog() failing at any call or step cleans up as its step says: the old log untouched before the rename, writes refused after it (COMPACTION_SEED=${SEED})`, async () => {
  const random = mulberry32(SEED + 1);
  for (let round = 0; round < 12; round++) {
    const c = randomCase(random, 30);
    c.sync = round % 2 === 0;
    const plain = plainRun(c);
    const where = `seed ${SEED} round ${round}`;
    for (let at = 0; at < plain.calls.length; at++) {
      const call = plain.calls[at]!;
      const op = call.split(' ')[0]!;
      const nth = plain.calls.slice(0, at + 1).filter((entry) => entry.split(' ')[0] === op).length;
      let misbehave: Misbehaviour;
      let message: string;
      if (op === 'step') {
        misbehave = { throwAt: Number(call.split(' ')[1]) };
        message = `thrown at ${call}`;
      } else if (op === 'stopping') {
        misbehave = { stopFrom: nth };
        message = 'the store is closing';
      } else if (op === 'pause') {
        misbehave = { unwritable: true };
        message = 'the store can no longer write';
      } else if (['open', 'write', 'read', 'fsync', 'rename', 'syncDirectory'].includes(op)) {
        misbehave = { faults: { failAt: { [op]: nth } } };
        message = `EIO: injected ${op} failure`;
      } else continue;
      const { fs, outcome } = await run(c, misbehave);
      const what = `${where}, failing at ${call} (#${nth})`;
      assert.ok(outcome instanceof Error, `${what}: rejects`);
      assert.equal(outcome.message, message, what);
      assert.equal(outcome instanceof CompactionAbandoned, op === 'stopping' || op === 'pause', what);
      if (outcome instanceof CompactionAbandoned) assert.equal(outcome.name, 'CompactionAbandoned');
      assert.deepEqual(fs.calls, failedCalls(plain.calls, at, message, op === 'pause' || undefined), what);
      const renamed = plain.calls.indexOf(`rename ${TEMP} ${FILE}`) < at;
      assert.equal(fs.text(FILE), renamed ? plain.file : c.old + c.tail, `${what}: the log`);
      assert.equal(fs.files.has(TEMP), false, `${what}: no temporary file is left`);
      assert.deepEqual(fs.openPaths(), plain.calls.indexOf(`close ${FILE}`) < at ? [TEMP] : [FILE], `${what}: open files`);
    }
  }
});

test('compactLog() runs without a step hook, writes its temporary file beside the log, and resumes the queue once even when resuming throws', async () => {
  assert.equal(compactionTempFile('/data/x/events.jsonl'), '/data/x/events.jsonl.compact-tmp');
  const c = randomCase(mulberry32(5), 20);
  const plain = plainRun(c);
  const bare = await run(c, { noHook: true });
  assert.deepEqual(bare.outcome, plain.result);
  assert.deepEqual(bare.fs.calls, plain.calls.filter((call) => !call.startsWith('step')));
  assert.equal(bare.fs.text(FILE), plain.file);
  const resuming = await run(c, { resumeThrows: true });
  assert.equal((resuming.outcome as Error).message, 'resume failed');
  assert.deepEqual(resuming.fs.calls, plain.calls);
});

test('compactLog() goes on when closing the old log fails, and a failed cleanup does not hide the error that caused it', async () => {
  const c = randomCase(mulberry32(7), 20);
  const plain = plainRun(c);
  const closing = await run(c, { faults: { failAt: { close: 1 } } });
  assert.deepEqual(closing.outcome, plain.result);
  assert.deepEqual(closing.fs.calls, plain.calls);
  assert.equal(closing.fs.text(FILE), plain.file);

  const failing = await run(c, { faults: { failAt: { write: 1, close: 1, unlink: 1 } } });
  assert.equal((failing.outcome as Error).message, 'EIO: injected write failure');
  assert.deepEqual(failing.fs.calls.slice(-2), [`close ${TEMP}`, `unlink ${TEMP}`]);
  assert.equal(failing.fs.text(FILE), c.old + c.tail);
});

/** A registration of seq `seq` for the chunking tests. */
function registrationAt(seq: number): Registration {
  return { id: registrationId(seq), eventId: eventId(seq % 50), name: `Person ${seq} ${'é'.repeat(600)}`, email: `p${seq}@campus.example`, status: 'confirmed', createdAt: '2026-08-02T10:00:00.000Z', checkedInAt: null, seq };
}

test('compactLog() writes a snapshot of more than 1 MiB in chunks of at least 1 Mi characters, checking between chunks whether the store is closing, until every line of each kind is written', async () => {
  const random = mulberry32(11);
  const base = randomCase(random, 10);
  const long = `${'Long description é '.repeat(20)}`;
  // Seq 1 is free (the mark goes first); seqs 2–6001: events and registrations mixed, then the last 3,000 (over 1 Mi characters) of one kind only.
  for (const last of ['events', 'registrations'] as const) {
    const events: StoredEvent[] = [];
    const registrations: Registration[] = [];
    for (let seq = 2; seq <= 6001; seq++) {
      const kind = seq > 3001 ? last : seq % 3 === 0 ? 'registrations' : 'events';
      if (kind === 'events') events.push(toStored(sampleRecord(seq, { title: `Lecture ${seq} é東`, description: `${long}${seq}` }), seq));
      else registrations.push(registrationAt(seq));
    }
    const c: Case = { ...base, state: { events, registrations: registrations.reverse(), lastSeq: 6001, tombstones: new Map([[eventId(9999), 1]]) } };
    const plain = plainRun(c);
    const writes = plain.calls.filter((call) => call.startsWith(`write ${TEMP}`));
    assert.ok(writes.length >= 3, `${writes.length} chunks and the tail`);
    const { fs, outcome } = await run(c);
    assert.deepEqual(outcome, plain.result, last);
    assert.deepEqual(fs.calls, plain.calls, last);
    assert.equal(fs.text(FILE), plain.file, last);
  }
});

test('compactLog() ends a chunk that reaches exactly 1 Mi characters', async () => {
  const base = randomCase(mulberry32(13), 0);
  const answer = (view: string): IdempotencyEntry => ({ key: 'k', keyId: 'k1', requestHash: 'h1', atMs: Date.UTC(2026, 7, 1), seq: 1, answer: { kind: 'event', view, createdAt: '2026-08-01T12:00:00.000Z' } });
  const overhead = encodeIdempotency(answer('')).length;
  const exact = answer('x'.repeat(CHUNK_CHARS - overhead));
  assert.equal(encodeIdempotency(exact).length, CHUNK_CHARS);
  const c: Case = { ...base, state: { events: [toStored(sampleRecord(2), 2)], registrations: [], lastSeq: 2, answers: [exact] } };
  const plain = plainRun(c);
  assert.equal(plain.calls.filter((call) => call.startsWith(`write ${TEMP}`)).length, 2 + (c.tail === '' ? 0 : 1), 'the answer alone, then the rest');
  const { fs, outcome } = await run(c);
  assert.deepEqual(outcome, plain.result);
  assert.deepEqual(fs.calls, plain.calls);
  assert.equal(fs.text(FILE), plain.file);
});

test('compactLog() refuses a committed state out of seq order rather than write a log replay would stop at, leaving the old log', async () => {
  const base = randomCase(mulberry32(3), 0);
  const cases: [Omit<CommittedState, 'log'>, string][] = [
    [{ events: [toStored(sampleRecord(1), 5), toStored(sampleRecord(2), 3)], registrations: [], lastSeq: 5 }, 'compaction found seq 3 after seq 5: the live state is not in seq order'],
    [
      { events: [toStored(sampleRecord(1), 2)], registrations: [{ id: registrationId(1), eventId: eventId(1), name: 'A', email: 'a@campus.example', status: 'confirmed', createdAt: '2026-08-02T10:00:00.000Z', checkedInAt: null, seq: 2 }], lastSeq: 2 },
      'compaction found seq 2 after seq 2: the live state is not in seq order',
    ],
  ];
  for (const [state, message] of cases) {
    const { fs, outcome } = await run({ ...base, state });
    assert.equal((outcome as Error).message, message);
    assert.equal(fs.text(FILE), base.old + base.tail);
    assert.equal(fs.files.has(TEMP), false);
  }
});
