// registration-view: the JSON shape of a registration, and CSV cells that are RFC 4180 and never run as formulas.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CSV_HEADER, CSV_TYPE, csvCell, registrationJson, registrationsCsv } from '../../src/registrations/registration-view.js';
import type { Registration } from '../../src/store/views/roster.js';
import { mulberry32 } from '../helpers/random.js';

const REGISTRATION: Registration = {
  id: 'reg_0000000000000000000001',
  eventId: 'evt_0000000000000001',
  name: 'Grace',
  email: 'grace@campus.edu',
  status: 'waitlisted',
  createdAt: '2030-01-01T00:00:00.000Z',
  checkedInAt: null,
  seq: 4,
};

test('registrationJson() writes the fields of API.md §8 in order, null until check-in', () => {
  assert.equal(
    registrationJson(REGISTRATION),
    '{"id":"reg_0000000000000000000001","event_id":"evt_0000000000000001","name":"Grace","email":"grace@campus.edu","status":"waitlisted","created_at":"2030-01-01T00:00:00.000Z","checked_in_at":null}',
  );
});

test("csvCell() prefixes ' to a cell starting with =, +, -, @, tab or CR, and quotes commas, quotes and line breaks", () => {
  assert.equal(csvCell('=SUM(A1)'), "'=SUM(A1)");
  assert.equal(csvCell('+1'), "'+1");
  assert.equal(csvCell('-2'), "'-2");
  assert.equal(csvCell('@x'), "'@x");
  assert.equal(csvCell('\tx'), "'\tx");
  assert.equal(csvCell('\rx'), `"'\rx"`);
  assert.equal(csvCell('a,b'), '"a,b"');
  assert.equal(csvCell('say "hi"'), '"say ""hi"""');
  assert.equal(csvCell('=A1,"x"'), `"'=A1,""x"""`);
  assert.equal(csvCell('plain a-b'), 'plain a-b');
  assert.equal(csvCell(''), '');
});

test('registrationsCsv() writes the header row, one CRLF row each, an empty cell for null', () => {
  assert.equal(registrationsCsv([REGISTRATION]), `${CSV_HEADER}\r\nreg_0000000000000000000001,Grace,grace@campus.edu,waitlisted,2030-01-01T00:00:00.000Z,\r\n`);
  assert.equal(registrationsCsv([]), `${CSV_HEADER}\r\n`);
});

test('registrationsCsv() writes the check-in time of a checked-in registration in its last cell', () => {
  const checkedIn: Registration = { ...REGISTRATION, status: 'confirmed', checkedInAt: '2030-01-02T09:30:00.000Z' };
  assert.equal(
    registrationsCsv([checkedIn, REGISTRATION]),
    `${CSV_HEADER}\r\nreg_0000000000000000000001,Grace,grace@campus.edu,confirmed,2030-01-01T00:00:00.000Z,2030-01-02T09:30:00.000Z\r\nreg_0000000000000000000001,Grace,grace@campus.edu,waitlisted,2030-01-01T00:00:00.000Z,\r\n`,
  );
});

test('CSV_HEADER and CSV_TYPE are the header row and Content-Type of API.md §8', () => {
  assert.equal(CSV_HEADER, 'id,name,email,status,created_at,checked_in_at');
  assert.equal(CSV_TYPE, 'text/csv; charset=utf-8');
});

/** An RFC 4180 reader, the model: rows of cells, quoted cells with doubled quotes, CRLF after every row. */
function parseCsv(csv: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let at = 0;
  while (at < csv.length) {
    let cell = '';
    if (csv[at] === '"') {
      at++;
      for (;;) {
        const quote = csv.indexOf('"', at);
        assert.ok(quote !== -1, 'a quoted cell is closed');
        cell += csv.slice(at, quote);
        at = quote + 1;
        if (csv[at] !== '"') break;
        cell += '"';
        at++;
      }
    } else {
      while (at < csv.length && csv[at] !== ',' && csv[at] !== '\r') {
        assert.ok(csv[at] !== '"' && csv[at] !== '\n', `an unquoted cell holds no quote or line break, at ${at}`);
        cell += csv[at++];
      }
    }
    row.push(cell);
    if (csv[at] === ',') at++;
    else {
      assert.equal(csv.slice(at, at + 2), '\r\n', `a row ends with CRLF, at ${at}`);
      at += 2;
      rows.push(row);
      row = [];
    }
  }
  return rows;
}

test('registrationsCsv() read back by an RFC 4180 reader gives every field, formulas guarded with a leading quote (seeded random registrations)', () => {
  const seed = Number(process.env['TEST_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
  const random = mulberry32(seed);
  const pieces = ['a', 'Zoë', ' ', ',', '"', '""', '\r', '\n', '\r\n', '=', '+', '-', '@', '\t', "'", '1+1', '🎉', '日本', ';'];
  const hostile = (): string => Array.from({ length: Math.floor(random() * 6) }, () => pieces[Math.floor(random() * pieces.length)]!).join('');
  const guarded = (value: string): string => (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);
  for (let round = 0; round < 200; round++) {
    const registrations: Registration[] = Array.from({ length: Math.floor(random() * 4) }, (_, index) => ({
      ...REGISTRATION,
      id: `reg_${String(round * 10 + index).padStart(22, '0')}`,
      name: hostile(),
      email: hostile(),
      status: random() < 0.5 ? 'confirmed' : 'waitlisted',
      checkedInAt: random() < 0.5 ? null : '2030-01-02T09:30:00.000Z',
    }));
    const rows = parseCsv(registrationsCsv(registrations));
    const context = `seed ${seed} (rerun with TEST_SEED=${seed}), round ${round}`;
    assert.deepEqual(rows[0], ['id', 'name', 'email', 'status', 'created_at', 'checked_in_at'], context);
    assert.deepEqual(
      rows.slice(1),
      registrations.map((r) => [r.id, guarded(r.name), guarded(r.email), r.status, r.createdAt, r.checkedInAt ?? '']),
      `${context}: ${JSON.stringify(registrations.map((r) => [r.name, r.email]))}`,
    );
  }
});
