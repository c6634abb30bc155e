// Validates a create or update body against the schema, collecting every problem, each naming its field.
import { ApiError, type FieldProblem } from '../http/errors.js';
import type { Principal } from '../auth/principal.js';
import { type EventRecord, type EventStatus, type Person } from './event.js';
import { person, Problem, quote } from '../lib/checks.js';
import { EVENT_FIELDS } from './schema.js';
import { createdStatus, type ApprovalMode } from './publishing.js';

/** The fields a create body yields, before the service adds id, counts, organizer and created_at. */
export type EventInput = Pick<EventRecord, 'title' | 'description' | 'category' | 'location' | 'start_time' | 'end_time' | 'capacity'> & {
  organizer?: Person;
  /** The status the event is created with (API.md §14), from the body's and `--approval`. */
  status: EventStatus;
};

/** The fields a create must send, listed once: walking the schema's entries on every create allocated an array of pairs. */
const REQUIRED_ON_CREATE: readonly string[] = Object.keys(EVENT_FIELDS).filter((field) => EVENT_FIELDS[field]!.required);

/**
 * Checks a POST body: required fields present, every field known, of its type and in range,
 * read-only fields absent (or equal to what the service would set), a status a new event may have under
 * `approval` (API.md §14) and no cancellation_reason. Throws `validation_failed`.
 */
export function validateCreate(body: Record<string, unknown>, principal: Principal, approval: ApprovalMode = 'off'): EventInput {
  const problems: FieldProblem[] = [];
  const values = checkFields(body, principal, undefined, problems);
  for (const field of REQUIRED_ON_CREATE) {
    if (!Object.hasOwn(body, field)) problems.push({ field, message: `${field} is required` });
  }
  values['description'] ??= '';
  checkTimeOrder(values, problems);
  if (Object.hasOwn(body, 'cancellation_reason')) problems.push({ field: 'cancellation_reason', message: 'cancellation_reason cannot be sent on create: a new event is never cancelled' });
  if (!problems.some((problem) => problem.field === 'status')) {
    const status = createdStatus(values['status'] as EventStatus | undefined, principal, approval, 'event');
    if (typeof status === 'string') values['status'] = status;
    else problems.push(status);
  }
  throwIfAny(problems);
  return values as unknown as EventInput;
}

/**
 * Applies a partial PUT body to the stored record and validates the result as a whole
 * (a new end_time before the old start_time fails; a cancellation_reason only on a cancelled result). The
 * record returned holds the status asked for: the move is the caller's to judge (a 409, after every 400).
 * Throws `validation_failed`.
 */
export function validateUpdate(body: Record<string, unknown>, current: EventRecord, principal: Principal): EventRecord {
  const problems: FieldProblem[] = [];
  const values = checkFields(body, principal, current, problems);
  const merged = { ...current, ...values } as EventRecord;
  checkTimeOrder(merged as unknown as Record<string, unknown>, problems, Object.hasOwn(body, 'end_time') || !Object.hasOwn(body, 'start_time') ? 'end_time' : 'start_time');
  if (Object.hasOwn(values, 'cancellation_reason') && (merged.status ?? 'published') !== 'cancelled') {
    problems.push({ field: 'cancellation_reason', message: `cancellation_reason may be sent only with status "cancelled" or on a cancelled event; this one would be "${merged.status ?? 'published'}"` });
  }
  throwIfAny(problems);
  return merged;
}

function checkFields(body: Record<string, unknown>, principal: Principal, current: EventRecord | undefined, problems: FieldProblem[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const field of Object.keys(body)) {
    const value = body[field];
    const rule = Object.hasOwn(EVENT_FIELDS, field) ? EVENT_FIELDS[field] : undefined;
    if (rule === undefined) {
      problems.push({ field, message: `${quote(field)} is not a field of an event` });
    } else if (rule.access === 'read-only' || (rule.access === 'admin-only' && principal.role !== 'admin')) {
      if (!equalsStored(field, value, current, principal)) problems.push({ field, message: readOnlyMessage(field, rule.access, current) });
    } else if (rule.check !== undefined) {
      const checked = rule.check(value, field);
      if (checked instanceof Problem) {
        for (const problem of [checked, ...checked.also]) problems.push({ field: problem.field, message: problem.message });
      } else {
        values[field] = checked;
      }
    }
  }
  return values;
}

/** A read-only field may be sent back unchanged, so a client can PUT what it read. */
function equalsStored(field: string, value: unknown, current: EventRecord | undefined, principal: Principal): boolean {
  if (field === 'organizer') {
    return samePerson(value, current?.organizer ?? { name: principal.name, email: principal.email });
  }
  if (current === undefined) return field === 'registered_count' && value === 0;
  return value === current[field as keyof EventRecord];
}

function readOnlyMessage(field: string, access: string, current: EventRecord | undefined): string {
  if (access === 'admin-only') return `${field} may be set only with an admin key; it is the key's owner otherwise`;
  return current === undefined
    ? `${field} is set by the service and cannot be sent on create`
    : `${field} is read-only; it may only be sent with its stored value`;
}

/** end_time must follow start_time; the problem names `blame`, the field the client sent (end_time when both). */
function checkTimeOrder(values: Record<string, unknown>, problems: FieldProblem[], blame: 'start_time' | 'end_time' = 'end_time'): void {
  const start = values['start_time'];
  const end = values['end_time'];
  if (typeof start !== 'string' || typeof end !== 'string') return;
  if (problems.some((p) => p.field === 'start_time' || p.field === 'end_time')) return;
  if (end > start) return;
  problems.push(
    blame === 'end_time'
      ? { field: 'end_time', message: `end_time must be after start_time (${start}), got ${end}` }
      : { field: 'start_time', message: `start_time must be before end_time (${end}), got ${start}` },
  );
}

function throwIfAny(problems: FieldProblem[]): void {
  if (problems.length === 0) return;
  const first = problems[0]!.message;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''} in details)` : '';
  throw new ApiError('validation_failed', `The event is not valid: ${first}${more}.`, { details: problems });
}

/**
 * Whether `value` names `stored` as a client that read it would send it back: the name equal once trimmed (as it
 * is stored), the e-mail in any case.
 */
export function samePerson(value: unknown, stored: { name: string; email: string }): boolean {
  const sent = person(value, 'organizer');
  return !(sent instanceof Problem) && sent.name === stored.name && sent.email.toLowerCase() === stored.email.toLowerCase();
}
