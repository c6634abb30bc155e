// Checks a registration body: `{name, email}` and nothing else, every problem named by its field.
import { ApiError, type FieldProblem } from '../http/errors.js';
import { email, Problem, quote, text } from '../lib/checks.js';

/** What a registration body yields. */
export interface RegistrationInput {
  name: string;
  email: string;
}

const name = text({ min: 1, max: 200, trim: true });

/** Validates the body of `POST /events/{id}/registrations`; throws `validation_failed` with every problem. */
export function validateRegistration(body: Record<string, unknown>): RegistrationInput {
  const problems: FieldProblem[] = [];
  for (const field of Object.keys(body)) {
    if (field !== 'name' && field !== 'email') problems.push({ field, message: `${quote(field)} is not a field of a registration; it takes only name and email` });
  }
  const checkedName = Object.hasOwn(body, 'name') ? name(body['name'], 'name') : new Problem('name', 'name is required');
  const checkedEmail = Object.hasOwn(body, 'email') ? email(body['email'], 'email') : new Problem('email', 'email is required');
  for (const checked of [checkedName, checkedEmail]) if (checked instanceof Problem) problems.push({ field: checked.field, message: checked.message });
  throwIfAny('The registration is not valid', problems);
  return { name: checkedName as string, email: checkedEmail as string };
}

/** Validates the body of a check-in: empty, or `{}`. */
export function validateCheckIn(body: Record<string, unknown>): void {
  const problems = Object.keys(body).map((field) => ({ field, message: `${quote(field)} is not a field of a check-in; send an empty body or {}` }));
  throwIfAny('The check-in takes no fields', problems);
}

function throwIfAny(what: string, problems: FieldProblem[]): void {
  if (problems.length === 0) return;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''} in details)` : '';
  throw new ApiError('validation_failed', `${what}: ${problems[0]!.message}${more}.`, { details: problems });
}
