// Validates a POST or PUT /series body (API.md §11): the event fields of §4, time_zone, recurrence and exdates, every problem named.
import { ApiError, type FieldProblem } from '../http/errors.js';
import type { Principal } from '../auth/principal.js';
import { Problem, quote } from '../lib/checks.js';
import { samePerson } from '../events/validate.js';
import { dateTime } from '../events/time.js';
import { EVENT_FIELDS } from '../events/schema.js';
import { canonicalZone, isTimeZone } from '../lib/time-zone.js';
import { expandSchedule, ruleStarts, ScheduleProblem, type Occurrence } from './expand.js';
import { planExdates } from './series-exdates.js';
import { formatTime } from '../events/time.js';
import { parseRecurrence, MAX_OCCURRENCES, type RecurrenceRule } from './recurrence-rule.js';
import { seriesStatus, type ScheduleFields, type SeriesDocument, type SharedFields } from './series-document.js';
import type { EventStatus } from '../events/event.js';
import { createdStatus, type ApprovalMode } from '../events/publishing.js';

/** The fields of a series that change every occurrence not edited on its own. */
export const SHARED_FIELDS = ['title', 'description', 'category', 'location', 'capacity', 'organizer'] as const;
/** The fields that make the schedule: a change of any expands it again. */
export const SCHEDULE_FIELDS = ['start_time', 'end_time', 'time_zone', 'recurrence', 'exdates'] as const;
const READ_ONLY_FIELDS = ['id', 'occurrence_count', 'created_at'] as const;
const REQUIRED_ON_CREATE = ['title', 'category', 'location', 'start_time', 'end_time', 'capacity', 'recurrence'] as const;

/** A valid series body: its fields merged over the current ones, its parsed rule and its occurrences. */
export interface SeriesInput {
  shared: SharedFields;
  schedule: ScheduleFields;
  rule: RecurrenceRule;
  occurrences: Occurrence[];
  /** Which schedule fields the body sent (a PUT without any keeps the occurrences' times). */
  scheduleSent: boolean;
  /**
   * The status: on create, the one the series gets (API.md §14, under `--approval`); on update, the one asked for
   * (the current one when the body names none), whose move the caller judges.
   */
  status: EventStatus;
  /** A cancellation_reason the body sent (only with a cancelled result). */
  cancellationReason?: string;
}

/**
 * Checks a body against `current` (undefined on create: then the required fields must be there and the
 * organizer is the key's owner unless an admin names one). Throws `validation_failed` with every problem.
 */
export function validateSeries(body: Record<string, unknown>, principal: Principal, current: SeriesDocument | undefined, campusZone: string, approval: ApprovalMode = 'off'): SeriesInput {
  const problems: FieldProblem[] = [];
  const values: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) {
    const checked = checkField(field, value, principal, current);
    if (checked instanceof Problem) for (const problem of [checked, ...checked.also]) problems.push({ field: problem.field, message: problem.message });
    else if (checked !== SKIP) values[field] = checked;
  }
  if (current === undefined) {
    for (const field of REQUIRED_ON_CREATE) if (!Object.hasOwn(body, field)) problems.push({ field, message: `${field} is required` });
  }
  const status = publishingStatus(values, current, principal, approval, problems);
  const merged = {
    title: current?.title,
    description: current?.description ?? '',
    category: current?.category,
    location: current?.location,
    capacity: current?.capacity,
    organizer: current?.organizer ?? { name: principal.name, email: principal.email },
    time_zone: current?.time_zone ?? campusZone,
    start_time: current?.start_time,
    end_time: current?.end_time,
    recurrence: current?.recurrence,
    exdates: current?.exdates ?? [],
    ...values,
  } as SharedFields & ScheduleFields;
  const scheduleSent = SCHEDULE_FIELDS.some((field) => Object.hasOwn(values, field));
  let rule: RecurrenceRule | undefined;
  if (typeof merged.recurrence === 'string' && !problems.some((p) => p.field === 'recurrence')) {
    const parsed = parseRecurrence(merged.recurrence);
    if (Array.isArray(parsed)) for (const message of parsed) problems.push({ field: 'recurrence', message });
    else rule = parsed;
  }
  const timesOk = !problems.some((p) => p.field === 'start_time' || p.field === 'end_time');
  if (timesOk && typeof merged.start_time === 'string' && typeof merged.end_time === 'string' && merged.end_time <= merged.start_time) {
    const blame = Object.hasOwn(values, 'end_time') || !Object.hasOwn(values, 'start_time') ? 'end_time' : 'start_time';
    problems.push({ field: blame, message: blame === 'end_time' ? `end_time must be after start_time (${merged.start_time}), got ${merged.end_time}` : `start_time must be before end_time (${merged.end_time}), got ${merged.start_time}` });
  }
  throwIfAny(problems);
  // Every field is valid: now the schedule as a whole.
  // The rule is kept as it was sent (a client reads back what it wrote); only its meaning was checked.
  const schedule = { time_zone: merged.time_zone, start_time: merged.start_time, end_time: merged.end_time, recurrence: merged.recurrence, exdates: merged.exdates };
  const startMs = Date.parse(schedule.start_time);
  try {
    const sent = Object.hasOwn(values, 'exdates') ? (values['exdates'] as string[]).map((each) => Date.parse(each)) : undefined;
    const before = current === undefined ? undefined : { startMs: Date.parse(current.start_time), zone: current.time_zone, exdates: current.exdates.map((each) => Date.parse(each)) };
    const exdates = planExdates({ startMs, zone: schedule.time_zone }, rule!, sent, before);
    schedule.exdates = exdates.kept.map(formatTime);
    // A series whose occurrences were all deleted one by one (each adding its start to exdates) makes none: it may
    // still be renamed, cancelled or restored, also sent back whole as read; only a new schedule must make one.
    const allowNone = current !== undefined && sameSchedule(current, schedule, rule!);
    const occurrences = expandSchedule({ startMs, endMs: Date.parse(schedule.end_time), zone: schedule.time_zone, rule: rule!, exdates: exdates.applied }, { allowNone });
    const { title, description, category, location, capacity, organizer } = merged;
    const reason = values['cancellation_reason'] as string | undefined;
    return { shared: { title, description, category, location, capacity, organizer }, schedule, rule: rule!, occurrences, scheduleSent, status, ...(reason === undefined ? {} : { cancellationReason: reason }) };
  } catch (error) {
    if (error instanceof ScheduleProblem) throwIfAny([{ field: error.field, message: error.message }]);
    throw error;
  }
}

/** Whether `next` (whose rule is `nextRule`) is the schedule `current` has, however its times, exdates and rule are written. */
function sameSchedule(current: SeriesDocument, next: ScheduleFields, nextRule: RecurrenceRule): boolean {
  const instants = (times: readonly string[]): number[] => times.map((time) => Date.parse(time)).sort((a, b) => a - b);
  const exdates = instants(next.exdates);
  const same =
    next.time_zone === current.time_zone &&
    Date.parse(next.start_time) === Date.parse(current.start_time) &&
    Date.parse(next.end_time) === Date.parse(current.end_time) &&
    exdates.join() === instants(current.exdates).join();
  if (!same || next.recurrence === current.recurrence) return same;
  // The rule written another way (parts in another order, lower case, a WKST that changes nothing) makes the same dates.
  const currentRule = parseRecurrence(current.recurrence);
  if (Array.isArray(currentRule)) return false;
  const schedule = { startMs: Date.parse(next.start_time), zone: next.time_zone };
  try {
    const excluded = new Set(exdates);
    return ruleStarts({ ...schedule, rule: currentRule }, excluded).join() === ruleStarts({ ...schedule, rule: nextRule }, excluded).join();
  } catch (error) {
    if (error instanceof ScheduleProblem) return false;
    throw error;
  }
}

/**
 * The status of a create (under `approval`) or the one a PUT asks for, and the rules of cancellation_reason: never
 * on create, else only with a cancelled result (API.md §14). Problems are added to `problems`.
 */
function publishingStatus(values: Record<string, unknown>, current: SeriesDocument | undefined, principal: Principal, approval: ApprovalMode, problems: FieldProblem[]): EventStatus {
  const requested = values['status'] as EventStatus | undefined;
  const hasReason = Object.hasOwn(values, 'cancellation_reason');
  if (current === undefined) {
    if (hasReason) problems.push({ field: 'cancellation_reason', message: 'cancellation_reason cannot be sent on create: a new series is never cancelled' });
    if (problems.some((problem) => problem.field === 'status')) return 'draft';
    const status = createdStatus(requested, principal, approval, 'series');
    if (typeof status === 'string') return status;
    problems.push(status);
    return 'draft';
  }
  const status = requested ?? seriesStatus(current);
  if (hasReason && status !== 'cancelled') problems.push({ field: 'cancellation_reason', message: `cancellation_reason may be sent only with status "cancelled" or on a cancelled series; this one would be "${status}"` });
  return status;
}

const SKIP = Symbol('unchanged read-only field');

function checkField(field: string, value: unknown, principal: Principal, current: SeriesDocument | undefined): unknown {
  if (field === 'review_note') {
    if (current?.review_note !== undefined && value === current.review_note) return SKIP;
    return new Problem(field, current === undefined ? 'review_note is set by the service (a reviewer\'s reason) and cannot be sent on create' : 'review_note is read-only; it may only be sent with its stored value');
  }
  if (field === 'status' || field === 'cancellation_reason') return EVENT_FIELDS[field]!.check!(value, field);
  if ((READ_ONLY_FIELDS as readonly string[]).includes(field)) {
    const stored = current === undefined ? undefined : field === 'occurrence_count' ? current.occurrences.length : current[field as 'id' | 'created_at'];
    if (stored !== undefined && value === stored) return SKIP;
    return new Problem(field, current === undefined ? `${field} is set by the service and cannot be sent on create` : `${field} is read-only; it may only be sent with its stored value`);
  }
  if (field === 'organizer' && principal.role !== 'admin') {
    if (samePerson(value, current?.organizer ?? { name: principal.name, email: principal.email })) return SKIP;
    return new Problem(field, 'organizer may be set only with an admin key; it is the key\'s owner otherwise');
  }
  if ((SHARED_FIELDS as readonly string[]).includes(field) || field === 'start_time' || field === 'end_time') return EVENT_FIELDS[field]!.check!(value, field);
  switch (field) {
    case 'time_zone':
      return typeof value === 'string' && isTimeZone(value) ? canonicalCase(value) : new Problem(field, `time_zone must be an IANA time zone name such as "Europe/Berlin", got ${quote(value)}`);
    case 'recurrence':
      return typeof value === 'string' ? value : new Problem(field, `recurrence must be an RRULE value such as "FREQ=WEEKLY;BYDAY=TU,TH;COUNT=20", got ${quote(value)}`);
    case 'exdates': {
      // More only when the series already holds more (deletes of its occurrences), so it can be sent back as read.
      const most = Math.max(MAX_OCCURRENCES, current?.exdates.length ?? 0);
      if (!Array.isArray(value) || value.length > most) return new Problem(field, `exdates must be an array of at most ${most} RFC 3339 date-times, got ${Array.isArray(value) ? `${value.length} of them` : quote(value)}`);
      const problems: Problem[] = [];
      const times: string[] = [];
      value.forEach((each, index) => {
        const checked = dateTime(each, `exdates[${index}]`);
        if (checked instanceof Problem) problems.push(checked);
        else times.push(checked);
      });
      const [first, ...rest] = problems;
      return first === undefined ? times : new Problem(first.field, first.message, rest);
    }
    default:
      return new Problem(field, `${quote(field)} is not a field of a series`);
  }
}

/** `europe/berlin` as IANA writes it, `Europe/Berlin` (a zone ICU knows by another name is kept as sent). */
function canonicalCase(zone: string): string {
  const resolved = canonicalZone(zone) ?? zone;
  return resolved.toLowerCase() === zone.toLowerCase() ? resolved : zone;
}

function throwIfAny(problems: FieldProblem[]): void {
  if (problems.length === 0) return;
  const first = problems[0]!.message;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''} in details)` : '';
  throw new ApiError('validation_failed', `The series is not valid: ${first}${more}.`, { details: problems });
}
