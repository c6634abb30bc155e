// The RFC 5545 RRULE subset of API.md §11, parsed into plain data: each problem names the part at fault.
import { clip } from '../lib/clip.js';

export type Frequency = 'DAILY' | 'WEEKLY' | 'MONTHLY';

/** Weekdays in RFC 5545 order of names; index 0 is Monday (ISO). */
export const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;

/** A BYDAY entry: a weekday (0 = Monday) and, with MONTHLY only, its ordinal in the month (`-1FR`: the last Friday). */
export interface ByDay {
  weekday: number;
  ordinal?: number;
}

/** The end of a rule's UNTIL: an instant (`20270115T000000Z`) or a local date (`20270115`, inclusive). */
export type Until = { kind: 'instant'; ms: number } | { kind: 'date'; year: number; month: number; day: number };

/** A parsed recurrence rule. */
export interface RecurrenceRule {
  freq: Frequency;
  interval: number;
  byDay: ByDay[];
  byMonthDay: number[];
  /** The first day of the week, 0 = Monday (the RFC 5545 default). */
  wkst: number;
  count?: number;
  until?: Until;
}

/** Most occurrences a rule may make (COUNT's bound too). */
export const MAX_OCCURRENCES = 500;

const PARTS = new Set(['FREQ', 'INTERVAL', 'BYDAY', 'BYMONTHDAY', 'WKST', 'COUNT', 'UNTIL']);
const KNOWN_BUT_REFUSED = new Set(['BYSETPOS', 'BYHOUR', 'BYMINUTE', 'BYSECOND', 'BYWEEKNO', 'BYYEARDAY', 'BYMONTH', 'RSCALE', 'SKIP']);

/**
 * Parses `text` (an RRULE value without the `RRULE:` prefix). Returns the rule, or the list of problems,
 * each a sentence naming the part at fault (`recurrence FREQ=YEARLY is not supported: use DAILY, WEEKLY or MONTHLY`).
 */
export function parseRecurrence(text: string): RecurrenceRule | string[] {
  const problems: string[] = [];
  const values = new Map<string, string>();
  if (text.length === 0 || text.length > 1000) return ['recurrence must be an RRULE value of 1–1000 characters such as "FREQ=WEEKLY;BYDAY=TU,TH;COUNT=20"'];
  for (const part of text.split(';')) {
    const eq = part.indexOf('=');
    const name = (eq < 0 ? part : part.slice(0, eq)).toUpperCase();
    const value = eq < 0 ? '' : part.slice(eq + 1);
    if (eq < 0 || value === '') problems.push(`recurrence part ${quoted(part)} must be NAME=VALUE`);
    else if (name === 'RRULE' || part.startsWith('RRULE:')) problems.push('recurrence must not start with "RRULE:"');
    else if (KNOWN_BUT_REFUSED.has(name)) problems.push(`recurrence part ${name} is not supported: only FREQ, INTERVAL, BYDAY, BYMONTHDAY, WKST and COUNT or UNTIL are`);
    else if (!PARTS.has(name)) problems.push(`recurrence part ${quoted(name)} is unknown: only FREQ, INTERVAL, BYDAY, BYMONTHDAY, WKST and COUNT or UNTIL are allowed`);
    else if (values.has(name)) problems.push(`recurrence part ${name} is given twice`);
    else values.set(name, value.toUpperCase());
  }
  const freqText = values.get('FREQ');
  let freq: Frequency | undefined;
  if (freqText === undefined) problems.push('recurrence must have FREQ (DAILY, WEEKLY or MONTHLY)');
  else if (freqText === 'DAILY' || freqText === 'WEEKLY' || freqText === 'MONTHLY') freq = freqText;
  else problems.push(`recurrence FREQ=${quoted(freqText)} is not supported: use DAILY, WEEKLY or MONTHLY`);

  const interval = values.has('INTERVAL') ? integerPart('INTERVAL', values.get('INTERVAL')!, 1, 99, problems) : 1;
  const count = values.has('COUNT') ? integerPart('COUNT', values.get('COUNT')!, 1, MAX_OCCURRENCES, problems) : undefined;
  const until = values.has('UNTIL') ? untilPart(values.get('UNTIL')!, problems) : undefined;
  if (values.has('COUNT') && values.has('UNTIL')) problems.push('recurrence must have exactly one of COUNT and UNTIL, not both');
  if (!values.has('COUNT') && !values.has('UNTIL')) problems.push('recurrence must have exactly one of COUNT (1–500) and UNTIL, so that it ends');

  const byDay: ByDay[] = [];
  const byDayText = values.get('BYDAY');
  if (byDayText !== undefined) {
    for (const entry of byDayText.split(',')) {
      const match = /^([+-]?\d{1,2})?(MO|TU|WE|TH|FR|SA|SU)$/.exec(entry);
      if (match === null) {
        problems.push(`recurrence BYDAY entry ${quoted(entry)} must be a weekday MO…SU, with MONTHLY optionally after an ordinal (1MO, -1FR)`);
        continue;
      }
      const weekday = WEEKDAYS.indexOf(match[2] as (typeof WEEKDAYS)[number]);
      // A value listed twice counts once (API.md §11; RFC 5545 does not forbid it): `1MO` and `+1MO` are one value.
      if (match[1] === undefined) {
        if (!byDay.some((each) => each.weekday === weekday && each.ordinal === undefined)) byDay.push({ weekday });
        continue;
      }
      const ordinal = Number(match[1]);
      if (freq !== undefined && freq !== 'MONTHLY') problems.push(`recurrence BYDAY entry ${entry} has an ordinal, which only FREQ=MONTHLY allows`);
      else if (ordinal === 0 || Math.abs(ordinal) > 5) problems.push(`recurrence BYDAY entry ${entry} must have an ordinal of 1 to 5 or -1 to -5`);
      else if (!byDay.some((each) => each.weekday === weekday && each.ordinal === ordinal)) byDay.push({ weekday, ordinal });
    }
  }
  const byMonthDay: number[] = [];
  const byMonthDayText = values.get('BYMONTHDAY');
  if (byMonthDayText !== undefined) {
    if (freq !== undefined && freq !== 'MONTHLY') problems.push('recurrence BYMONTHDAY is allowed only with FREQ=MONTHLY');
    for (const entry of byMonthDayText.split(',')) {
      const day = /^[+-]?\d{1,2}$/.test(entry) ? Number(entry) : NaN;
      if (!Number.isInteger(day) || day === 0 || day < -31 || day > 31) problems.push(`recurrence BYMONTHDAY entry ${quoted(entry)} must be 1 to 31 or -31 to -1`);
      else if (!byMonthDay.includes(day)) byMonthDay.push(day);
    }
  }
  let wkst = 0;
  const wkstText = values.get('WKST');
  if (wkstText !== undefined) {
    wkst = WEEKDAYS.indexOf(wkstText as (typeof WEEKDAYS)[number]);
    if (wkst < 0) problems.push(`recurrence WKST=${quoted(wkstText)} must be a weekday MO…SU`);
  }
  if (problems.length > 0 || freq === undefined) return problems;
  const rule: RecurrenceRule = { freq, interval, byDay, byMonthDay, wkst };
  if (count !== undefined) rule.count = count;
  if (until !== undefined) rule.until = until;
  return rule;
}

/** The rule written back in a canonical form (parts in a fixed order), as a series carries it. */
export function formatRecurrence(rule: RecurrenceRule): string {
  const parts = [`FREQ=${rule.freq}`];
  if (rule.interval !== 1) parts.push(`INTERVAL=${rule.interval}`);
  if (rule.byDay.length > 0) parts.push(`BYDAY=${rule.byDay.map((each) => `${each.ordinal ?? ''}${WEEKDAYS[each.weekday]}`).join(',')}`);
  if (rule.byMonthDay.length > 0) parts.push(`BYMONTHDAY=${rule.byMonthDay.join(',')}`);
  if (rule.wkst !== 0) parts.push(`WKST=${WEEKDAYS[rule.wkst]}`);
  if (rule.count !== undefined) parts.push(`COUNT=${rule.count}`);
  if (rule.until !== undefined) parts.push(`UNTIL=${formatUntil(rule.until)}`);
  return parts.join(';');
}

function formatUntil(until: Until): string {
  if (until.kind === 'date') return `${pad(until.year, 4)}${pad(until.month, 2)}${pad(until.day, 2)}`;
  return new Date(until.ms).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

function integerPart(name: string, value: string, min: number, max: number, problems: string[]): number {
  const number = /^\d{1,4}$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(number) || number < min || number > max) {
    problems.push(`recurrence ${name}=${quoted(value)} must be an integer from ${min} to ${max}`);
    return min;
  }
  return number;
}

function untilPart(value: string, problems: string[]): Until | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z)?)?$/.exec(value);
  const problem = `recurrence UNTIL=${quoted(value)} must be a UTC date-time such as 20270115T000000Z or a date such as 20270115`;
  if (match === null) {
    problems.push(problem);
    return undefined;
  }
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (year < 1970 || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
    problems.push(problem);
    return undefined;
  }
  if (match[4] === undefined) return { kind: 'date', year, month, day };
  if (match[7] !== 'Z') {
    problems.push(`recurrence UNTIL=${quoted(value)} must be in UTC, ending in Z (RFC 5545 §3.3.10)`);
    return undefined;
  }
  const [hour, minute, second] = [Number(match[4]), Number(match[5]), Number(match[6])];
  if (hour > 23 || minute > 59 || second > 59) {
    problems.push(problem);
    return undefined;
  }
  return { kind: 'instant', ms: date.getTime() + ((hour * 60 + minute) * 60 + second) * 1000 };
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

/** A part of the rule as a message quotes it: as JSON, cut to 40 characters. */
function quoted(text: string): string {
  return JSON.stringify(clip(text, 40));
}
