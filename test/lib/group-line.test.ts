// Tests of the group line's framing: isGroupLine() in either layout, and groupBounds() reading members by their sizes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { groupBounds, isGroupLine, trustedGroupBounds, type GroupBounds } from '../../src/lib/group-line.js';

const A = '{"seq":1,"op":"x","s":"a,b]"}';
const B = '{"seq":2,"op":"y","s":"é"}';
/** A JSON-layout group of `members` up to where its checksum would begin, and that position. */
function framed(members: string[], sizes: (number | string)[] = members.map((member) => Buffer.byteLength(member)), seq = '2'): { buf: Buffer; limit: number } {
  const text = `{"seq":${seq},"op":"group","sizes":[${sizes.join(',')}],"lines":[${members.join(',')}]`;
  const buf = Buffer.from(`${text},"crc":"00000000"}`);
  return { buf, limit: Buffer.byteLength(text) };
}

function texts(buf: Buffer, group: GroupBounds | string): string[] {
  assert.ok(typeof group !== 'string', String(group));
  const out: string[] = [];
  for (let i = 0; i < group.bounds.length; i += 2) out.push(buf.toString('utf8', group.bounds[i], group.bounds[i + 1]));
  return out;
}

test('isGroupLine() knows both layouts, and nothing else', () => {
  for (const [line, expected] of [
    ['\t{"seq":1}', true],
    ['{"seq":12,"op":"group","sizes":[3],"lines":[', true],
    ['{"seq":12,"op":"put","created_at":"x"', false],
    ['{"seq":,"op":"group","sizes":[', false],
    ['{"seq":1,"op":"groups","sizes":[', false],
    ['{"seq":1,"op":"group"', false],
    ['', false],
  ] as const) {
    const buf = Buffer.from(line);
    assert.equal(isGroupLine(buf, 0, buf.length), expected, line);
  }
  // Within its bounds only: a group line after a plain one is not the plain one's.
  const two = Buffer.from(`{"seq":1,"op":"put"}\n{"seq":2,"op":"group","sizes":[1],"lines":[`);
  assert.equal(isGroupLine(two, 0, two.indexOf(10)), false);
});

test('groupBounds() reads each member by its size in bytes, whatever it holds (commas, brackets, UTF-8)', () => {
  const { buf, limit } = framed([A, B]);
  assert.deepEqual(texts(buf, groupBounds(buf, 0, limit)), [A, B]);
  assert.equal((groupBounds(buf, 0, limit) as GroupBounds).seq, 2, 'the seq its head names');
  assert.deepEqual(trustedGroupBounds(buf, 0, buf.length), groupBounds(buf, 0, limit), 'a whole line: the limit is before its checksum');
  const one = framed([B]);
  assert.deepEqual(texts(one.buf, groupBounds(one.buf, 0, one.limit)), [B]);
});

test('groupBounds() refuses sizes that do not fit its members, and bytes past them', () => {
  const cases: [ReturnType<typeof framed>, RegExp][] = [
    [framed([A, B], [Buffer.byteLength(A) + 1, Buffer.byteLength(B)]), /member 1 of an atomic group is not the \d+ bytes/],
    [framed([A, B], [Buffer.byteLength(A), Buffer.byteLength(B) - 1]), /member 2 of an atomic group is not the \d+ bytes/],
    [framed([A, B], [Buffer.byteLength(A), 500]), /member 2 of an atomic group runs past the line's end/],
    [framed([A, B], [Buffer.byteLength(A)]), /member 1 of an atomic group is not the/],
    [framed([A], [0]), /positive integers/],
    [framed([A], []), /positive integers/],
    [framed([A], [`0${Buffer.byteLength(A)}`]), /positive integers/],
  ];
  cases.push([framed([A, B], undefined, '02'), /sequence number of a group line is not a positive integer/]);
  for (const [{ buf, limit }, reason] of cases) assert.match(String(groupBounds(buf, 0, limit)), reason, buf.toString());
  const { buf, limit } = framed([A]);
  assert.match(String(groupBounds(buf, 0, limit + 1)), /more than its "sizes" say|runs past/);
  const renamed = Buffer.from(buf.toString().replace('"lines"', '"lanes"'));
  assert.match(String(groupBounds(renamed, 0, limit)), /not followed by "lines"/);
  const put = Buffer.from('{"seq":2,"op":"put","sizes":[1],"lines":[x]');
  assert.match(String(groupBounds(put, 0, put.length)), /does not start with \{"seq":N,"op":"group"/);
});

test('groupBounds() reads the older layout as the stretches after each tab, up to the line\'s end', () => {
  const buf = Buffer.from(`\t${A}\t${B}\n\t{"seq":3}`);
  assert.deepEqual(texts(buf, groupBounds(buf, 0, buf.indexOf(10))), [A, B]);
  const empty = Buffer.from('\t\tx');
  assert.deepEqual(texts(empty, groupBounds(empty, 0, empty.length)), ['', 'x']);
});
