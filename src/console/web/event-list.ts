// The events list: the search, filters and paging of API.md §5 (a status of §14, a series of §11), refreshed by live
// changes, with the calendar address of the filter. A cancelled event is listed with the word "Cancelled" and its reason.
import { h, replace, uid } from './dom.js';
import { queryString } from './api.js';
import { describeProblem } from './problem.js';
import { formatDateTime } from './format.js';
import { canCreate } from './roles.js';
import { feedAddress } from './feed-address.js';
import { statusBadge, statusDetail } from './status-marks.js';
import { zoneNote } from './zone-note.js';
import { CATEGORIES, type EventPage, type Series } from './types.js';
import type { ConsoleContext, Screen } from './context.js';

const LIMITS = ['10', '25', '50', '100'];
/** The statuses the list filters by, as the API names them; drafts and pending events have their own screens. */
const STATUSES: [value: string, words: string][] = [['', 'Published, cancelled'], ['published', 'Published only'], ['cancelled', 'Cancelled only']];

/** A series id as the API takes it in `series_id` (anything else in the address is ignored, not sent for a 400). */
const SERIES_ID = /^ser_[0-9A-Za-z]{16,}$/;
/** The names the list reads from its address; q and the dates go to the API as they are, whose 400 the list shows. */
const READ = new Set(['q', 'category', 'status', 'series_id', 'start_date', 'end_date', 'limit', 'page']);

/**
 * What the address asks that the list leaves out (a typo in a bookmark, a status with its own screen), as
 * `name “value”`: the list says so rather than showing, without a word, more than the address describes.
 */
function leftOut(params: URLSearchParams, used: { category: string[]; status: string; seriesId: string }): string[] {
  const out: string[] = [];
  for (const [name, value] of params) {
    // An empty value asks for nothing (`?category=`): nothing is left out.
    if (value === '' && READ.has(name)) continue;
    const unused =
      !READ.has(name) ||
      (name === 'category' && value.split(',').some((part) => !used.category.includes(part))) ||
      (name === 'status' && value !== used.status) ||
      (name === 'series_id' && value !== used.seriesId) ||
      (name === 'limit' && !LIMITS.includes(value)) ||
      (name === 'page' && !/^[1-9][0-9]*$/.test(value));
    if (unused) out.push(`${name} “${value}”`);
  }
  return out;
}

/** The line above the results: how many, and which page of how many (one past the last says so). */
function summary(total: number, q: string, page: number, lastPage: number): string {
  if (total === 0) return q === '' ? 'No events match this filter.' : `No events match “${q}” with this filter.`;
  const count = `${total} event${total === 1 ? '' : 's'}`;
  return page > lastPage ? `${count}; page ${page} is past the last page, ${lastPage}.` : `${count}; page ${page} of ${lastPage}.`;
}

/** The list for the filter in `params` (q, category as a comma list, status, series_id, start_date, end_date, limit, page). */
export function eventList(ctx: ConsoleContext, params: URLSearchParams): Screen {
  const chosen = (params.get('category') ?? '').split(',').filter((name) => (CATEGORIES as readonly string[]).includes(name));
  const status = STATUSES.some(([value]) => value !== '' && value === params.get('status')) ? params.get('status')! : '';
  const seriesId = SERIES_ID.test(params.get('series_id') ?? '') ? params.get('series_id')! : '';
  const filter = { q: params.get('q') ?? '', category: chosen.join(','), status, series_id: seriesId, start_date: params.get('start_date') ?? '', end_date: params.get('end_date') ?? '' };
  const limit = LIMITS.includes(params.get('limit') ?? '') ? Number(params.get('limit')) : 25;
  const page = Math.max(1, Math.floor(Number(params.get('page') ?? '1')) || 1);

  const ids = { q: uid('q'), status: uid('status'), from: uid('from'), to: uid('to'), limit: uid('limit') };
  const search = h('input', { id: ids.q, name: 'q', type: 'search', value: filter.q, maxlength: 200, autocomplete: 'off' });
  const boxes = CATEGORIES.map((name) => h('input', { type: 'checkbox', id: uid(`category-${name}`), value: name, checked: chosen.includes(name) }));
  const fromInput = h('input', { id: ids.from, name: 'start_date', type: 'date', value: filter.start_date });
  const toInput = h('input', { id: ids.to, name: 'end_date', type: 'date', value: filter.end_date });
  const statusSelect = h('select', { id: ids.status, name: 'status' }, STATUSES.map(([value, words]) => h('option', { value, selected: value === status }, words)));
  const limitSelect = h('select', { id: ids.limit, name: 'limit' }, LIMITS.map((value) => h('option', { value, selected: Number(value) === limit }, value)));
  const active = [filter.category, filter.status, filter.start_date, filter.end_date].filter((value) => value !== '').length + (limit === 25 ? 0 : 1);
  const campus = ctx.zones.campus;
  // One line on a phone: the filters open on demand (and stay open on a wide screen, or while some are set there).
  const wide = window.matchMedia('(min-width: 40rem)');
  const fold = h(
    'details',
    { class: 'more-filters', open: wide.matches },
    h('summary', {}, active === 0 ? 'Filters' : `Filters (${active} active)`),
    h('div', { class: 'filters' },
      h('fieldset', { class: 'choices' }, h('legend', {}, 'Categories'), boxes.map((box) => h('span', { class: 'choice' }, box, h('label', { for: box.id }, box.value)))),
      h('div', { class: 'field' }, h('label', { for: ids.status }, 'Status'), statusSelect),
      h('div', { class: 'field' }, h('label', { for: ids.from }, `Starts on or after (a day in ${campus})`), fromInput),
      h('div', { class: 'field' }, h('label', { for: ids.to }, `Ends on or before (a day in ${campus})`), toInput),
      h('div', { class: 'field' }, h('label', { for: ids.limit }, 'Per page'), limitSelect),
      h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Apply filters'), h('a', { href: '#/events', class: 'button' }, 'Clear')),
    ),
  );
  const form = h(
    'form',
    { class: 'find', role: 'search', 'aria-label': 'Find events' },
    h('div', { class: 'field search' }, h('label', { for: ids.q }, 'Search'), h('div', { class: 'search-line' }, search, h('button', { type: 'submit' }, 'Search'))),
    fold,
  );
  const unfold = (): void => {
    fold.open = wide.matches;
  };
  wide.addEventListener('change', unfold);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const category = boxes.filter((box) => box.checked).map((box) => box.value).join(',');
    // The series stays: it is left by its own link above the results, or by Clear.
    ctx.navigate(`#/events${queryString({ q: search.value.trim(), category, status: statusSelect.value, series_id: seriesId, start_date: fromInput.value, end_date: toInput.value, limit: limitSelect.value === '25' ? undefined : limitSelect.value })}`);
  });

  const ignored = leftOut(params, { category: chosen, status, seriesId });
  const ignoredNote = ignored.length === 0 ? null : h('p', { class: 'hint' }, `The address asks for what this list cannot apply, so it is left out: ${ignored.join(', ')}.`);
  const results = h('div', { class: 'results', 'aria-busy': 'true' }, h('p', {}, 'Loading events…'));
  const seriesNote = seriesId === '' ? null : seriesLine(ctx, seriesId, `#/events${queryString({ ...filter, series_id: undefined, limit: limit === 25 ? undefined : limit })}`);
  const hrefFor = (target: number): string => `#/events${queryString({ ...filter, limit: limit === 25 ? undefined : limit, page: target === 1 ? undefined : target })}`;

  /** Fetches and draws the page; `live` says it follows someone else's change, which the status line then mentions. */
  async function load(live = false): Promise<void> {
    try {
      const { data } = await ctx.api.json<EventPage>('GET', `/events${queryString({ ...filter, limit, page })}`);
      const lastPage = Math.max(1, Math.ceil(data.total / limit));
      const rows = data.events.map((event) =>
        h(
          'tr',
          {},
          h('td', { 'data-label': 'Event' }, h('a', { href: `#/events/${event.id}` }, event.title), ' ', statusBadge(event), statusDetail(event)),
          h('td', { 'data-label': 'Starts' }, formatDateTime(event.start_time, ctx.zones.shown)),
          h('td', { 'data-label': 'Category' }, event.category),
          h('td', { 'data-label': 'Location' }, event.location),
          h('td', { 'data-label': 'Seats' }, `${event.registered_count} / ${event.capacity}`),
        ),
      );
      replace(
        results,
        h('p', { class: 'summary' }, summary(data.total, filter.q, page, lastPage)),
        rows.length === 0
          ? null
          : h(
              'table',
              { class: 'stack' },
              h('caption', { class: 'visually-hidden' }, 'Events, earliest first'),
              h('thead', {}, h('tr', {}, ['Event', 'Starts', 'Category', 'Location', 'Seats'].map((label) => h('th', { scope: 'col' }, label)))),
              h('tbody', {}, rows),
            ),
        h(
          'nav',
          { class: 'pager', 'aria-label': 'Pages' },
          page > 1 ? h('a', { href: hrefFor(Math.min(page - 1, lastPage)), class: 'button', rel: 'prev' }, 'Previous page') : null,
          page < lastPage ? h('a', { href: hrefFor(page + 1), class: 'button', rel: 'next' }, 'Next page') : null,
        ),
      );
      if (live) ctx.announce('The list now shows a change made elsewhere.');
    } catch (error) {
      replace(results, h('p', { class: 'alert', role: 'alert' }, describeProblem(error)));
    } finally {
      results.setAttribute('aria-busy', 'false');
    }
  }
  void load();

  let pending: ReturnType<typeof setTimeout> | undefined;
  const element = h(
    'section',
    {},
    // On a phone this button hides: the header's "New event" is the same link, and the first screen is for events.
    canCreate(ctx.me) ? h('p', { class: 'list-new' }, h('a', { href: '#/new', class: 'button primary' }, 'New event')) : null,
    zoneNote(ctx),
    form,
    ignoredNote,
    seriesNote,
    results,
    feedAddress(ctx.api.base, filter),
  );
  return {
    title: 'Events',
    element,
    onChange() {
      // Several changes in a burst cost one reload.
      clearTimeout(pending);
      pending = setTimeout(() => void load(true), 200);
    },
    dispose: () => {
      clearTimeout(pending);
      wide.removeEventListener('change', unfold);
    },
  };
}

/**
 * Says the list holds one series' occurrences, naming the series (its title once read) with a link to its page, and
 * gives the way back to every event (`everyEvent`, the same filter without the series).
 */
function seriesLine(ctx: ConsoleContext, id: string, everyEvent: string): HTMLElement {
  const name = h('a', { href: `#/series/${id}` }, id);
  ctx.api.json<Series>('GET', `/series/${encodeURIComponent(id)}`).then(
    ({ data }) => {
      name.textContent = `“${data.title}”`;
    },
    // Unknown or unreadable: the id stays, and the list below says what the API answered.
    () => undefined,
  );
  return h('p', { class: 'note series-filter' }, 'Only the occurrences of the series ', name, '. ', h('a', { href: everyEvent }, 'Show every event'));
}
