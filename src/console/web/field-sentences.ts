// The API's field problems (API.md §4, §8) told in the form's own words: a table from (field, rule) to a sentence.
// The API names fields (`end_time`) and quotes UTC; a person sees labels ("Ends") and the times they typed.
// A rule is recognised by the API's own message (the console ships with the server that writes them);
// anything the table does not know falls back to the API's message, which is still a sentence.

import type { FieldProblem } from './problem.js';

/** What a form tells the table: its labels, and values as the person sees them. */
export interface FormWords {
  /** The label of a field of this form ("Ends"); undefined for a field it does not show. */
  label(field: string): string | undefined;
  /** A field's value as the person sees it (a time as typed: "6:00 PM"); undefined when empty. */
  shown(field: string): string | undefined;
  /** An instant from the API, as the form shows times. */
  time(iso: string): string;
}

/** A rule of the table: a pattern of the API's message, and the sentence for a match. */
export interface SentenceRule {
  /** The rule's name, as the tests call it. */
  rule: string;
  /** Fields it applies to; undefined for any field. */
  fields?: readonly string[];
  pattern: RegExp;
  /** A 409's message rather than a `details` entry: the console places it under `fields[0]`. */
  conflict?: true;
  sentence(match: RegExpExecArray, field: string, words: FormWords): string;
}

const name = (field: string, words: FormWords): string => words.label(field) ?? field.replace(/_/g, ' ');
const quoted = (field: string, words: FormWords): string => {
  const value = words.shown(field);
  return value === undefined || value === '' ? '' : ` (${value})`;
};
const list = (values: string[]): string => (values.length < 2 ? values.join('') : `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`);

/** Every rule of §4 (events, and the event fields of a series) and §8 (registrations) that has a field. */
export const SENTENCE_RULES: readonly SentenceRule[] = [
  { rule: 'required', pattern: /^\S+ is required$/, sentence: (_, field, words) => `${name(field, words)} is required.` },
  {
    rule: 'length',
    pattern: /must be (\d+)–(\d+) characters( after trimming)?, got (\d+)$/,
    sentence: (match, field, words) => {
      const [min, max, got] = [Number(match[1]), Number(match[2]), Number(match[4])];
      if (got < min) return `${name(field, words)} cannot be empty${match[3] === undefined ? '' : ' or only spaces'}.`;
      return `${name(field, words)} is too long: ${got} characters, at most ${max}.`;
    },
  },
  { rule: 'text', pattern: /must be a string of /, sentence: (_, field, words) => `${name(field, words)} must be text.` },
  {
    rule: 'control characters',
    pattern: /must not contain control characters/,
    sentence: (_, field, words) => `${name(field, words)} cannot contain control characters${field === 'description' ? ' other than tabs and line breaks' : ' such as tabs or line breaks'}; remove them (they often come with pasted text).`,
  },
  { rule: 'unicode', pattern: /must be valid Unicode text/, sentence: (_, field, words) => `${name(field, words)} holds a broken character (a lone surrogate); type it again.` },
  {
    rule: 'one of',
    pattern: /must be one of (.+), got /,
    sentence: (match, field, words) => `${name(field, words)} must be one of ${list((match[1] ?? '').split(', ').map((value) => value.replace(/"/g, '')))}.`,
  },
  { rule: 'integer', pattern: /must be an integer from (\d+) to (\d+)/, sentence: (match, field, words) => `${name(field, words)} must be a whole number from ${match[1]} to ${match[2]}.` },
  { rule: 'range', pattern: /must be from (\d+) to (\d+), got (-?\d+)$/, sentence: (match, field, words) => `${name(field, words)} must be from ${match[1]} to ${match[2]}, not ${match[3]}.` },
  { rule: 'date-time', pattern: /must be an RFC 3339 date-time/, sentence: (_, field, words) => `${name(field, words)} needs a date and a time, between the years 1970 and 9999.` },
  {
    rule: 'end after start',
    fields: ['end_time'],
    pattern: /^end_time must be after start_time/,
    sentence: (_, field, words) => `${name(field, words)} must be after ${name('start_time', words)}${quoted('start_time', words)}.`,
  },
  {
    rule: 'start before end',
    fields: ['start_time'],
    pattern: /^start_time must be before end_time/,
    sentence: (_, field, words) => `${name(field, words)} must be before ${name('end_time', words)}${quoted('end_time', words)}.`,
  },
  {
    rule: 'e-mail',
    pattern: /must be an e-mail address/,
    sentence: (_, field, words) => {
      const value = words.shown(field);
      const what = value === undefined || value === '' ? `${name(field, words)} must be` : `“${value}” is not`;
      return `${what} an e-mail address such as ada@campus.edu: one @, no spaces, a domain with a dot.`;
    },
  },
  { rule: 'person', pattern: /must be an object \{name, email\}|has no field .* it takes only name and email/, sentence: () => 'The organizer needs a name and an e-mail address, and nothing else.' },
  { rule: 'admin only', pattern: /may be set only with an admin key/, sentence: () => 'Only an administrator can choose the organizer; you are the organizer of what you create.' },
  { rule: 'read-only', pattern: /is set by the service|is read-only/, sentence: (_, field, words) => `${name(field, words)} is set by the server and cannot be changed here.` },
  { rule: 'unknown field', pattern: /is not a field of/, sentence: (_, field) => `This form sent a field the server does not take (${field}); reload the page to get the current console.` },
  // 409s that belong to one field (API.md §5, §8): the console places them under it.
  {
    rule: 'capacity below registrations',
    fields: ['capacity'],
    conflict: true,
    pattern: /^capacity cannot be (\d+): (\d+) attendees are already registered/,
    sentence: (match, field, words) => `${name(field, words)} cannot be lower than the ${match[2]} people already registered; keep at least ${match[2]} seats, or cancel registrations first.`,
  },
  {
    rule: 'capacity below an occurrence\'s registrations',
    fields: ['capacity'],
    conflict: true,
    pattern: /^capacity cannot be (\d+): occurrence "[^"]+" \((\S+)\) already has (\d+) attendees registered/,
    sentence: (match, field, words) => `${name(field, words)} cannot be lower than the ${match[3]} people already registered for the occurrence of ${words.time(match[2]!)}; keep at least ${match[3]} seats, or cancel registrations first.`,
  },
  {
    rule: 'e-mail taken',
    fields: ['email'],
    conflict: true,
    pattern: /^(.*) is already registered for event/,
    sentence: (match) => `${match[1]} is already registered for this event. Cancel that registration first to register this address again.`,
  },
];

/** The rule of the table that knows this problem, with its match; undefined when none does. */
export function sentenceRule(problem: FieldProblem): { entry: SentenceRule; match: RegExpExecArray } | undefined {
  for (const entry of SENTENCE_RULES) {
    if (entry.fields !== undefined && !entry.fields.includes(problem.field)) continue;
    const match = entry.pattern.exec(problem.message);
    if (match !== null) return { entry, match };
  }
  return undefined;
}

/** The sentence for one problem: the table's when a rule knows it, else the API's own message. */
export function fieldSentence(problem: FieldProblem, words: FormWords): string {
  const found = sentenceRule(problem);
  return found === undefined ? problem.message : found.entry.sentence(found.match, problem.field, words);
}

/** A 409's message as a field problem, when it is about one field of a form (capacity, e-mail); else undefined. */
export function conflictProblem(message: string): FieldProblem | undefined {
  for (const entry of SENTENCE_RULES) {
    const field = entry.fields?.[0];
    if (entry.conflict === true && field !== undefined && entry.pattern.test(message)) return { field, message };
  }
  return undefined;
}

/** Sentences for 409s that concern a whole form, not one field: the event has ended, its waitlist is full (§8); a schedule would drop a held occurrence (§11). */
export function conflictSentence(message: string, words: Pick<FormWords, 'time'>): string | undefined {
  const ended = /ended at (\S+); it takes no more registrations/.exec(message);
  if (ended !== null) return `This event has ended (${words.time(ended[1]!)}); it takes no more registrations.`;
  const full = /is full and its waitlist holds its maximum of (\d+)/.exec(message);
  if (full !== null) return `This event is full, and so is its waitlist (${full[1]} people); it takes no more registrations.`;
  const dropped = /^The new schedule would delete occurrence "[^"]+" \((\S+)\), which holds (\d+) registrations?/.exec(message);
  if (dropped !== null) return `The new schedule would drop the occurrence of ${words.time(dropped[1]!)}, which holds ${dropped[2]} registration${dropped[2] === '1' ? '' : 's'}: cancel them first, or keep that date.`;
  return undefined;
}
