// Who is calling: the owner and role of the API key a request carried, and what each role may do.

export const ROLES = ['admin', 'organizer', 'reader', 'feed'] as const;
export type Role = (typeof ROLES)[number];

/** The authenticated caller of a request. */
export interface Principal {
  keyId: string;
  name: string;
  email: string;
  role: Role;
}

/** What a route does, for the role table. `subscribe` is reading the calendar feed (API.md §9.1). */
export type Action = 'read' | 'create' | 'update' | 'delete' | 'subscribe';

/**
 * The role table (API.md §2). `own` means only events whose organizer e-mail is the key's;
 * `any` means every event; absent means never.
 */
export const ROLE_TABLE: Readonly<Record<Role, Partial<Record<Action, 'own' | 'any'>>>> = Object.freeze({
  reader: { read: 'any', subscribe: 'any' },
  organizer: { read: 'any', create: 'any', update: 'own', delete: 'own', subscribe: 'any' },
  admin: { read: 'any', create: 'any', update: 'any', delete: 'any', subscribe: 'any' },
  // A feed key may travel in a calendar's URL, so it may do nothing but read the calendar feed (and GET /me).
  feed: { subscribe: 'any' },
});

/** True when the role can do `action` on at least some event (else the answer is 403 at once). */
export function canEver(role: Role, action: Action): boolean {
  return ROLE_TABLE[role][action] !== undefined;
}

/** True when the principal may do `action` on an event organised by `organizerEmail` (lower case). */
export function mayActOn(principal: Principal, action: Action, organizerEmail: string): boolean {
  const scope = ROLE_TABLE[principal.role][action];
  return scope === 'any' || (scope === 'own' && principal.email.toLowerCase() === organizerEmail);
}
