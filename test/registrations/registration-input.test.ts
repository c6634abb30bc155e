// registration-input: a registration body is {name, email} and nothing else; a check-in body is empty. Every problem is
// reported, named by its field, and the message counts the ones beyond the first. Checked against a model over seeded random bodies.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError, type FieldProblem } from '../../src/http/errors.js';
import { validateCheckIn, validateRegistration } from '../../src/registrations/registration-input.js';
import { mulberry32 } from '../helpers/random.js';

/** Values the name checker takes, with what it keeps (trimmed). */
const GOOD_NAMES: [unknown, string][] = [['Ada', 'Ada'], ['  Grace Hopper  ', 'Grace Hopper'], ['李雷', '李雷'], ['🎉'.repeat(200), '🎉'.repeat(200)], ["O'Neil, Jr.", "O'Neil, Jr."]];
const BAD_NAMES: unknown[] = ['', '   ', 'x'.repeat(201), 'a\u0000b', 'tab\there', 42, null, true, [], {}];
const GOOD_EMAILS = ['ada@campus.edu', 'o.neil+events@mail.campus.edu', 'zoë@x.edu'];
const BAD_EMAILS: unknown[] = ['', 'ada', 'ada@campus', 'a b@campus.edu', '@campus.edu', `${'a'.repeat(250)}@x.edu`, 7, null, ['ada@campus.edu']];
const EXTRA_FIELDS = ['title', 'status', 'Name', 'EMAIL', 'id', '', ' name', '__proto__', 'z'.repeat(70)];

/** The model of quote(): a JSON string, clipped to 60 characters. */
function quoted(field: string): string {
  const text = JSON.stringify(field);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** The model of the top message: the first problem, then how many more there are. */
function summary(what: string, problems: FieldProblem[]): string {
  const more = problems.length === 1 ? '' : problems.length === 2 ? ' (and 1 more problem in details)' : ` (and ${problems.length - 1} more problems in details)`;
  return `${what}: ${problems[0]!.message}${more}.`;
}

function pick<T>(random: () => number, values: readonly T[]): T {
  return values[Math.floor(random() * values.length)]!;
}

/**
 * Asserts that `run` throws validation_failed with exactly `problems` in order (fields, and messages where given), whose
 * message is `what` and the model's summary of them (and `message` exactly, where given).
 */
function assertRefused(run: () => unknown, problems: ExpectedProblem[], what: string, context: string, message?: string): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof ApiError, `${context}: ${String(error)}`);
    assert.equal(error.code, 'validation_failed', context);
    assert.deepEqual(error.details!.map((problem) => problem.field), problems.map((problem) => problem.field), context);
    for (const [index, expected] of problems.entries()) {
      const actual: string = error.details![index]!.message;
      if (expected.message !== undefined) assert.equal(actual, expected.message, context);
      if (expected.startsWith !== undefined) assert.ok(actual.startsWith(expected.startsWith), `${context}: ${JSON.stringify(actual)} should start with ${JSON.stringify(expected.startsWith)}`);
    }
    assert.equal(error.message, summary(what, error.details!), context);
    if (message !== undefined) assert.equal(error.message, message, context);
    return true;
  });
}

interface ExpectedProblem {
  field: string;
  message?: string;
  startsWith?: string;
}

test('validateRegistration() against a model: random mixes of missing, good and bad name and email and unknown fields (seeded)', () => {
  const seed = Number(process.env['TEST_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
  const random = mulberry32(seed);
  for (let round = 0; round < 400; round++) {
    const entries: [string, unknown][] = [];
    const nameKind = pick(random, ['absent', 'good', 'bad'] as const);
    const emailKind = pick(random, ['absent', 'good', 'bad'] as const);
    const goodName = pick(random, GOOD_NAMES);
    const value = { name: nameKind === 'good' ? goodName[0] : pick(random, BAD_NAMES), email: emailKind === 'good' ? pick(random, GOOD_EMAILS) : pick(random, BAD_EMAILS) };
    if (nameKind !== 'absent') entries.push(['name', value.name]);
    if (emailKind !== 'absent') entries.push(['email', value.email]);
    const extras = EXTRA_FIELDS.filter(() => random() < 0.15);
    for (const extra of extras) entries.splice(Math.floor(random() * (entries.length + 1)), 0, [extra, pick(random, [1, 'x', null])]);
    // Through JSON.parse, as a body arrives: "__proto__" then is an own field like any other.
    const json = `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${JSON.stringify(field)}`).join(',')}}`;
    const body = JSON.parse(json) as Record<string, unknown>;
    const context = `seed ${seed} (rerun with TEST_SEED=${seed}), round ${round}: ${json}`;

    const expected: ExpectedProblem[] = Object.keys(body)
      .filter((key) => key !== 'name' && key !== 'email')
      .map((field) => ({ field, message: `${quoted(field)} is not a field of a registration; it takes only name and email` }));
    if (nameKind === 'absent') expected.push({ field: 'name', message: 'name is required' });
    if (nameKind === 'bad') expected.push({ field: 'name', startsWith: 'name must ' });
    if (emailKind === 'absent') expected.push({ field: 'email', message: 'email is required' });
    if (emailKind === 'bad') expected.push({ field: 'email', startsWith: 'email must be an e-mail address' });

    if (expected.length === 0) {
      assert.deepEqual(validateRegistration(body), { name: goodName[1], email: value.email }, context);
    } else {
      assertRefused(() => validateRegistration(body), expected, 'The registration is not valid', context);
    }
  }
});

test('validateRegistration() counts the problems past the first: none, "1 more problem", "2 more problems"', () => {
  assertRefused(() => validateRegistration({ name: 'Ada' }), [{ field: 'email', message: 'email is required' }], 'The registration is not valid', 'one', 'The registration is not valid: email is required.');
  assertRefused(() => validateRegistration({}), [{ field: 'name' }, { field: 'email' }], 'The registration is not valid', 'two', 'The registration is not valid: name is required (and 1 more problem in details).');
  assertRefused(
    () => validateRegistration({ seats: 2, email: 'ada' }),
    [{ field: 'seats', message: '"seats" is not a field of a registration; it takes only name and email' }, { field: 'name' }, { field: 'email' }],
    'The registration is not valid',
    'three',
    'The registration is not valid: "seats" is not a field of a registration; it takes only name and email (and 2 more problems in details).',
  );
});

test('validateCheckIn() takes an empty body and refuses every field, each named', () => {
  assert.equal(validateCheckIn({}), undefined);
  assertRefused(() => validateCheckIn({ at: 'now' }), [{ field: 'at', message: '"at" is not a field of a check-in; send an empty body or {}' }], 'The check-in takes no fields', 'one field', 'The check-in takes no fields: "at" is not a field of a check-in; send an empty body or {}.');
  const many = JSON.parse('{"__proto__":{},"name":"x","checked_in_at":null}') as Record<string, unknown>;
  assertRefused(
    () => validateCheckIn(many),
    [{ field: '__proto__' }, { field: 'name' }, { field: 'checked_in_at', message: '"checked_in_at" is not a field of a check-in; send an empty body or {}' }],
    'The check-in takes no fields',
    'three fields',
    'The check-in takes no fields: "__proto__" is not a field of a check-in; send an empty body or {} (and 2 more problems in details).',
  );
});
