import assert from "node:assert/strict";
import { test } from "node:test";
import { canonicalZone, instantOf, isTimeZone, localTime, MAX_OTHER_SPELLINGS, offsetAt, startOfDay, zoneCacheSizes } from "../../src/lib/time-zone.js";

const at = (year: number, month: number, day: number, hour: number, minute = 0) => ({ year, month, day, hour, minute, second: 0, millisecond: 0 });
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

test("isTimeZone() knows IANA names and refuses others", () => {
  assert.equal(isTimeZone("Europe/Berlin"), true);
  assert.equal(isTimeZone("UTC"), true);
  assert.equal(isTimeZone("Mars/Olympus_Mons"), false);
  assert.equal(isTimeZone(""), false);
});

test("offsetAt() gives Berlin +1 h in winter and +2 h in summer, Lord Howe +11 h and +10:30", () => {
  assert.equal(offsetAt("Europe/Berlin", Date.UTC(2026, 0, 15)), 3_600_000);
  assert.equal(offsetAt("Europe/Berlin", Date.UTC(2026, 6, 15)), 7_200_000);
  assert.equal(offsetAt("Australia/Lord_Howe", Date.UTC(2026, 0, 15)), 11 * 3_600_000);
  assert.equal(offsetAt("Australia/Lord_Howe", Date.UTC(2026, 6, 15)), 10.5 * 3_600_000);
});

test("instantOf() has no instant in the spring-forward gap and takes the first of the repeated hour", () => {
  assert.equal(instantOf("Europe/Berlin", at(2026, 3, 29, 2, 30)), undefined);
  assert.equal(iso(instantOf("Europe/Berlin", at(2026, 10, 25, 2, 30))), "2026-10-25T00:30:00.000Z");
  assert.equal(iso(instantOf("America/New_York", at(2026, 3, 8, 10))), "2026-03-08T14:00:00.000Z");
  assert.equal(iso(instantOf("America/New_York", at(2026, 3, 7, 10))), "2026-03-07T15:00:00.000Z");
});

test("instantOf() knows that Pacific/Apia skipped 2011-12-30", () => {
  assert.equal(instantOf("Pacific/Apia", at(2011, 12, 30, 10)), undefined);
  assert.equal(iso(instantOf("Pacific/Apia", at(2011, 12, 31, 10))), "2011-12-30T20:00:00.000Z");
});

test("localTime() reads an instant back as the zone's wall clock", () => {
  assert.deepEqual(localTime("Asia/Kolkata", Date.UTC(2026, 8, 1, 17, 0, 0, 250)), { year: 2026, month: 9, day: 1, hour: 22, minute: 30, second: 0, millisecond: 250 });
  assert.deepEqual(localTime("UTC", Date.UTC(2026, 0, 1)), { year: 2026, month: 1, day: 1, hour: 0, minute: 0, second: 0, millisecond: 0 });
});

test("startOfDay() is local midnight, and where a change skips midnight the first instant of the day", () => {
  assert.equal(iso(startOfDay("America/Los_Angeles", 2026, 9, 1)), "2026-09-01T07:00:00.000Z");
  assert.equal(iso(startOfDay("Pacific/Kiritimati", 2026, 9, 1)), "2026-08-31T10:00:00.000Z");
  assert.equal(iso(startOfDay("UTC", 2026, 9, 1)), "2026-09-01T00:00:00.000Z");
  // Chile moves its clocks from 24:00 on the first Saturday of September to 01:00.
  assert.equal(iso(startOfDay("America/Santiago", 2026, 9, 6)), "2026-09-06T04:00:00.000Z");
  assert.equal(localTime("America/Santiago", startOfDay("America/Santiago", 2026, 9, 6)).hour, 1);
});

/** The n-th case variant of `name`: bit k of n sets the case of its k-th letter. */
function caseVariant(name: string, n: number): string {
  let bits = n;
  return [...name].map((char) => {
    if (!/[a-z]/i.test(char)) return char;
    const upper = bits & 1;
    bits = Math.floor(bits / 2);
    return upper ? char.toUpperCase() : char.toLowerCase();
  }).join("");
}

test("10,000 spellings of zone names (case variants, aliases, no zone at all) leave the zone caches bounded: the formatter cache keyed by the spelling as sent grew with each (issue 33.3)", () => {
  const before = zoneCacheSizes();
  for (let n = 0; n < 10_000; n++) {
    const zone = caseVariant(["america/argentina/buenos_aires", "europe/berlin", "us/pacific", "asia/kolkata"][n % 4]!, Math.floor(n / 4));
    assert.equal(isTimeZone(zone), true, zone);
    assert.equal(typeof offsetAt(zone, Date.UTC(2027, n % 12, 1)), "number");
    assert.equal(localTime(zone, Date.UTC(2027, 0, 1)).year >= 2026, true);
    assert.equal(isTimeZone(`Nowhere/Place_${n}`), false);
  }
  const sizes = zoneCacheSizes();
  assert.ok(sizes.formatters <= before.formatters + 4, `formatters by canonical zone: ${before.formatters} before, ${sizes.formatters} after`);
  assert.ok(sizes.offsetZones <= before.offsetZones + 4, `offset tables by canonical zone: ${before.offsetZones} before, ${sizes.offsetZones} after`);
  assert.ok(sizes.spellings <= MAX_OTHER_SPELLINGS, `spellings kept: ${sizes.spellings}`);
  assert.equal(canonicalZone("AMERICA/ARGENTINA/BUENOS_AIRES"), canonicalZone("America/Argentina/Buenos_Aires"));
  assert.equal(canonicalZone("utc"), "UTC");
  assert.equal(canonicalZone("Nowhere/Place_1"), undefined);
});

test("offsets cached for many years of many zones stay bounded", () => {
  const zones = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Tehran", "Pacific/Chatham"];
  for (let n = 0; n < 200_000; n++) offsetAt(zones[n % zones.length]!, Date.UTC(1970, 0, 1) + n * 12 * 3_600_000 * 3);
  assert.ok(zoneCacheSizes().offsetBuckets <= 50_000, `offset buckets: ${zoneCacheSizes().offsetBuckets}`);
  assert.equal(offsetAt("Europe/Berlin", Date.UTC(2026, 6, 15)), 7_200_000, "still right after the cache starts over");
});
