// Tests for the strict RFC 3339 parser: offsets, fractional seconds, impossible dates, the 1970–9999 range, the one output form, and the check of a date-time field.

import assert from "node:assert/strict";
import { test } from "node:test";
import { dateTime, formatTime, MAX_TIME_MS, MIN_TIME_MS, parseDate, parseDateTime } from "../../src/events/time.js";
import { Problem } from "../../src/lib/checks.js";
import { mulberry32 } from "../helpers/random.js";

const iso = (text: string): string | undefined => {
  const ms = parseDateTime(text);
  return ms === undefined ? undefined : formatTime(ms);
};

const ACCEPTED: readonly [string, string][] = [
  ["2026-09-01T17:00:00Z", "2026-09-01T17:00:00.000Z"],
  ["2026-09-01t17:00:00z", "2026-09-01T17:00:00.000Z"],
  ["2026-09-01T17:00:00+05:30", "2026-09-01T11:30:00.000Z"],
  ["2026-09-01T17:00:00-05:30", "2026-09-01T22:30:00.000Z"],
  ["2026-09-01T17:00:00-00:00", "2026-09-01T17:00:00.000Z"],
  ["2026-09-01T17:00:00+00:00", "2026-09-01T17:00:00.000Z"],
  ["2026-09-01T23:30:00-01:00", "2026-09-02T00:30:00.000Z"],
  ["2026-12-31T23:59:59+23:59", "2026-12-31T00:00:59.000Z"],
  ["2026-09-01T17:00:00.5Z", "2026-09-01T17:00:00.500Z"],
  ["2026-09-01T17:00:00.12Z", "2026-09-01T17:00:00.120Z"],
  ["2026-09-01T17:00:00.123Z", "2026-09-01T17:00:00.123Z"],
  ["2026-09-01T17:00:00.1239Z", "2026-09-01T17:00:00.123Z"],
  ["2026-09-01T17:00:00.99999Z", "2026-09-01T17:00:00.999Z"],
  ["2026-09-01T17:00:00.999999Z", "2026-09-01T17:00:00.999Z"],
  ["2026-09-01T17:00:00.1234567Z", "2026-09-01T17:00:00.123Z"],
  ["2026-09-01T17:00:00.99999999Z", "2026-09-01T17:00:00.999Z"],
  ["2026-09-01T17:00:00.999999999Z", "2026-09-01T17:00:00.999Z"],
  ["2026-09-01T17:00:00.000000000001Z", "2026-09-01T17:00:00.000Z"],
  ["2024-02-29T12:00:00Z", "2024-02-29T12:00:00.000Z"],
  ["2000-02-29T12:00:00Z", "2000-02-29T12:00:00.000Z"],
  ["1970-01-01T00:00:00Z", "1970-01-01T00:00:00.000Z"],
  ["1970-01-01T01:00:00+01:00", "1970-01-01T00:00:00.000Z"],
  ["1969-12-31T23:00:00-01:00", "1970-01-01T00:00:00.000Z"],
  ["9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"],
  ["9999-12-31T23:59:59.9999999Z", "9999-12-31T23:59:59.999Z"],
];

for (const [input, expected] of ACCEPTED) {
  test(`parseDateTime() accepts ${JSON.stringify(input)} as ${expected}`, () => {
    assert.equal(iso(input), expected);
  });
}

const REFUSED: readonly [string, string][] = [
  ["2026-09-01T17:00:00", "a naive time"],
  ["2026-09-01T17:00", "a naive time without seconds"],
  ["2026-09-01T17:00Z", "a time without seconds"],
  ["2026-09-01 17:00:00Z", "a space instead of T"],
  ["2026-09-01", "a date alone"],
  ["2026-02-29T12:00:00Z", "29 February in a common year"],
  ["1900-02-29T12:00:00Z", "29 February in a century year that is not a leap year"],
  ["2100-02-29T12:00:00Z", "29 February 2100, a century year inside the range that is not a leap year"],
  ["2024-02-30T12:00:00Z", "30 February in a leap year"],
  ["2026-04-31T12:00:00Z", "31 April"],
  ["2026-06-31T12:00:00Z", "31 June"],
  ["2026-13-01T12:00:00Z", "month 13"],
  ["2026-00-10T12:00:00Z", "month 0"],
  ["2026-01-00T12:00:00Z", "day 0"],
  ["2026-01-32T12:00:00Z", "day 32"],
  ["2026-09-01T24:00:00Z", "24:00:00"],
  ["2026-09-01T23:60:00Z", "minute 60"],
  ["2026-12-31T23:59:60Z", "a leap second :60"],
  ["2026-09-01T17:00:00+24:00", "an offset of 24 hours"],
  ["2026-09-01T17:00:00+05:60", "an offset minute of 60"],
  ["2026-09-01T17:00:00+0530", "an offset without a colon"],
  ["2026-09-01T17:00:00+05", "an offset without minutes"],
  ["2026-09-01T17:00:00.Z", "a dot without fraction digits"],
  ["2026-09-01T17:00:00,5Z", "a comma as the decimal sign"],
  ["2026-9-01T17:00:00Z", "a one-digit month"],
  ["26-09-01T17:00:00Z", "a two-digit year"],
  ["+002026-09-01T17:00:00Z", "an expanded year"],
  ["0099-12-31T23:59:59Z", "the two-digit-year trap 0099"],
  ["0070-01-01T00:00:00Z", "the two-digit-year trap 0070"],
  ["1969-12-31T23:59:59.999Z", "an instant before 1970"],
  ["1970-01-01T00:30:00+01:00", "a 1970 local time that is 1969 in UTC"],
  ["9999-12-31T23:00:00-02:00", "a 9999 local time that is year 10000 in UTC"],
  ["10000-01-01T00:00:00Z", "a five-digit year"],
  ["", "the empty string"],
  [" ", "whitespace"],
  [" 2026-09-01T17:00:00Z", "leading whitespace"],
  ["2026-09-01T17:00:00Z ", "trailing whitespace"],
  ["2026-09-01T17:00:00Z\n", "a trailing newline"],
  ["1788627600000", "a number of milliseconds as a string"],
  ["2026-09-01T17:00:00GMT", "a zone name"],
  ["Tue, 01 Sep 2026 17:00:00 GMT", "an HTTP date"],
  ["２０２６-09-01T17:00:00Z", "full-width digits"],
  ["٢٠٢٦-09-01T17:00:00Z", "Arabic-Indic digits"],
];

for (const [input, why] of REFUSED) {
  test(`parseDateTime() refuses ${why} (${JSON.stringify(input)})`, () => {
    assert.equal(parseDateTime(input), undefined);
  });
}

test("parseDateTime() returns the epoch milliseconds of the instant", () => {
  assert.equal(parseDateTime("2026-09-01T17:00:00.250+02:00"), Date.UTC(2026, 8, 1, 15, 0, 0, 250));
  assert.equal(parseDateTime("1970-01-01T00:00:00Z"), 0);
});

test("parseDateTime() truncates fractional seconds instead of rounding them", () => {
  assert.equal(parseDateTime("2026-09-01T17:00:00.0009Z"), Date.UTC(2026, 8, 1, 17, 0, 0, 0));
  assert.equal(parseDateTime("2026-12-31T23:59:59.9999Z"), Date.UTC(2026, 11, 31, 23, 59, 59, 999));
});

test("parseDateTime() accepts exactly MIN_TIME_MS and MAX_TIME_MS, and nothing outside", () => {
  assert.equal(MIN_TIME_MS, 0);
  assert.equal(MAX_TIME_MS, Date.UTC(9999, 11, 31, 23, 59, 59, 999));
  assert.equal(parseDateTime("1970-01-01T00:00:00.000Z"), MIN_TIME_MS);
  assert.equal(parseDateTime("9999-12-31T23:59:59.999Z"), MAX_TIME_MS);
  assert.equal(parseDateTime("10000-01-01T00:00:00.000+00:00"), undefined);
  assert.equal(parseDateTime("9999-12-31T22:59:59.999-01:00"), MAX_TIME_MS);
  assert.equal(parseDateTime("9999-12-31T23:00:00.000-01:00"), undefined);
});

test("parseDate() accepts a real date as its midnight UTC", () => {
  assert.equal(parseDate("2026-09-01"), Date.UTC(2026, 8, 1));
  assert.equal(parseDate("2024-02-29"), Date.UTC(2024, 1, 29));
  assert.equal(parseDate("1970-01-01"), 0);
  assert.equal(parseDate("9999-12-31"), Date.UTC(9999, 11, 31));
});

test("parseDate() does not map years 0-99 onto 1900-1999", () => {
  assert.equal(parseDate("0099-01-01"), new Date("0099-01-01T00:00:00Z").getTime());
  assert.notEqual(parseDate("0099-01-01"), Date.UTC(1999, 0, 1));
});

for (const input of ["2026-02-29", "2026-02-30", "2026-04-31", "2026-13-01", "2026-00-01", "2026-01-00", "2026-9-1", "20260901", "2026-09-01T00:00:00Z", "", " 2026-09-01", "2026-09-01 "]) {
  test(`parseDate() refuses ${JSON.stringify(input)}`, () => {
    assert.equal(parseDate(input), undefined);
  });
}

test("formatTime() writes UTC with exactly three fraction digits", () => {
  assert.equal(formatTime(0), "1970-01-01T00:00:00.000Z");
  assert.equal(formatTime(Date.UTC(2026, 8, 1, 17, 0, 0, 5)), "2026-09-01T17:00:00.005Z");
  assert.equal(formatTime(MAX_TIME_MS), "9999-12-31T23:59:59.999Z");
});

test("formatTime() of parseDateTime() is a fixed point for the output form", () => {
  for (const text of ["2026-09-01T17:00:00.000Z", "1970-01-01T00:00:00.001Z", "9999-12-31T23:59:59.999Z"]) {
    assert.equal(formatTime(parseDateTime(text)!), text);
  }
});

/** The parser as a regular expression, as it was written before it read characters one by one: the reference. */
function parsedByPattern(text: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/.exec(text);
  if (m === null) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const days = new Date(Date.UTC(2000, month, 0)).getUTCDate() + (month === 2 && (year % 4 !== 0 || (year % 100 === 0 && year % 400 !== 0)) ? -1 : 0);
  if (month < 1 || month > 12 || day < 1 || day > days || hour > 23 || minute > 59 || second > 59) return undefined;
  if (m[8] === undefined && (Number(m[10]) > 23 || Number(m[11]) > 59)) return undefined;
  const offset = m[8] === undefined ? (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11])) : 0;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0')));
  const ms = date.getTime() - offset * 60_000;
  return ms >= MIN_TIME_MS && ms <= MAX_TIME_MS ? ms : undefined;
}

test("parseDateTime agrees with the regular expression it replaced on valid, near-valid and broken times (seeded)", () => {
  const seed = Number(process.env["TIME_SEED"] ?? Math.floor(Math.random() * 2 ** 31));
  const random = mulberry32(seed);
  const pick = <T,>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const two = (max: number): string => String(Math.floor(random() * max)).padStart(2, "0");
  const valid = (): string =>
    `${pick(["0069", "0070", "0100", "1969", "1970", "2000", "2024", "2100", "9999", String(1970 + Math.floor(random() * 8000))])}-${two(14)}-${two(33)}${pick(["T", "t"])}${two(26)}:${two(62)}:${two(62)}` +
    `${pick(["", "", ".", ".5", ".123", ".1234567", ".99"])}${pick(["Z", "z", `+${two(25)}:${two(61)}`, `-${two(25)}:${two(61)}`, "+05:30", ""])}`;
  const SPOILERS = ["", "0", "x", "-", ":", ".", "T", "Z", "+", " ", "٣", "1"];
  let checked = 0;
  for (let i = 0; i < 20_000; i++) {
    let text = valid();
    // Half are spoiled: a character replaced, added or taken away.
    if (random() < 0.5) {
      const at = Math.floor(random() * (text.length + 1));
      const cut = random() < 0.5 ? 1 : 0;
      text = text.slice(0, at) + pick(SPOILERS) + text.slice(at + cut);
    }
    assert.equal(parseDateTime(text), parsedByPattern(text), `seed ${seed}: ${JSON.stringify(text)}`);
    if (parsedByPattern(text) !== undefined) checked++;
  }
  assert.ok(checked > 1_000, `seed ${seed}: only ${checked} valid times among the cases`);
});

/** Asserts dateTime refused the value with a Problem on `field` whose message contains every part. */
function assertProblem(result: unknown, field: string, ...parts: string[]): void {
  assert.ok(result instanceof Problem, `expected a Problem, got ${JSON.stringify(result)}`);
  assert.equal(result.field, field);
  for (const part of parts) assert.ok(result.message.includes(part), `message ${JSON.stringify(result.message)} lacks ${JSON.stringify(part)}`);
}

test("dateTime() normalises to UTC milliseconds form", () => {
  assert.equal(dateTime("2026-09-01T19:00:00+02:00", "start_time"), "2026-09-01T17:00:00.000Z");
  assert.equal(dateTime("2026-09-01t17:00:00.1234z", "start_time"), "2026-09-01T17:00:00.123Z");
});

test("dateTime() refuses a naive time, a number and null, quoting the value", () => {
  assertProblem(dateTime("2026-09-01T17:00", "start_time"), "start_time", "start_time must be an RFC 3339 date-time", '"2026-09-01T17:00"');
  assertProblem(dateTime(1788627600000, "end_time"), "end_time", "end_time", "1788627600000");
  assertProblem(dateTime(null, "end_time"), "end_time", "null");
});
