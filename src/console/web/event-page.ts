// One event's page: its status in words, its details, the publishing moves, edit and delete for who may, and its
// registrations; kept current by live changes.
import { h, replace } from './dom.js';
import { ApiProblem, describeProblem } from './problem.js';
import { alertDeleteFailure, alertMoveFailure, deleteFailureSentence } from './fields.js';
import { formatDateTime, formatSpan } from './format.js';
import { zoneNote } from './zone-note.js';
import { canManage, canRegister } from './roles.js';
import { confirmAction } from './confirm.js';
import { registrationsSection } from './registrations.js';
import { moveButtons, movedWord } from './publishing-actions.js';
import { statusNotice } from './status-marks.js';
import { statusOf } from './status.js';
import { watchUnlisted } from './unlisted-watch.js';
import type { CampusEvent, PublishStatus, Publishing, Registration } from './types.js';
import type { ConsoleContext, Screen } from './context.js';

/**
 * Events this tab is deleting or has deleted: the change feed's word of it then asks for nothing (a 404), on this page or
 * on one drawn again meanwhile (a zone switch, a return to it); a delete refused takes its id out again.
 */
const deleting = new Set<string>();

export function eventPage(ctx: ConsoleContext, id: string, setTitle: (title: string) => void): Screen {
  /** The address this page was drawn for: a delete answered after the person left it does not take them back. */
  const shownAt = location.hash;
  const details = h('div', { class: 'details', 'aria-busy': 'true' }, h('p', {}, 'Loading the event…'));
  const alert = h('div', { class: 'alert', role: 'alert', hidden: true, tabindex: -1 });
  // What the last move did, in words (ctx.announce has already spoken it): it stays visible after the redraw.
  const done = h('p', { class: 'done', hidden: true, tabindex: -1 });
  let registrations: { element: HTMLElement; reload: () => void; status: PublishStatus } | undefined;
  /** Registrations cancelled from this page, by id: shown in their rows, marked cancelled, for as long as the page lives. */
  const cancelled = new Map<string, Registration>();
  const slot = h('div');
  // On a phone with the attendees first, when the event is comes before them (CSS shows this line only then).
  const when = h('p', { class: 'event-when' });
  const page = h('section', { class: 'event-page' }, zoneNote(ctx), alert, done, when, details, slot);
  // On a phone, an organizer comes for the attendees: they go before the event's facts (in the DOM too, so Tab agrees).
  const narrow = window.matchMedia('(max-width: 40rem)');
  let managing = false;
  const arrange = (): void => {
    const first = managing && narrow.matches;
    page.classList.toggle('attendees-first', first);
    if (first) page.insertBefore(slot, details);
    else page.insertBefore(details, slot);
  };
  narrow.addEventListener('change', arrange);

  /** Reads and draws the event; `afterDeletion` says the change feed reported it gone (deleted, or no longer public). */
  async function load(afterDeletion = false): Promise<void> {
    try {
      const { data: event, etag } = await ctx.api.json<CampusEvent>('GET', `/events/${encodeURIComponent(id)}`);
      // The person may have moved on while it loaded: then this page is gone and must not retitle the next one.
      if (!details.isConnected) return;
      setTitle(event.title);
      // The last move's sentence speaks of the status it left; a change made elsewhere since (approved, withdrawn) ends it,
      // and so the sentence the person came with ("Created. … is submitted for approval").
      if (doneStatus !== undefined && statusOf(event) !== doneStatus) {
        done.hidden = true;
        doneStatus = undefined;
      }
      if (drawnStatus !== undefined && statusOf(event) !== drawnStatus) ctx.dropBrought();
      drawnStatus = statusOf(event);
      drawnEtag = etag;
      when.textContent = formatSpan(event.start_time, event.end_time, ctx.zones.shown);
      const manage = canManage(ctx.me, event);
      managing = manage;
      const full = event.registered_count >= event.capacity;
      const moves = manage ? moveButtons(ctx, event, { kind: 'event', etag, done: moved, failed: (error, move) => alertMoveFailure(alert, error, 'event', movedWord(ctx, move), drawnStatus, () => load().then(() => drawnStatus)) }) : [];
      // One primary button: Edit, unless a move (submit, approve) is the step to take.
      const editClass = moves.some((button) => button.classList.contains('primary')) ? 'button' : 'button primary';
      replace(
        details,
        statusNotice(event, 'event'),
        h(
          'dl',
          { class: 'facts' },
          h('dt', {}, 'Starts'),
          h('dd', {}, formatDateTime(event.start_time, ctx.zones.shown)),
          h('dt', {}, 'Ends'),
          h('dd', {}, formatDateTime(event.end_time, ctx.zones.shown)),
          h('dt', {}, 'Location'),
          h('dd', {}, event.location),
          h('dt', {}, 'Category'),
          h('dd', {}, event.category),
          h('dt', {}, 'Seats'),
          h('dd', { class: 'seats' }, `${event.registered_count} of ${event.capacity} taken${full ? ' (full: new registrations join the waitlist)' : ''}`),
          h('dt', {}, 'Organizer'),
          h('dd', {}, `${event.organizer.name} (${event.organizer.email})`),
          event.series_id === undefined ? null : [h('dt', {}, 'Series'), h('dd', {}, h('a', { href: `#/series/${event.series_id}` }, 'Part of a series: see every occurrence'))],
        ),
        event.description === '' ? null : h('div', { class: 'description' }, event.description.split('\n').map((line) => h('p', {}, line))),
        manage
          ? h(
              'div',
              { class: 'actions' },
              moves,
              h('a', { href: `#/events/${event.id}/edit`, class: editClass }, 'Edit event'),
              h('button', { type: 'button', class: 'danger', onclick: () => void remove(event, etag) }, 'Delete event'),
            )
          : null,
      );
      // The registrations section is built once per status, so a live refresh keeps what someone is typing in it.
      if ((registrations === undefined || registrations.status !== statusOf(event)) && canRegister(ctx.me)) {
        registrations = { ...registrationsSection(ctx, event, manage, cancelled, () => void load()), status: statusOf(event) };
        replace(slot, registrations.element);
      } else {
        registrations?.reload();
      }
      arrange();
    } catch (error) {
      const gone = afterDeletion && error instanceof ApiProblem && error.status === 404;
      replace(details, h('p', { class: 'alert', role: 'alert' }, gone ? 'Someone else has just deleted this event.' : describeProblem(error)), h('p', {}, h('a', { href: '#/events' }, 'Back to the events')));
      if (gone) slot.replaceChildren();
    } finally {
      details.setAttribute('aria-busy', 'false');
    }
  }

  /** The status the sentence in `done` was written for. */
  let doneStatus: PublishStatus | undefined;
  /** The status the page was last drawn with, and the ETag of what it drew. */
  let drawnStatus: PublishStatus | undefined;
  let drawnEtag: string | null = null;

  /** After a move: the outcome stays in words above the event, which is drawn again as the server now has it. */
  function moved(updated: Publishing, outcome: string): void {
    alert.hidden = true;
    done.hidden = false;
    done.textContent = outcome;
    doneStatus = statusOf(updated);
    void load().then(() => done.focus());
  }

  /** Deletes the event as this page showed it (If-Match): one changed meanwhile, while the question was open say, is kept. */
  async function remove(event: CampusEvent, etag: string | null): Promise<void> {
    if (!(await confirmAction(`Delete “${event.title}” for good? Its ${event.registered_count} registration${event.registered_count === 1 ? '' : 's'} go with it.`, 'Delete event'))) return;
    // Before the answer: the change feed may tell of the delete first.
    deleting.add(id);
    try {
      await ctx.api.json('DELETE', `/events/${encodeURIComponent(event.id)}`, { headers: etag === null ? {} : { 'If-Match': etag } });
      ctx.announce(`Deleted “${event.title}”.`);
      // Someone who went elsewhere meanwhile stays there (the next screen may still be loading: the address says).
      if (location.hash === shownAt) ctx.navigate('#/events', { showMessage: true });
    } catch (error) {
      const gone = error instanceof ApiProblem && error.status === 404;
      if (!gone) deleting.delete(id);
      if (page.isConnected && !gone) return alertDeleteFailure(alert, error, 'event', () => void load());
      // Deleted already (in another tab), or this page was drawn again meanwhile (a zone switch): said where the person is.
      ctx.announce(deleteFailureSentence(error, 'event') ?? describeProblem(error));
      if (location.hash === shownAt) ctx.navigate(gone ? '#/events' : shownAt, { showMessage: true });
    }
  }

  void load();
  // A pending or draft event is in no change feed (API.md §14): read again each minute while it is one.
  const stopWatching = watchUnlisted(ctx, `/events/${encodeURIComponent(id)}`, details, () => ({ status: drawnStatus, etag: drawnEtag }), () => void load());
  return {
    title: 'Event',
    element: page,
    onChange(entry) {
      if (entry.id !== id || deleting.has(id)) return;
      // A deletion in the feed may be an event that left public view (sent back for approval): its organizer still sees it.
      void load(entry.deleted);
    },
    dispose() {
      narrow.removeEventListener('change', arrange);
      stopWatching();
    },
  };
}
