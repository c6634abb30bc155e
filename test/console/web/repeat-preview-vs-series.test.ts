// The console's Repeats preview against the server's own expander (src/series): for seeded random rules of the form's
// subset in several zones, the preview lists exactly the starts the server will make, occurrence by occurrence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mulberry32 } from '../../helpers/random.js';
import { previewStarts, toRrule, weekdayOf, WEEKDAYS, isLastInMonth, type Repeat } from '../../../src/console/web/repeat-rule.js';
import { instantNear, type Wall } from '../../../src/console/web/format.js';
import { parseRecurrence } from '../../../src/series/recurrence-rule.js';
import { ruleStarts } from '../../../src/series/expand.js';

const ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata', 'Pacific/Kiritimati', 'America/Los_Angeles', 'UTC'];
const RULES = 600;

test(`previewStarts() makes the starts the server makes, for ${RULES} seeded rules in ${ZONES.length} zones`, () => {
  const seed = Number(process.env['SEED'] ?? Date.now() % 1_000_000);
  const random = mulberry32(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  let compared = 0;
  for (let index = 0; index < RULES; index++) {
    const zone = pick(ZONES);
    const start: Wall = { year: 2027 + Math.floor(random() * 2), month: 1 + Math.floor(random() * 12), day: 1 + Math.floor(random() * 31), hour: pick([0, 1, 2, 3, 9, 10, 18, 23]), minute: pick([0, 30, 45]) };
    // A day past the month's end (30 February) cannot be a first start. A wall time in a gap (spring forward) can:
    // the form sends the instant just past it, and the series goes on at the wall time that instant shows.
    if (new Date(Date.UTC(start.year, start.month - 1, start.day)).getUTCDate() !== start.day) continue;
    const startMs = instantNear(zone, start);
    const freq = pick(['WEEKLY', 'MONTHLY'] as const);
    const days = WEEKDAYS.filter((day) => day === weekdayOf(start) || random() < 0.3);
    const monthly = pick(isLastInMonth(start) ? (['date', 'weekday', 'last-weekday'] as const) : (['date', 'weekday'] as const));
    const end: Repeat['end'] = random() < 0.5 ? { count: 1 + Math.floor(random() * 40) } : { until: `${start.year + 1}-${String(1 + Math.floor(random() * 12)).padStart(2, '0')}-${String(1 + Math.floor(random() * 28)).padStart(2, '0')}` };
    const repeat: Repeat = { freq, interval: 1 + Math.floor(random() * 3), days, monthly, end };
    const rrule = toRrule(repeat, start, zone);
    const rule = parseRecurrence(rrule);
    assert.ok(!Array.isArray(rule), `seed ${seed}: the server takes ${rrule}: ${String(rule)}`);
    const preview = previewStarts(repeat, start, zone);
    let server: number[] | undefined;
    try {
      server = ruleStarts({ startMs, zone, rule });
    } catch {
      assert.ok(preview.tooMany || preview.tooLong, `seed ${seed}: the server refuses ${rrule} from ${JSON.stringify(start)} in ${zone}; the preview should say why`);
      continue;
    }
    assert.deepEqual(preview.starts.map((ms) => new Date(ms).toISOString()), server.map((ms) => new Date(ms).toISOString()), `seed ${seed}: ${rrule} from ${JSON.stringify(start)} in ${zone}`);
    compared++;
  }
  assert.ok(compared > RULES / 2, `seed ${seed}: ${compared} rules compared`);
});

test('a first start typed in the hour the clocks skip: the preview starts at the instant sent, and goes on at its wall time', () => {
  // 28 March 2027, 02:30 does not exist in Berlin; the form sends 03:30 (01:30Z), and the server makes three Sundays.
  const start: Wall = { year: 2027, month: 3, day: 28, hour: 2, minute: 30 };
  const weekly = (end: Repeat['end']): Repeat => ({ freq: 'WEEKLY', interval: 1, days: ['SU'], monthly: 'date', end });
  const shown = (repeat: Repeat): string[] => previewStarts(repeat, start, 'Europe/Berlin').starts.map((ms) => new Date(ms).toISOString());
  assert.deepEqual(shown(weekly({ until: '2027-04-11' })), ['2027-03-28T01:30:00.000Z', '2027-04-04T01:30:00.000Z', '2027-04-11T01:30:00.000Z']);
  assert.deepEqual(shown(weekly({ count: 3 })), ['2027-03-28T01:30:00.000Z', '2027-04-04T01:30:00.000Z', '2027-04-11T01:30:00.000Z']);
});
