// A paged table of events or series in chosen statuses (GET /events?status=…, GET /series?status=…), each row with its
// status in words and the publishing moves: the parts of an organizer's drafts and of the admins' approval queue.
import { h, replace } from './dom.js';
import { pager } from './pager.js';
import { queryString } from './api.js';
import { ApiProblem, describeProblem } from './problem.js';
import { formatDateTime } from './format.js';
import { moveButtons, type Publishable } from './publishing-actions.js';
import { statusBadge, statusDetail } from './status-marks.js';
import type { ConsoleContext } from './context.js';

const PAGE = 25;

interface Row extends Publishable {
  start_time: string;
  series_id?: string;
  occurrence_count?: number;
}

export interface StatusListOptions {
  kind: 'event' | 'series';
  /** The `status` query: `pending`, `draft,pending`. */
  status: string;
  heading: string;
  /** Said when nothing is in it; undefined hides the whole list then (a series part, seldom used). */
  empty?: string;
  /** Shows each row's organizer (admins see everyone's). */
  organizer: boolean;
  /** Called after a move on a row: a series' move changes its occurrences, rows of another list. */
  onMoved?: () => void;
}

/** The list, drawn at once; `reload()` reads it again (after someone else's change). */
export function statusList(ctx: ConsoleContext, options: StatusListOptions): { element: HTMLElement; reload(): Promise<void> } {
  const headingId = `${options.kind}-${options.status.replace(/\W/g, '-')}-heading`;
  const body = h('div', { 'aria-busy': 'true' }, h('p', {}, 'Loading…'));
  const alert = h('div', { class: 'alert', role: 'alert', hidden: true, tabindex: -1 });
  // What the last move did stays visible here, since its row may have left the list (ctx.announce has spoken it).
  const done = h('p', { class: 'done', hidden: true, tabindex: -1 });
  const element = h('section', { 'aria-labelledby': headingId }, h('h2', { id: headingId }, options.heading), alert, done, body);
  let page = 1;

  function moved(_: unknown, outcome: string): void {
    alert.hidden = true;
    done.hidden = false;
    done.textContent = outcome;
    void load().then(() => done.focus());
    options.onMoved?.();
  }

  function failed(item: Row, error: unknown): void {
    alert.hidden = false;
    // 412: changed since the row was read (an approval is refused unless it is of what the row shows).
    const changed = error instanceof ApiProblem && error.status === 412;
    alert.textContent = `“${item.title}”: ${changed ? 'it changed since this list showed it, so nothing was done: look at it again.' : describeProblem(error)}`;
    alert.focus();
    // Refused because it changed elsewhere (409: withdrawn, approved by another admin; 412: edited) or went (404): its
    // row is out of date, so the list is read again (the alert stays).
    if (error instanceof ApiProblem && (changed || error.status === 409 || error.status === 404)) void load();
  }

  /**
   * What tells a row's buttons from every other row's to a screen reader: a series is named so, an event by its title and
   * start (a series submitted puts its occurrences in the list too, one title many times).
   */
  function rowName(item: Row): string {
    return options.kind === 'series' ? `series ${item.title}` : `${item.title}, ${formatDateTime(item.start_time, ctx.zones.shown)}`;
  }

  function row(item: Row): HTMLElement {
    const href = options.kind === 'event' ? `#/events/${item.id}` : `#/series/${item.id}`;
    const occurrence = item.series_id === undefined ? null : h('span', { class: 'status-detail' }, 'One occurrence of a ', h('a', { href: `#/series/${item.series_id}` }, 'series'), '.');
    return h(
      'tr',
      {},
      h('td', { 'data-label': options.kind === 'event' ? 'Event' : 'Series' }, h('a', { href }, item.title), ' ', statusBadge(item), statusDetail(item), occurrence),
      h('td', { 'data-label': options.kind === 'event' ? 'Starts' : 'First' }, formatDateTime(item.start_time, ctx.zones.shown)),
      options.kind === 'series' ? h('td', { 'data-label': 'Occurrences' }, String(item.occurrence_count ?? '')) : null,
      options.organizer ? h('td', { 'data-label': 'Organizer' }, `${item.organizer.name} (${item.organizer.email})`) : null,
      h('td', { 'data-label': 'Actions', class: 'row-actions' }, moveButtons(ctx, item, { kind: options.kind, named: rowName(item), done: moved, failed: (error) => failed(item, error) })),
    );
  }

  /** What the rows show now (page, total and items as read), so a reload that finds the same draws nothing. */
  let drawn = '';
  async function load(): Promise<void> {
    const path = options.kind === 'event' ? '/events' : '/series';
    try {
      const { data } = await ctx.api.json<{ events?: Row[]; series?: Row[]; total: number }>('GET', `${path}${queryString({ status: options.status, limit: PAGE, page })}`);
      const items = (options.kind === 'event' ? data.events : data.series) ?? [];
      const lastPage = Math.max(1, Math.ceil(data.total / PAGE));
      if (page > lastPage) {
        // The last row of the last page just left: show the page before.
        page = lastPage;
        return load();
      }
      element.hidden = data.total === 0 && options.empty === undefined && done.hidden;
      // A reload that finds what is shown (the minute's look, most often) leaves the rows and the focus in them alone.
      const seen = JSON.stringify([page, data.total, items]);
      if (seen === drawn) return;
      drawn = seen;
      const columns = [options.kind === 'event' ? 'Event' : 'Series', options.kind === 'event' ? 'Starts' : 'First', options.kind === 'series' ? 'Occurrences' : null, options.organizer ? 'Organizer' : null, 'Actions'];
      replace(
        body,
        h('p', { class: 'summary' }, data.total === 0 ? (options.empty ?? 'None.') : `${data.total} ${options.kind === 'event' ? 'event' : 'series'}${data.total === 1 || options.kind === 'series' ? '' : 's'}${lastPage > 1 ? `; page ${page} of ${lastPage}` : ''}.`),
        items.length === 0
          ? null
          : h(
              'table',
              { class: 'stack' },
              h('caption', { class: 'visually-hidden' }, `${options.heading}, earliest first`),
              h('thead', {}, h('tr', {}, columns.map((label) => (label === null ? null : h('th', { scope: 'col' }, label))))),
              h('tbody', {}, items.map(row)),
            ),
        pager(`${options.heading}: pages`, page, lastPage, turn),
      );
    } catch (error) {
      // A server without series statuses answers 400: the optional part is simply left out.
      if (options.empty === undefined && error instanceof ApiProblem && (error.status === 400 || error.status === 404)) {
        element.hidden = true;
        return;
      }
      drawn = '';
      replace(body, h('p', { class: 'alert', role: 'alert' }, describeProblem(error)));
    } finally {
      body.setAttribute('aria-busy', 'false');
    }
  }

  async function turn(delta: number): Promise<void> {
    page += delta;
    await load();
  }

  void load();
  return { element, reload: load };
}
