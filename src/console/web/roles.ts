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

/** A change of publishing status the console can offer (API.md §14). */
export type Move = 'submit' | 'withdraw' | 'cancel' | 'restore' | 'approve' | 'reject';

/**
 * The moves offered to `me` on an event or a series in `status` (absent: published): only its organizer or an
 * admin moves it, and only an admin approves or rejects (a pending one, for which an admin is not offered Withdraw).
 */
export function movesFor(me: Me, item: OwnedEvent & { status?: string }): Move[] {
  if (!canManage(me, item)) return [];
  switch (item.status ?? 'published') {
    case 'draft':
      return ['submit'];
    case 'pending':
      return me.role === 'admin' ? ['approve', 'reject'] : ['withdraw'];
    case 'published':
      return ['cancel'];
    case 'cancelled':
      return ['restore'];
    default:
      return [];
  }
}

/** The approval queue: admins only. */
export function canReview(me: Me): boolean {
  return me.role === 'admin';
}
