// Registration lines (`reg`) read from their bytes against the obvious reader: JSON.parse of the line and the rules of
// API.md §8 checked field by field. Seeded random lines in the layout the encoder writes and in many others (fields
// reordered, spaces, escapes, extra fields, wrong values, real and impossible dates), each sealed with a good checksum:
// the decoder refuses exactly what the reference refuses and reads the rest as it does. REG_LINE_SEED=n replays.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { crc32, crc32Hex } from '../../../src/lib/crc32.js';
import { encodeRegister } from '../../../src/store/records/encode-record.js';
import type { LogRecord, MetaRecord } from '../../../src/store/records/jsonl-record.js';
import type { IdempotencyTag } from '../../../src/store/views/idempotency-table.js';
import type { Registration } from '../../../src/store/views/roster.js';
import { mulberry32 } from '../../helpers/random.js';
import { decode, recordSamples } from './random-records.js';

const SEED = Number(process.env['REG_LINE_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const random = mulberry32(SEED);
const { int, pick, text, eventIdOf, registrationIdOf, registration, tag, time } = recordSamples(random);

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A real UTC time from 1970 on in the log's form: what `new Date(x).toISOString()` gives back unchanged. */
function realTime(value: unknown): value is string {
  if (typeof value !== 'string' || !TIME.test(value)) return false;
  const ms = Date.parse(value);
  return ms >= 0 && new Date(ms).toISOString() === value;
}

function idemTagOf(token: unknown): IdempotencyTag | undefined {
  if (typeof token !== 'string') return undefined;
  const parts = token.split('.');
  const part = /^[A-Za-z0-9_-]{1,400}$/;
  if (parts.length !== 3 || !part.test(parts[0]!) || !/^[A-Za-z0-9_]{1,64}$/.test(parts[1]!) || !part.test(parts[2]!)) return undefined;
  const key = Buffer.from(parts[2]!, 'base64url').toString('latin1');
  return key.length >= 1 && key.length <= 255 ? { requestHash: parts[0]!, keyId: parts[1]!, key } : undefined;
}

/** The obvious reader of a reg line: the record it means, or undefined when a field is wrong. */
function reference(line: string): LogRecord | undefined {
  let fields: Record<string, unknown>;
  try {
    fields = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const { seq, event, reg } = fields;
  if (typeof seq !== 'number' || typeof event !== 'string' || !/^evt_[0-9A-Za-z]{16,}$/.test(event)) return undefined;
  if (typeof reg !== 'object' || reg === null) return undefined;
  const { id, name, email, status, created_at: createdAt, seq: own } = reg as Record<string, unknown>;
  if (typeof id !== 'string' || !/^reg_[0-9A-Za-z]{22,64}$/.test(id)) return undefined;
  if (typeof name !== 'string' || typeof email !== 'string' || !email.includes('@')) return undefined;
  if (status !== 'confirmed' && status !== 'waitlisted') return undefined;
  if (!realTime(createdAt)) return undefined;
  if (typeof own !== 'number' || !Number.isSafeInteger(own) || own < 1 || own > seq) return undefined;
  const registration: Registration = { id, eventId: event, name, email, status, createdAt, checkedInAt: null, seq: own };
  if (!('idem' in fields)) return { seq, op: 'reg', registration };
  const idem = idemTagOf(fields['idem']);
  return idem === undefined ? undefined : { seq, op: 'reg', registration, idem };
}

function sealed(head: string): string {
  return `${head},"crc":"${crc32Hex(crc32(`${head}}`))}"}\n`;
}

/** Wrong or unusual values for each field of `reg` (the usual ones are drawn more often). */
const VARIANTS: Record<string, () => unknown> = {
  id: () => pick([registrationIdOf(), registrationIdOf(), 'reg_short', `reg_${'0'.repeat(65)}`, `Reg_${'0'.repeat(22)}`, 7, null]),
  name: () => pick([text(0, 12, false), text(0, 12), text(1, 4) + '"', '', 5, null, ['n']]),
  email: () => pick([`${text(1, 8, false)}@${text(1, 8, false)}`, `${text(1, 8)}@${text(1, 8)}`, 'no-at-sign', '@', '', 5]),
  status: () => pick(['confirmed', 'waitlisted', 'confirmed', 'waitlisted', 'Confirmed', 'confirmedx', 'waitlist', 'cancelled', 'unassigned', '', 0]),
  created_at: () => pick([time(), time(), time(), '2026-02-29T00:00:00.000Z', '2028-02-29T23:59:59.999Z', '2026-13-01T00:00:00.000Z', '2026-04-31T00:00:00.000Z', '2026-01-01T24:00:00.000Z', '2026-01-01T00:60:00.000Z', '1969-12-31T23:59:59.999Z', 'abcd-ef-ghTij:kl:mn.opqZ', '2026-01-01T00:00:00.000Zx', '2026-01-01T00:00:00Z', 5]),
  seq: () => pick([1, 2, 'line', 'line', 'line+1', 0, -1, 1.5, '1', 2 ** 53]),
};

/** A reg line in the encoder's layout, then changed at the JSON level: values, field order, extra fields. */
function randomLine(): string {
  const lineSeq = int(1, 2 ** 40);
  const own = registration(int(1, lineSeq), random() < 0.5, false);
  const idem = random() < 0.2 ? tag() : undefined;
  const line = encodeRegister(own, own.seq + int(0, 1) <= lineSeq ? lineSeq : own.seq, idem);
  if (random() < 0.3) return line;
  const fields = JSON.parse(line) as Record<string, any>;
  delete fields['crc'];
  const reg = fields['reg'] as Record<string, unknown>;
  for (const key of Object.keys(VARIANTS)) {
    if (random() < 0.25) {
      const value = VARIANTS[key]!();
      reg[key] = value === 'line' ? fields['seq'] : value === 'line+1' ? fields['seq'] + 1 : value;
    }
  }
  if (random() < 0.1) fields['event'] = pick(['evt_short', eventIdOf().toLowerCase().replace('evt_', 'EVT_'), `${eventIdOf()}!`, 5]);
  if (random() < 0.1) reg['checked_in_at'] = pick([null, time()]);
  if (random() < 0.05) delete reg[pick(Object.keys(VARIANTS))];
  if (random() < 0.05) fields['idem'] = pick(['x', 5, `${tag().requestHash}.key.`]);
  let order = Object.keys(reg);
  if (random() < 0.15) order = order.sort(() => random() - 0.5);
  // A key renamed to another of the same length (the byte path must not read a field by its place alone).
  const renamed = (key: string): string => (random() < 0.04 ? pick([key.toUpperCase(), `${key.slice(0, -1)}_`, `x${key.slice(1)}`]) : key);
  const sortedReg = Object.fromEntries(order.map((key) => [renamed(key), reg[key]]));
  const { seq, op, ...rest } = fields;
  let top = Object.entries({ ...rest, reg: sortedReg });
  if (random() < 0.1) top = top.reverse();
  let head = JSON.stringify({ seq, op, ...Object.fromEntries(top.map(([key, each]) => [key === 'reg' ? key : renamed(key), each])) }).slice(0, -1);
  if (random() < 0.05) head = head.replace('"reg":{', '"re\\u0067":{');
  if (random() < 0.05) head = head.replace('"event":', '"ev\\u0065nt":');
  if (random() < 0.05) head = head.replace('"reg":{', '"Reg":{');
  // A raw control character inside the name or the e-mail: not JSON, so refused.
  if (random() < 0.05) head = head.replace(pick(['"name":"', '"email":"']), (key) => key + pick(['\u0001', '\t', '\n', '\u001f']));
  // A space or tab after a colon inside `reg` (the line's own head, `{"seq":N,"op":"reg"`, has one spelling).
  const regAt = head.indexOf('"reg":{');
  if (random() < 0.1) head = head.slice(0, regAt) + head.slice(regAt).replace(/":(?=["\d{])/, pick(['": ', '":\t']));
  return sealed(head);
}

test(`a reg line reads as JSON.parse and §8's rules read it, on the byte path and off it: 3,000 seeded random lines (REG_LINE_SEED=${SEED})`, () => {
  let read = 0;
  for (let n = 0; n < 3000; n++) {
    const line = randomLine();
    const expected = reference(line);
    const decoded: LogRecord | MetaRecord | string = decode(line, n % 4);
    if (expected === undefined) assert.equal(typeof decoded, 'string', `line ${n} must be refused: ${line} read as ${JSON.stringify(decoded)}`);
    else {
      assert.deepEqual(decoded, expected, `line ${n}: ${line}`);
      read++;
    }
  }
  assert.ok(read > 900 && read < 2700, `${read} of 3,000 read`);
});

test('the byte path refuses a reg line whose seq of its own is not a plain positive integer, exactly as JSON.parse would', () => {
  const own = { ...registration(20, false, false), status: 'confirmed' as const };
  const line = encodeRegister(own, 21);
  const head = line.slice(0, line.indexOf(',"crc":'));
  const cases: [string, number | undefined][] = [
    ['"seq":20}', 20],
    ['"seq":1}', 1],
    ['"seq":21}', 21],
    ['"seq":22}', undefined],
    ['"seq":0}', undefined],
    ['"seq":020}', undefined],
    ['"seq":}', undefined],
    ['"seq":2x}', undefined],
    ['"seq":20]', undefined],
    ['"seq":20', undefined],
    ['"seq":20 }', 20],
    ['"seq":20,"x":1}', 20],
    ['"seq":-1}', undefined],
    ['"seq":1e1}', 10],
    ['"seq":2.0}', 2],
  ];
  // A status of as many letters as "waitlisted" that is not it.
  assert.equal(typeof decode(sealed(head.replace('"confirmed"', '"unassigned"'))), 'string');
  for (const [tail, ownSeq] of cases) {
    const changed = sealed(head.replace('"seq":20}', tail));
    const decoded = decode(changed);
    if (ownSeq === undefined) assert.equal(typeof decoded, 'string', changed);
    else assert.deepEqual(decoded, { seq: 21, op: 'reg', registration: { ...own, seq: ownSeq } }, changed);
  }
});
