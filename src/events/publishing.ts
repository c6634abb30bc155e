// The rules of API.md §14 for events and series alike: which status a create gets, which moves a PUT may make, who
// may see a draft or a pending event. Pure: the routes apply them to what they read and write.
import { ApiError, type FieldProblem } from '../http/errors.js';
import { mayActOn, type Principal } from '../auth/principal.js';
import { isHiddenStatus, type EventStatus } from './event.js';

/** `--approval`: whether an organizer's event waits for an admin's approval before anyone else sees it. */
export const APPROVAL_MODES = ['off', 'required'] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/** What is moving: an event or a series, for messages. */
export type Thing = 'event' | 'series';

/** What maySee reads of an event or a series: its status, and (only for a draft) its organizer's e-mail in lower case. */
export interface Visible {
  readonly status?: EventStatus | undefined;
  readonly organizerEmail: string;
}

/**
 * Whether `principal` may see `thing`: anyone a public one; a draft or pending one, who may update it. The e-mail is
 * read only for a draft (a replayed event builds it on demand: a public read does not pay for it).
 */
export function maySee(principal: Principal, thing: Visible): boolean {
  return !isHiddenStatus(thing.status) || mayActOn(principal, 'update', thing.organizerEmail);
}

/** Whether an organizer's publishing waits for approval: required, and not an admin. */
function waitsForApproval(principal: Principal, approval: ApprovalMode): boolean {
  return approval === 'required' && principal.role !== 'admin';
}

/**
 * The status a POST makes (`requested`: the body's `status`, checked as one of the four): `draft` as asked;
 * `published` (or none) is `pending` for an organizer under approval; `pending` only under approval; never
 * `cancelled`. A status refused is a field problem naming `status`.
 */
export function createdStatus(requested: EventStatus | undefined, principal: Principal, approval: ApprovalMode, thing: Thing): EventStatus | FieldProblem {
  if (requested === 'cancelled') return { field: 'status', message: `status cannot be "cancelled" on create: a new ${thing} is "draft" or "published"${approval === 'required' ? ' (or "pending")' : ''}` };
  if (requested === 'pending' && approval === 'off') return { field: 'status', message: `status "pending" means waiting for approval, which this campus does not use (--approval off); send "draft" or "published"` };
  if (requested === 'draft' || requested === 'pending') return requested;
  return waitsForApproval(principal, approval) ? 'pending' : 'published';
}

/**
 * The status a PUT that asks for `requested` leaves on a thing now `current` (API.md §14): the same status is no
 * move; draft → published (pending for an organizer under approval), draft → pending and cancelled → pending (under
 * approval), pending → draft, published → cancelled, cancelled → published (pending for an organizer under
 * approval). Any other move is a 409 naming both statuses.
 */
export function movedStatus(current: EventStatus, requested: EventStatus, principal: Principal, approval: ApprovalMode, what: string): EventStatus {
  if (requested === current) return current;
  const publish = (): EventStatus => (waitsForApproval(principal, approval) ? 'pending' : 'published');
  if ((current === 'draft' || current === 'cancelled') && requested === 'published') return publish();
  if ((current === 'draft' || current === 'cancelled') && requested === 'pending' && approval === 'required') return 'pending';
  if (current === 'pending' && requested === 'draft') return 'draft';
  if (current === 'published' && requested === 'cancelled') return 'cancelled';
  throw new ApiError('conflict', `Cannot move ${what} from "${current}" to "${requested}" by PUT; ${moveHint(current, requested, approval)}`);
}

/** What a refused move could have been instead. */
function moveHint(current: EventStatus, requested: EventStatus, approval: ApprovalMode): string {
  if (current === 'pending' && requested === 'published') return 'an admin approves it (POST .../approve), or send "draft" to withdraw it.';
  if (requested === 'pending') return approval === 'off' ? '"pending" means waiting for approval, which this campus does not use (--approval off).' : 'only a draft or a cancelled one can be submitted for approval.';
  if (requested === 'cancelled') return 'only a published one can be cancelled (a draft or a pending one can be deleted instead).';
  if (requested === 'draft') return 'only a pending one can go back to draft (withdrawn); a published one can be cancelled.';
  return 'the moves are draft → published, draft or cancelled → pending (under approval), pending → draft, published → cancelled and cancelled → published.';
}

/** The 409 of an approve or reject on a thing that is not pending. */
export function notPending(what: string, status: EventStatus, action: 'approve' | 'reject'): ApiError {
  return new ApiError('conflict', `Cannot ${action} ${what}: it is "${status}", and only a "pending" one waits for approval.`);
}
