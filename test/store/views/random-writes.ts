// Shared by apply-record and change-history tests: a writer (WriteQueue) driven by seeded random writes of every kind,
// the log lines it made durable, what its history listeners heard, and the whole state of a set of views.
import assert from 'node:assert/strict';
import type { EventRecord } from '../../../src/events/event.js';
import { catchUp } from '../../../src/store/postgres/catch-up.js';
import { NO_CHECKPOINT } from '../../../src/store/postgres/checkpoint-table.js';
import type { Queryable } from '../../../src/store/postgres/client.js';
import { decodeLines, seqOfLine } from '../../../src/store/postgres/log-table.js';
import type { LogRecord, MetaRecord } from '../../../src/store/records/jsonl-record.js';
import type { Views } from '../../../src/store/views/apply-record.js';
import { ChangeHistory, type CommittedChange } from '../../../src/store/views/change-history.js';
import { ChangeLog } from '../../../src/store/views/change-log.js';
import { DocumentTable } from '../../../src/store/views/document-table.js';
import { EventIndex } from '../../../src/store/views/event-index.js';
import { IdempotencyTable } from '../../../src/store/views/idempotency-table.js';
import { RosterTable } from '../../../src/store/views/roster-table.js';
import { WriteQueue } from '../../../src/store/write/write-queue.js';
import { eventFields, eventId, sampleRecord } from '../helpers.js';
import { registrationId } from './roster-helpers.js';

type Random = () => number;
const EVENTS = 10;
const HOUR = 3_600_000;

/** Empty views, as both engines make them. */
export function emptyViews(): Views & { history: ChangeHistory } {
  const index = new EventIndex();
  return { index, rosters: new RosterTable(), changes: new ChangeLog((id) => index.get(id)), idempotency: new IdempotencyTable(), documents: new DocumentTable(), history: new ChangeHistory() };
}

/** A writer over its own views, the rows it made durable (one per line, as campus_log holds them), and what its listeners heard. */
export interface Writer {
  readonly views: Views & { history: ChangeHistory };
  readonly queue: WriteQueue;
  readonly clock: { now: number };
  /** The durable batches, each as campus_log rows. */
  readonly batches: { seq: number; line: string }[][];
  readonly heard: CommittedChange[];
}

export function newWriter(): Writer {
  const views = emptyViews();
  const clock = { now: Date.parse('2030-01-01T00:00:00.000Z') };
  const batches: { seq: number; line: string }[][] = [];
  const heard: CommittedChange[] = [];
  views.history.subscribe((changes) => heard.push(...changes));
  const queue = new WriteQueue({
    ...views,
    now: () => clock.now,
    nextSeq: 1,
    persist: async (text) => {
      batches.push(text.split('\n').filter((line) => line !== '').map((line) => ({ seq: seqOfLine(line), line })));
    },
  });
  return { views, queue, clock, batches, heard };
}

/** Every record of some rows, in order (a group row gives each of its members). */
export function recordsOf(batches: readonly (readonly { seq: number; line: string }[])[]): (LogRecord | MetaRecord)[] {
  return batches.flatMap((rows) => decodeLines(rows));
}

/** Applies durable batches to other views as another instance does: the PostgreSQL store's catch-up, batch by batch. */
export async function catchUpWith(views: Views, batches: readonly (readonly { seq: number; line: string }[])[], nowMs: number): Promise<void> {
  const db: Queryable = { query: () => Promise.reject(new Error('a catch-up given its rows reads nothing')) } as unknown as Queryable;
  let last = 0;
  const target = { views, now: () => nowMs, lastSeq: () => last, advance: (seq: number) => (last = seq), checkpoint: () => NO_CHECKPOINT, adopt: () => undefined, read: () => undefined };
  for (const rows of batches) {
    const page = { checkpoint: null, rows: rows.length, seq: rows.at(-1)?.seq ?? null, lines: rows.map((row) => (row.line.endsWith('\n') ? row.line : `${row.line}\n`)).join('') };
    await catchUp(db, target, [page]);
  }
}

function randomRecord(random: Random, n: number): EventRecord {
  const start = Date.UTC(2030, 0, 1) + Math.floor(random() * 400) * HOUR;
  return sampleRecord(n, {
    title: `Event ${n} ${Math.floor(random() * 1000)}`,
    capacity: Math.floor(random() * 4),
    start_time: new Date(start).toISOString(),
    end_time: new Date(start + HOUR).toISOString(),
    ...(random() < 0.2 ? { series_id: `ser_${String(n).padStart(22, '0')}` } : {}),
  });
}

/**
 * `rounds` rounds of 1–8 random writes queued at once (creates, updates that raise or lower the capacity, deletes,
 * registrations, cancellations, check-ins, group writes with documents; some under an Idempotency-Key), the clock
 * moving up to `hoursBetween` hours between rounds so remembered answers expire. Refused writes are part of the game.
 */
export async function randomWrites(random: Random, writer: Writer, rounds: number, hoursBetween = 30): Promise<void> {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  let next = writer.batches.length * 1000 + 1;
  for (let round = 0; round < rounds; round++) {
    writer.clock.now += Math.floor(random() * hoursBetween * HOUR);
    const writes: Promise<unknown>[] = [];
    for (let n = 1 + Math.floor(random() * 8); n > 0; n--) {
      const id = eventId(1 + Math.floor(random() * EVENTS));
      const idem = random() < 0.3 ? { key: `key-${next}`, keyId: pick(['k1', 'k2']), requestHash: `h${next}` } : undefined;
      const roll = random();
      const serial = next++;
      if (roll < 0.25) writes.push(writer.queue.write(id, (current) => (current === undefined || random() < 0.3 ? randomRecord(random, Number(id.slice(4))) : { ...randomRecord(random, Number(id.slice(4))), created_at: current.createdAt }), { idem }));
      else if (roll < 0.32) writes.push(writer.queue.write(id, (current) => {
        if (current === undefined) throw new TypeError(`no event ${id} to delete`);
        return null;
      }));
      else if (roll < 0.6) {
        const email = `p${Math.floor(random() * 12)}@campus.edu`;
        writes.push(writer.queue.changeRegistrations(id, (event, roster) => (event === undefined || roster.hasEmail(email) ? undefined : { op: 'register', registration: { id: registrationId(serial), name: `P ${serial}`, email } }), { idem }));
      } else if (roll < 0.75) {
        writes.push(writer.queue.changeRegistrations(id, (event, roster) => {
          const all = [...roster.values()];
          return event === undefined || all.length === 0 ? undefined : { op: 'cancel', id: pick(all).id };
        }));
      } else if (roll < 0.88) {
        writes.push(writer.queue.changeRegistrations(id, (event, roster) => {
          const confirmed = [...roster.values()].filter((registration) => registration.status === 'confirmed');
          return event === undefined || confirmed.length === 0 ? undefined : { op: 'checkIn', id: pick(confirmed).id };
        }));
      } else {
        const other = eventId(1 + Math.floor(random() * EVENTS));
        const doc = `ser_${String(1 + Math.floor(random() * 3)).padStart(22, '0')}`;
        writes.push(writer.queue.writeGroup((view) => ({
          events: [
            { id, record: view.event(id) !== undefined && random() < 0.3 ? null : randomRecord(random, Number(id.slice(4))) },
            ...(other === id ? [] : [{ id: other, record: randomRecord(random, Number(other.slice(4))) }]),
          ],
          documents: [{ collection: 'series', id: doc, json: view.document('series', doc) !== undefined && random() < 0.4 ? null : `{"n":${serial}}` }],
        })));
      }
    }
    // A refused write (a deleted event's absent registration, a document deleted twice) changes nothing.
    await Promise.all(writes.map((write) => write.catch(() => undefined)));
  }
}

/** A change as a reader compares it: the events by their fields, the time apart. */
export function changeFields(change: CommittedChange): Record<string, unknown> {
  return {
    seq: change.record.seq,
    op: change.record.op,
    before: eventFields(change.before),
    after: change.after === null ? null : eventFields(change.after),
    touched: change.touched,
  };
}

/** Asserts that two sets of views answer alike: events, rosters, the change feed, remembered answers, documents. */
export function assertSameViews(actual: Views, expected: Views, nowMs: number, where: string): void {
  const events = (views: Views) => [...views.index.values()].map(eventFields).sort((a, b) => (String(a!['id']) < String(b!['id']) ? -1 : 1));
  assert.deepEqual(events(actual), events(expected), `${where}: events`);
  assert.deepEqual(actual.index.list({ limit: 1000, page: 1 }).events.map((stored) => stored.id), expected.index.list({ limit: 1000, page: 1 }).events.map((stored) => stored.id), `${where}: list order`);
  for (let n = 1; n <= EVENTS; n++) {
    const a = actual.rosters.get(eventId(n));
    const e = expected.rosters.get(eventId(n));
    assert.deepEqual([...a.values()], [...e.values()], `${where}: roster of ${eventId(n)}`);
    assert.deepEqual([a.confirmed, a.waitlisted], [e.confirmed, e.waitlisted], `${where}: counts of ${eventId(n)}`);
  }
  const feed = (views: Views) => views.changes.after(0, 10_000).changes.map(({ seq, id, event }) => ({ seq, id, event: event === null ? null : eventFields(event) }));
  assert.deepEqual(feed(actual), feed(expected), `${where}: change feed`);
  assert.deepEqual([actual.changes.lastSeq, actual.changes.horizon, [...actual.changes.tombstones]], [expected.changes.lastSeq, expected.changes.horizon, [...expected.changes.tombstones]], `${where}: last seq, horizon, tombstones`);
  assert.deepEqual(actual.idempotency.live(nowMs), expected.idempotency.live(nowMs), `${where}: remembered answers`);
  assert.deepEqual(actual.documents.all(), expected.documents.all(), `${where}: documents`);
}
