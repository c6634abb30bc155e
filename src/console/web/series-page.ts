// A series' page (API.md §11): its rule in words, its status and publishing moves (§14), its occurrences
// (GET /events?series_id=) each with its status in words, edit and delete for who may.
import { h, replace } from './dom.js';
import { pager } from './pager.js';
import { queryString } from './api.js';
import { ApiProblem, describeProblem } from './problem.js';
import { alertDeleteFailure, alertMoveFailure, deleteFailureSentence } from './fields.js';
import { formatDate, formatDateTime, parseInput, toZoneInput } from './format.js';
import { describeRepeat, fromRrule } from './repeat-rule.js';
import { canManage } from './roles.js';
import { confirmAction } from './confirm.js';
import { zoneNote } from './zone-note.js';
import { moveButtons, movedWord } from './publishing-actions.js';
import { statusBadge, statusNotice } from './status-marks.js';
import { statusOf } from './status.js';
import { watchUnlisted } from './unlisted-watch.js';
import type { EventPage, PublishStatus, Publishing, Series } from './types.js';
import type { ConsoleContext, Screen } from './context.js';

const PAGE = 25;

/** Series this tab is deleting or has deleted: the change feed's word of their occurrences then asks for nothing. */
const deletingSeries = new Set<string>();

const isPublic = (status: PublishStatus | undefined): boolean => status === 'published' || status === 'cancelled';

export function seriesPage(ctx: ConsoleContext, id: string, setTitle: (title: string) => void): Screen {
  /** The address this page was drawn for: a delete answered after the person left it does not take them back. */
  const shownAt = location.hash;
  const zone = ctx.zones.shown;
  const details = h('div', { 'aria-busy': 'true' }, h('p', {}, 'Loading the series…'));
  const occurrences = h('div');
  const alert = h('div', { class: 'alert', role: 'alert', hidden: true, tabindex: -1 });
  const done = h('p', { class: 'done', hidden: true, tabindex: -1 });
  let page = 1;
  /**
   * For its organizer and admins, the series lists its occurrences that are not public too (drafts, pending): those of a
   * series not yet published, and one edited on its own, which the series' moves pass by (a draft in a published series).
   */
  let everyStatus = false;
  /** The status the sentence in `done` was written for. */
  let doneStatus: PublishStatus | undefined;
  /** The status the series was last drawn with, and the ETag of what it drew. */
  let drawnStatus: PublishStatus | undefined;
  let drawnEtag: string | null = null;

  /** Whether the series was drawn once: a 404 after that is a delete made elsewhere. */
  let drawn = false;
  async function load(): Promise<void> {
    try {
      const { data: series, etag } = await ctx.api.json<Series>('GET', `/series/${encodeURIComponent(id)}`);
      if (!details.isConnected) return;
      drawn = true;
      drawnStatus = statusOf(series);
      drawnEtag = etag;
      setTitle(series.title);
      // The last move's sentence speaks of the status it left; a change made elsewhere since ends it.
      if (doneStatus !== undefined && statusOf(series) !== doneStatus) {
        done.hidden = true;
        doneStatus = undefined;
      }
      const first = parseInput(toZoneInput(series.start_time, series.time_zone))!;
      const repeat = fromRrule(series.recurrence, first, series.time_zone);
      const rule = repeat === undefined ? series.recurrence : describeRepeat(repeat, first, (day) => formatDate(`${day}T12:00:00Z`, 'UTC'));
      const manage = canManage(ctx.me, series);
      everyStatus = manage;
      replace(
        details,
        statusNotice(series, 'series'),
        h(
          'dl',
          { class: 'facts' },
          h('dt', {}, 'Repeats'),
          h('dd', {}, `${rule} (in ${series.time_zone})`),
          h('dt', {}, 'First'),
          h('dd', {}, formatDateTime(series.start_time, zone)),
          h('dt', {}, 'Occurrences'),
          h('dd', {}, String(series.occurrence_count)),
          h('dt', {}, 'Location'),
          h('dd', {}, series.location),
          h('dt', {}, 'Category'),
          h('dd', {}, series.category),
          h('dt', {}, 'Seats'),
          h('dd', {}, `${series.capacity} per occurrence`),
          h('dt', {}, 'Organizer'),
          h('dd', {}, `${series.organizer.name} (${series.organizer.email})`),
        ),
        series.description === '' ? null : h('div', { class: 'description' }, series.description.split('\n').map((line) => h('p', {}, line))),
        manage
          ? h(
              'div',
              { class: 'actions' },
              moveButtons(ctx, series, { kind: 'series', etag, done: moved, failed: (error, move) => alertMoveFailure(alert, error, 'series', movedWord(ctx, move), drawnStatus, () => load().then(() => drawnStatus)) }),
              h('a', { href: `#/series/${series.id}/edit`, class: 'button' }, 'Edit all future occurrences'),
              h('button', { type: 'button', class: 'danger', onclick: () => void remove(series, etag) }, 'Delete series'),
            )
          : null,
      );
      await loadOccurrences();
    } catch (error) {
      // Drawn before and gone now: deleted elsewhere (another tab), in the words the event page uses.
      const gone = drawn && error instanceof ApiProblem && error.status === 404;
      replace(details, h('p', { class: 'alert', role: 'alert' }, gone ? 'Someone else has just deleted this series.' : describeProblem(error)), h('p', {}, h('a', { href: '#/events' }, 'Back to the events')));
    } finally {
      details.setAttribute('aria-busy', 'false');
    }
  }

  /** After a move: its outcome stays above the series, drawn again as the server now has it. */
  function moved(updated: Publishing, outcome: string): void {
    alert.hidden = true;
    done.hidden = false;
    done.textContent = outcome;
    doneStatus = statusOf(updated);
    void load().then(() => done.focus());
  }

  async function loadOccurrences(): Promise<void> {
    const status = everyStatus ? 'draft,pending,published,cancelled' : undefined;
    const { data } = await ctx.api.json<EventPage>('GET', `/events${queryString({ series_id: id, status, limit: PAGE, page })}`);
    const lastPage = Math.max(1, Math.ceil(data.total / PAGE));
    replace(
      occurrences,
      h('h2', { id: 'occurrences-heading' }, 'Occurrences'),
      h('p', { class: 'summary' }, `${data.total} occurrence${data.total === 1 ? '' : 's'}${lastPage > 1 ? `; page ${page} of ${lastPage}` : ''}.`),
      // The list takes the filters, the search and the calendar address to these occurrences (its statuses: the public ones).
      h('p', {}, h('a', { href: `#/events${queryString({ series_id: id })}` }, 'Open the occurrences in the events list'), ' (to filter them, or to subscribe to them in a calendar).'),
      h(
        'ul',
        { class: 'occurrence-list', 'aria-labelledby': 'occurrences-heading' },
        data.events.map((event) => h('li', {}, h('a', { href: `#/events/${event.id}` }, formatDateTime(event.start_time, zone)), ` · ${event.registered_count} / ${event.capacity} seats `, statusBadge(event))),
      ),
      // Said, not left to be noticed: a draft or pending occurrence of a public series was edited on its own, and stays so.
      isPublic(drawnStatus) && data.events.some((event) => !isPublic(statusOf(event)))
        ? h('p', { class: 'note' }, "The occurrences marked as a draft or pending approval were edited on their own, so the series' moves passed them by: each is submitted, approved or published from its own page.")
        : null,
      pager('Occurrence pages', page, lastPage, turn),
    );
  }

  async function turn(delta: number): Promise<void> {
    page += delta;
    await loadOccurrences().catch((error: unknown) => replace(occurrences, h('p', { class: 'alert', role: 'alert' }, describeProblem(error))));
  }

  async function remove(series: Series, etag: string | null): Promise<void> {
    if (!(await confirmAction(`Delete the series “${series.title}” for good? All ${series.occurrence_count} occurrences and their registrations go with it.`, 'Delete series'))) return;
    // Before the answer: the change feed may tell of the delete first.
    deletingSeries.add(id);
    try {
      await ctx.api.json('DELETE', `/series/${encodeURIComponent(series.id)}`, { headers: etag === null ? {} : { 'If-Match': etag } });
      ctx.announce(`Deleted the series “${series.title}”.`);
      // Someone who went elsewhere meanwhile stays there (the next screen may still be loading: the address says).
      if (location.hash === shownAt) ctx.navigate('#/events', { showMessage: true });
    } catch (error) {
      const gone = error instanceof ApiProblem && error.status === 404;
      if (!gone) deletingSeries.delete(id);
      if (details.isConnected && !gone) return alertDeleteFailure(alert, error, 'series', () => void load());
      // Deleted already (in another tab), or this page was drawn again meanwhile (a zone switch): said where the person is.
      ctx.announce(deleteFailureSentence(error, 'series') ?? describeProblem(error));
      if (location.hash === shownAt) ctx.navigate(gone ? '#/events' : shownAt, { showMessage: true });
    }
  }

  void load();
  // A pending or draft series is in no change feed (API.md §14): read again each minute while it is one.
  const stopWatching = watchUnlisted(ctx, `/series/${encodeURIComponent(id)}`, details, () => ({ status: drawnStatus, etag: drawnEtag }), () => void load());
  let pending: ReturnType<typeof setTimeout> | undefined;
  return {
    title: 'Series',
    element: h('section', {}, zoneNote(ctx), alert, done, details, occurrences),
    onChange(entry) {
      const event = entry.event as { series_id?: string } | null;
      if (deletingSeries.has(id) || (event?.series_id !== id && !entry.deleted)) return;
      clearTimeout(pending);
      pending = setTimeout(() => void load(), 200);
    },
    dispose() {
      clearTimeout(pending);
      stopWatching();
    },
  };
}
