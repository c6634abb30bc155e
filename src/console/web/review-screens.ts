// The screens of API.md §14: an organizer's drafts and submissions (rejected ones with the reviewer's note), and
// the admins' approval queue, each a list of events and one of series with the publishing moves on every row.
import { h } from './dom.js';
import { statusList } from './status-list.js';
import type { ConsoleContext, Screen } from './context.js';

/** `#/drafts`: drafts and pending events, the key's own for an organizer, everyone's for an admin. */
export function draftsView(ctx: ConsoleContext): Screen {
  const mine = ctx.me.role !== 'admin';
  const events = statusList(ctx, { kind: 'event', status: 'draft,pending', heading: 'Events', empty: mine ? 'You have no drafts, and nothing waits for approval.' : 'No drafts, and nothing waits for approval.', organizer: !mine, onMoved: () => void series.reload() });
  const series = statusList(ctx, { kind: 'series', status: 'draft,pending', heading: 'Series', organizer: !mine, onMoved: () => void events.reload() });
  const changed = followed(() => void Promise.all([events.reload(), series.reload()]));
  return {
    title: mine ? 'My drafts' : 'Drafts',
    element: h(
      'section',
      {},
      h('p', {}, `${mine ? 'Your events' : 'Events'} that others cannot see yet: drafts, and those waiting for an administrator's approval. One an administrator sent back is a draft again, with the reviewer's note.`),
      h('p', {}, h('a', { href: '#/new', class: 'button' }, 'New event')),
      events.element,
      series.element,
    ),
    onChange: changed.run,
    dispose: changed.cancel,
  };
}

/** `#/queue` (admins): what waits for approval, with Approve and Reject (a reason required) on each. */
export function approvalQueue(ctx: ConsoleContext): Screen {
  const events = statusList(ctx, { kind: 'event', status: 'pending', heading: 'Events waiting', empty: 'Nothing waits for approval.', organizer: true, onMoved: () => void series.reload() });
  const series = statusList(ctx, { kind: 'series', status: 'pending', heading: 'Series waiting', organizer: true, onMoved: () => void events.reload() });
  // Another admin's approval reaches the change feed (as the event's creation): the row leaves here.
  const changed = followed(() => {
    void Promise.all([events.reload(), series.reload()]);
    ctx.queueChanged();
  });
  return {
    title: 'Approval queue',
    element: h(
      'section',
      {},
      h('p', {}, 'Approve to publish, or reject with a reason: the organizer sees it with their draft. Approving or rejecting a series acts on every occurrence not edited on its own.'),
      series.element,
      events.element,
    ),
    onChange: changed.run,
    dispose: changed.cancel,
  };
}

/** How often a screen of unpublished events reads its lists again: submissions never reach the change feed. */
const RELOAD_MS = 60_000;

/**
 * `action` on every change in the feed (several in a burst cost one) and once a minute, for what the feed does not
 * carry (another organizer's submission, a withdrawal); `cancel` when the screen is left.
 */
function followed(action: () => void): { run(): void; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = (): void => {
    clearTimeout(timer);
    timer = setTimeout(action, 200);
  };
  const ticking = setInterval(run, RELOAD_MS);
  return {
    run,
    cancel: () => {
      clearTimeout(timer);
      clearInterval(ticking);
    },
  };
}
