// What the signed-in key may do (API.md §2), so the console offers only that.

/** `GET /me`. */
export interface Me {
  key_id: string;
  name: string;
  email: string;
  role: 'admin' | 'organizer' | 'reader' | 'feed';
}

/** The parts of an event the role rules read. */
export interface OwnedEvent {
  organizer: { name: string; email: string };
}

export function canCreate(me: Me): boolean {
  return me.role === 'admin' || me.role === 'organizer';
}

/** Edit, delete, the attendee list and check-in: the event's organizer or an admin. */
export function canManage(me: Me, event: OwnedEvent): boolean {
  return me.role === 'admin' || (me.role === 'organizer' && event.organizer.email.toLowerCase() === me.email.toLowerCase());
}

/** Registering someone: any role but feed. */
export function canRegister(me: Me): boolean {
  return me.role !== 'feed';
}

/** Lists, pages and the change feed: any role but feed. */
export function canRead(me: Me): boolean {
  return me.role !== 'feed';
}
