// Who a new API key is for, checked the same way wherever a key is made: the CLI's `keys create`, an embedding's createKey.
import { email, personName, Problem } from '../lib/checks.js';
import { ROLES, type Role } from './principal.js';

/** The role of a key made without one. */
export const DEFAULT_KEY_ROLE: Role = 'organizer';

/** A key's owner as it is kept. */
export interface CheckedOwner {
  name: string;
  email: string;
  role: Role;
}

/**
 * The owner's name, e-mail address and role (`DEFAULT_KEY_ROLE` when undefined), or the problem of the first wrong one
 * in that order; `fields` names each as the caller's user knows it (`--name` on the command line).
 */
export function checkKeyOwner(owner: { name: unknown; email: unknown; role?: unknown }, fields = { name: 'name', email: 'email', role: 'role' }): CheckedOwner | Problem {
  const name = personName(owner.name, fields.name);
  if (name instanceof Problem) return name;
  const address = email(owner.email, fields.email);
  if (address instanceof Problem) return address;
  const role = owner.role ?? DEFAULT_KEY_ROLE;
  if (!(ROLES as readonly unknown[]).includes(role)) return new Problem(fields.role, `${fields.role} must be one of ${ROLES.join(', ')}, got "${String(role)}"`);
  return { name, email: address, role: role as Role };
}
