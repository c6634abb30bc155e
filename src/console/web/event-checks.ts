// The checks of an event body the console can make before sending it (API.md §4), in the API's own messages, so the
// form shows the same sentences as after a 400 without sending a request that is bound to be refused.
import type { FieldProblem } from './problem.js';

const REQUIRED = ['title', 'category', 'location', 'start_time', 'end_time', 'capacity'] as const;
const TEXTS: [field: string, min: number, max: number, trimmed: boolean][] = [
  ['title', 1, 200, true],
  ['location', 1, 200, true],
  ['description', 0, 5000, false],
];

/** The server's shape of an e-mail address (src/lib/checks.ts): one `@`, no spaces, a domain with a dot. */
const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;
/** An invisible format character, which the server refuses in an address too. */
const INVISIBLE = /\p{Cf}/u;

/** A value in a message as the server quotes it: as JSON, cut to 60 characters. */
function quoted(text: string): string {
  const json = JSON.stringify(text);
  return json.length > 60 ? `${json.slice(0, 57)}...` : json;
}

/**
 * The problems the server would find in `body` (a create when `current` is undefined, else an update of `current`):
 * required fields, text lengths, capacity's range, and an end that is not after the start. Empty when it looks valid;
 * the server still judges everything else (control characters, e-mail addresses, who may send what).
 */
export function localProblems(body: Record<string, unknown>, current?: { start_time: string; end_time: string }): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const [field, min, max, trimmed] of TEXTS) {
    const value = body[field];
    if (typeof value !== 'string') continue;
    // Code points, as the server counts them.
    const length = [...(trimmed ? value.trim() : value)].length;
    if (length < min || length > max) problems.push({ field, message: `${field} must be ${min}–${max} characters${trimmed ? ' after trimming' : ''}, got ${length}` });
  }
  const capacity = body['capacity'];
  if (typeof capacity === 'number') {
    if (!Number.isInteger(capacity)) problems.push({ field: 'capacity', message: `capacity must be an integer from 1 to 100000, got ${capacity}` });
    else if (capacity < 1 || capacity > 100_000) problems.push({ field: 'capacity', message: `capacity must be from 1 to 100000, got ${capacity}` });
  }
  // An admin's organizer e-mail: checked here too, so a form with a blank title and a bad address names both at once.
  const organizer = body['organizer'];
  if (typeof organizer === 'object' && organizer !== null) {
    const address = (organizer as Record<string, unknown>)['email'];
    if (typeof address === 'string' && ([...address].length > 254 || !EMAIL.test(address) || INVISIBLE.test(address))) {
      problems.push({ field: 'organizer.email', message: `organizer.email must be an e-mail address such as "ada@campus.edu" (at most 254 characters), got ${quoted(address)}` });
    }
  }
  if (current === undefined) {
    for (const field of REQUIRED) if (!Object.hasOwn(body, field)) problems.push({ field, message: `${field} is required` });
  }
  // An edit's emptied box (EventFields.changes sends it as ''): a required field cannot be taken away either.
  for (const field of REQUIRED) if (body[field] === '' && !problems.some((problem) => problem.field === field)) problems.push({ field, message: `${field} is required` });
  const start = typeof body['start_time'] === 'string' ? body['start_time'] : current?.start_time;
  const end = typeof body['end_time'] === 'string' ? body['end_time'] : current?.end_time;
  // Both are UTC in one format (the form writes them with toISOString), so they compare as text, as the server's do.
  if (start !== undefined && end !== undefined && end <= start && !problems.some((problem) => problem.field === 'start_time' || problem.field === 'end_time')) {
    problems.push(
      Object.hasOwn(body, 'end_time') || !Object.hasOwn(body, 'start_time')
        ? { field: 'end_time', message: `end_time must be after start_time (${start}), got ${end}` }
        : { field: 'start_time', message: `start_time must be before end_time (${end}), got ${start}` },
    );
  }
  return problems;
}
