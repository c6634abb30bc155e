// registration-view: the JSON shape of a registration, and CSV cells that are RFC 4180 and never run as formulas.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CSV_HEADER, csvCell, registrationJson, registrationsCsv } from '../../src/registrations/registration-view.js';
import type { Registration } from '../../src/store/views/roster.js';

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
