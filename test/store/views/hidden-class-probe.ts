// Run by hidden-classes.test.ts under `node --allow-natives-syntax`: makes many objects of a kind the service keeps or
// reads on every request, the way the service makes them, and prints for each kind whether they all share one V8
// hidden class (a map). Node 20's V8 gives every `{ ...object, newField }` a hidden class of its own.
import { toRecord } from '../../../src/events/event.js';
import { decodeRecord } from '../../../src/store/records/decode-record.js';
import { encodeIdempotency } from '../../../src/store/records/encode-record.js';
import { localTime } from '../../../src/lib/time-zone.js';
import { DocumentTable } from '../../../src/store/views/document-table.js';
import { EventIndex } from '../../../src/store/views/event-index.js';
import { PendingChanges } from '../../../src/store/write/pending-changes.js';
import { RosterTable } from '../../../src/store/views/roster-table.js';
import { applyToRoster, planRosterChange } from '../../../src/store/write/roster-write.js';
import { toStored } from '../../../src/store/views/served-event.js';
import { eventId, sampleRecord } from '../helpers.js';
import { registrationId } from './roster-helpers.js';

const COUNT = 200;
// The natives syntax is not TypeScript: the function is made at run time, which the flag allows.
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b);') as (a: object, b: object) => boolean;
const allShareOne = (objects: readonly object[]): boolean => objects.every((object) => haveSameMap(object, objects[0]!));

const index = new EventIndex();
index.put(toStored(sampleRecord(1, { capacity: COUNT }), 1));
const pending = new PendingChanges<object>({ index, rosters: new RosterTable(), documents: new DocumentTable(), now: () => Date.parse('2030-01-01T00:00:00.000Z') });
const registrations: object[] = [];
for (let n = 0; n < COUNT; n++) {
  const planned = planRosterChange(eventId(1), () => ({ op: 'register', registration: { id: registrationId(n), name: `Attendee ${n}`, email: `a${n}@campus.edu` } }), 2 + 2 * n, pending, {});
  if ('answer' in planned) throw new Error('a registration was not planned');
  applyToRoster(pending.working(eventId(1), pending.queue(eventId(1), {}, planned.state)), planned);
  registrations.push(planned.registration);
}
const records = Array.from({ length: COUNT }, (_, n) => toRecord(toStored(sampleRecord(n + 1), n + 1)));
const times = Array.from({ length: COUNT }, (_, n) => localTime('Europe/Berlin', Date.UTC(2030, 0, 1) + n * 3_600_123));
// Remembered answers as replay reads them back from the idem lines compaction writes.
const remembered = Array.from({ length: COUNT }, (_, n) => {
  const line = encodeIdempotency({ key: `key-${n}`, keyId: 'key_probe', requestHash: 'h'.repeat(64), atMs: Date.UTC(2030, 0, 1), seq: n + 1, answer: { kind: 'event', view: toStored(sampleRecord(n + 1), n + 1).json, createdAt: '2030-01-01T00:00:00.000Z' } });
  const record = decodeRecord(Buffer.from(line), 0, Buffer.byteLength(line) - 1);
  if (typeof record === 'string' || record.op !== 'idem') throw new Error(`an idem line did not read back: ${String(record)}`);
  return record.entry;
});
process.stdout.write(`${JSON.stringify({ registrations: allShareOne(registrations), records: allShareOne(records), localTimes: allShareOne(times), remembered: allShareOne(remembered) })}\n`);
