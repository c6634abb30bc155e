// Where an event or a series stands (API.md §14), in words: the console never tells a status by colour alone.
import type { PublishStatus, Publishing } from './types.js';

/** The campus's `--approval` as settings.json tells it; `unknown` when a server does not say. */
export type Approval = 'off' | 'required' | 'unknown';

/** The status of an answer: absent means `published` (the API leaves it out then). */
export function statusOf(item: Publishing): PublishStatus {
  return item.status ?? 'published';
}

/** True for a draft an administrator sent back (it carries the reviewer's note). */
export function isReturned(item: Publishing): boolean {
  return statusOf(item) === 'draft' && item.review_note !== undefined;
}

/** The short label shown beside a title: "Draft", "Returned for changes", "Pending approval", "Cancelled"; undefined for a published one. */
export function statusLabel(item: Publishing): string | undefined {
  switch (statusOf(item)) {
    case 'draft':
      return isReturned(item) ? 'Returned for changes' : 'Draft';
    case 'pending':
      return 'Pending approval';
    case 'cancelled':
      return 'Cancelled';
    case 'published':
      return undefined;
  }
}

/** One sentence on who sees it and what comes next, shown after the label on an event's or a series' own page. */
export function statusSentence(item: Publishing, kind: 'event' | 'series'): string {
  const it = kind === 'event' ? 'this event' : 'this series';
  switch (statusOf(item)) {
    case 'draft':
      return isReturned(item)
        ? `An administrator sent ${it} back: only its organizer and administrators see it. Change what the note asks, then submit it again.`
        : `Only its organizer and administrators see ${it}.`;
    case 'pending':
      return `An administrator reviews ${it} before others see it; until then only its organizer and administrators do.`;
    case 'cancelled':
      return `${kind === 'event' ? 'This event' : 'This series'} stays in lists and calendars, marked as called off, and takes no new registrations.`;
    case 'published':
      return `Everyone can see ${it}.`;
  }
}

/** The words of the button that asks for publication: "Publish" where it publishes at once, "Submit for approval" where it may wait. */
export function submitLabel(role: string, approval: Approval): string {
  return role === 'admin' || approval === 'off' ? 'Publish' : 'Submit for approval';
}

/** What the server did with a request, from the status it answered with (a submit may publish or wait). */
export function outcomeSentence(title: string, answered: PublishStatus): string {
  switch (answered) {
    case 'published':
      return `“${title}” is published: everyone can see it now.`;
    case 'pending':
      return `“${title}” is submitted for approval: an administrator reviews it before others see it.`;
    case 'draft':
      return `“${title}” is a draft: only its organizer and administrators see it.`;
    case 'cancelled':
      return `“${title}” is cancelled: it stays listed, marked as cancelled.`;
  }
}

/** A text cut to `max` code points with an ellipsis, for a reason shown in a list (the whole one is on the event's page). */
export function clip(text: string, max = 120): string {
  const points = [...text];
  return points.length <= max ? text : `${points.slice(0, max - 1).join('').trimEnd()}…`;
}
