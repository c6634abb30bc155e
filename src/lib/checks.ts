// Small named checkers: each takes a value and its field name, and returns the normalised value or a Problem naming the field.
import { clip } from './clip.js';

/** What a checker returns for a bad value. */
export class Problem {
  /** `also`: further problems found in the same value (an object's other sub-fields), so every one is reported. */
  constructor(readonly field: string, readonly message: string, readonly also: readonly Problem[] = []) {}
}

export type Check<T> = (value: unknown, field: string) => T | Problem;

/** Quotes a client's value for a message, shortened so a 60 KiB string does not come back whole. */
export function quote(value: unknown): string {
  // Only scalars are quoted: stringifying a client's deeply nested object could exhaust the stack.
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' || typeof value === 'boolean' || value === null ? JSON.stringify(value) : typeName(value);
  return clip(text);
}

function typeName(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

// C0 controls, DEL and C1 controls; `multiline` text may keep tab, newline and carriage return.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROL_BUT_WHITESPACE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Counts Unicode code points, not UTF-16 units. */
export function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/** A string of `min`–`max` code points, optionally trimmed first, with no control characters. */
export function text(options: { min: number; max: number; trim?: boolean; multiline?: boolean }): Check<string> {
  const { min, max, trim = false, multiline = false } = options;
  const limits = trim ? `${min}–${max} characters after trimming` : `${min}–${max} characters`;
  return (value, field) => {
    if (typeof value !== 'string') return new Problem(field, `${field} must be a string of ${limits}, got ${typeName(value)}`);
    if ((multiline ? CONTROL_BUT_WHITESPACE : CONTROL).test(value)) {
      const allowed = multiline ? ' (only tab, newline and carriage return are allowed)' : '';
      return new Problem(field, `${field} must not contain control characters${allowed}`);
    }
    if (LONE_SURROGATE.test(value)) return new Problem(field, `${field} must be valid Unicode text (it has a lone surrogate)`);
    const stored = trim ? value.trim() : value;
    const length = codePoints(stored);
    if (length < min || length > max) return new Problem(field, `${field} must be ${limits}, got ${length}`);
    return stored;
  };
}

/** One of a fixed set of strings. */
export function oneOf<T extends string>(values: readonly T[]): Check<T> {
  const list = values.map((v) => `"${v}"`).join(', ');
  return (value, field) =>
    typeof value === 'string' && (values as readonly string[]).includes(value)
      ? (value as T)
      : new Problem(field, `${field} must be one of ${list}, got ${quote(value)}`);
}

/** An integer from `min` to `max` (a number, never a numeric string). */
export function integer(min: number, max: number): Check<number> {
  return (value, field) => {
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      return new Problem(field, `${field} must be an integer from ${min} to ${max}, got ${quote(value)}`);
    }
    if (value < min || value > max) return new Problem(field, `${field} must be from ${min} to ${max}, got ${value}`);
    return value;
  };
}

const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;
/**
 * An invisible format character (a zero-width space, joiner or non-joiner, a soft hyphen, a direction mark): an
 * address holding one looks like another and must not count as a different one (API.md §8's duplicates).
 */
const INVISIBLE = /\p{Cf}/u;

/** An e-mail address: one `@`, no spaces or invisible characters, a local part, a domain with a dot, at most 254 characters. */
export const email: Check<string> = (value, field) => {
  if (typeof value !== 'string' || codePoints(value) > 254 || !EMAIL.test(value) || CONTROL.test(value) || INVISIBLE.test(value) || LONE_SURROGATE.test(value)) {
    return new Problem(field, `${field} must be an e-mail address such as "ada@campus.edu" (at most 254 characters), got ${quote(value)}`);
  }
  return value;
};

/** A person's name: 1 to 200 characters once trimmed. */
export const personName = text({ min: 1, max: 200, trim: true });

/** A person `{name, email}` and nothing else. */
export const person: Check<{ name: string; email: string }> = (value, field) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return new Problem(field, `${field} must be an object {name, email}, got ${typeName(value)}`);
  }
  const fields = value as Record<string, unknown>;
  const problems = Object.keys(fields)
    .filter((key) => key !== 'name' && key !== 'email')
    .map((extra) => new Problem(`${field}.${extra}`, `${field} has no field ${quote(extra)}; it takes only name and email`));
  const name = personName(fields['name'], `${field}.name`);
  if (name instanceof Problem) problems.push(name);
  const address = email(fields['email'], `${field}.email`);
  if (address instanceof Problem) problems.push(address);
  const [first, ...rest] = problems;
  if (first !== undefined) return new Problem(first.field, first.message, rest);
  return { name: name as string, email: address as string };
};
