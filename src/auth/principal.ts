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

/** What a route does, for the role table: events' CRUD, registering attendees, managing an event's attendees (list, check-in), reading the calendar feed (API.md §9.1), following the change feed (§9.2), and approving or rejecting what waits for approval (§14). */
export type Action = 'read' | 'create' | 'update' | 'delete' | 'register' | 'attendees' | 'subscribe' | 'changes' | 'webhooks' | 'review';

/** Each action in words, for a 403's message: "A reader key may not …". */
export const ACTION_WORDS: Readonly<Record<Action, string>> = Object.freeze({
  read: 'read events',
  create: 'create events',
  update: 'update events',
  delete: 'delete events',
  register: 'register attendees',
  attendees: "see an event's attendees or check them in",
  subscribe: 'read the calendar feed',
  changes: 'follow the change feed',
  webhooks: 'manage webhooks',
  review: 'approve or reject events',
});

/**
 * The message of a role's 403 (API.md §3 names what is at fault): "A reader key may not create series.".
 * `routeName` tells events from series (a series route's name ends with `Series`), since both share the actions;
 * `actionWords`, a route's own (Route.actionWords), say what it does where the action's words do not.
 */
export function forbiddenMessage(role: Role, action: Action, routeName: string, actionWords?: string): string {
  const article = /^[aeiou]/.test(role) ? 'An' : 'A';
  const words = actionWords ?? (routeName.endsWith('Series') ? ACTION_WORDS[action].replace(/\bevents\b/, 'series') : ACTION_WORDS[action]);
  return `${article} ${role} key may not ${words}.`;
}

/**
 * The role table (API.md §2). `own` means only events whose organizer e-mail is the key's;
 * `any` means every event; absent means never.
 */
export const ROLE_TABLE: Readonly<Record<Role, Partial<Record<Action, 'own' | 'any'>>>> = Object.freeze({
  reader: { read: 'any', register: 'any', subscribe: 'any', changes: 'any' },
  organizer: { read: 'any', create: 'any', update: 'own', delete: 'own', register: 'any', attendees: 'own', subscribe: 'any', changes: 'any' },
  admin: { read: 'any', create: 'any', update: 'any', delete: 'any', register: 'any', attendees: 'any', subscribe: 'any', changes: 'any', webhooks: 'any', review: 'any' },
  // A feed key may travel in a calendar's URL, so it may do nothing but read the calendar feed (and GET /me, which needs no action).
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
