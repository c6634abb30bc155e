// The events list: the filters and paging of API.md §5, refreshed by live changes, with the calendar address of the filter.
import { h, replace, uid } from './dom.js';
import { queryString } from './api.js';
import { describeProblem } from './problem.js';
import { formatDateTime } from './format.js';
import { canCreate } from './roles.js';
import { feedAddress } from './feed-address.js';
import { CATEGORIES, type EventPage } from './types.js';
import type { ConsoleContext, Screen } from './context.js';

const LIMITS = ['10', '25', '50', '100'];

/** The list for the filter in `params` (category, start_date, end_date, limit, page). */
export function eventList(ctx: ConsoleContext, params: URLSearchParams): Screen {
  const filter = { category: params.get('category') ?? '', start_date: params.get('start_date') ?? '', end_date: params.get('end_date') ?? '' };
  const limit = LIMITS.includes(params.get('limit') ?? '') ? Number(params.get('limit')) : 25;
  const page = Math.max(1, Math.floor(Number(params.get('page') ?? '1')) || 1);

  const ids = { category: uid('category'), from: uid('from'), to: uid('to'), limit: uid('limit') };
  const categorySelect = h('select', { id: ids.category, name: 'category' }, h('option', { value: '' }, 'All categories'), CATEGORIES.map((name) => h('option', { value: name, selected: name === filter.category }, name)));
  const fromInput = h('input', { id: ids.from, name: 'start_date', type: 'date', value: filter.start_date });
  const toInput = h('input', { id: ids.to, name: 'end_date', type: 'date', value: filter.end_date });
  const limitSelect = h('select', { id: ids.limit, name: 'limit' }, LIMITS.map((value) => h('option', { value, selected: Number(value) === limit }, value)));
  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Filter events' },
    h('div', { class: 'field' }, h('label', { for: ids.category }, 'Category'), categorySelect),
    h('div', { class: 'field' }, h('label', { for: ids.from }, 'Starts from (UTC date)'), fromInput),
    h('div', { class: 'field' }, h('label', { for: ids.to }, 'Ends by (UTC date)'), toInput),
    h('div', { class: 'field' }, h('label', { for: ids.limit }, 'Per page'), limitSelect),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Apply filters'), h('a', { href: '#/events', class: 'button' }, 'Clear')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    ctx.navigate(`#/events${queryString({ category: categorySelect.value, start_date: fromInput.value, end_date: toInput.value, limit: limitSelect.value === '25' ? undefined : limitSelect.value })}`);
  });

  const results = h('div', { class: 'results', 'aria-busy': 'true' }, h('p', {}, 'Loading events…'));
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
          h('td', { 'data-label': 'Event' }, h('a', { href: `#/events/${event.id}` }, event.title)),
          h('td', { 'data-label': 'Starts' }, formatDateTime(event.start_time)),
          h('td', { 'data-label': 'Category' }, event.category),
          h('td', { 'data-label': 'Location' }, event.location),
          h('td', { 'data-label': 'Seats' }, `${event.registered_count} / ${event.capacity}`),
        ),
      );
      replace(
        results,
        h('p', { class: 'summary' }, data.total === 0 ? 'No events match this filter.' : `${data.total} event${data.total === 1 ? '' : 's'}; page ${page} of ${lastPage}.`),
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
    canCreate(ctx.me) ? h('p', {}, h('a', { href: '#/new', class: 'button primary' }, 'New event')) : null,
    form,
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
    dispose: () => clearTimeout(pending),
  };
}
