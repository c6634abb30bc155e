// The month view: events placed on the days of the browser's time zone, refreshed by live changes.
import { h, replace, uid } from './dom.js';
import { queryString } from './api.js';
import { describeProblem } from './problem.js';
import { formatTime, localDayKey, timeZoneName } from './format.js';
import { monthGrid, monthKey, shiftMonth } from './month.js';
import { CATEGORIES, type CampusEvent, type EventPage } from './types.js';
import type { ConsoleContext, Screen } from './context.js';

/** At most this many events are fetched for one month (ten pages of 100). */
const MAX_PAGES = 10;
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

export function monthView(ctx: ConsoleContext, params: URLSearchParams): Screen {
  const grid = monthGrid(params.get('month'));
  const category = params.get('category') ?? '';
  const monthName = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric' }).format(grid.first);
  const dayName = new Intl.DateTimeFormat(undefined, { weekday: 'long', day: 'numeric', month: 'long' });
  const categoryId = uid('month-category');
  const categorySelect = h('select', { id: categoryId }, h('option', { value: '' }, 'All categories'), CATEGORIES.map((name) => h('option', { value: name, selected: name === category }, name)));
  categorySelect.addEventListener('change', () => ctx.navigate(`#/month${queryString({ month: monthKey(grid.first), category: categorySelect.value })}`));
  const link = (delta: number, label: string): HTMLElement => h('a', { href: `#/month${queryString({ month: shiftMonth(grid.first, delta), category })}`, class: 'button' }, label);
  const body = h('div', { 'aria-busy': 'true' }, h('p', {}, 'Loading the month…'));

  async function fetchMonth(): Promise<CampusEvent[]> {
    const events: CampusEvent[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const { data } = await ctx.api.json<EventPage>('GET', `/events${queryString({ category, start_date: grid.startDate, limit: 100, page })}`);
      for (const event of data.events) if (new Date(event.start_time) < grid.end) events.push(event);
      const last = data.events.at(-1);
      // The list is in start order: once an event starts after the month, nothing later is in it.
      if (last === undefined || new Date(last.start_time) >= grid.end || page * 100 >= data.total) break;
    }
    return events.filter((event) => new Date(event.start_time) >= grid.first);
  }

  /** Fetches and draws the month; `live` says it follows someone else's change, which the status line then mentions. */
  async function load(live = false): Promise<void> {
    try {
      const events = await fetchMonth();
      const byDay = new Map<string, CampusEvent[]>();
      for (const event of events) {
        const key = localDayKey(new Date(event.start_time));
        byDay.set(key, [...(byDay.get(key) ?? []), event]);
      }
      const cell = (day: Date | null): HTMLElement => {
        if (day === null) return h('td', { class: 'outside' });
        const items = byDay.get(localDayKey(day)) ?? [];
        return h(
          'td',
          { class: items.length === 0 ? 'empty' : 'busy' },
          h('span', { class: 'day-number' }, h('span', { 'aria-hidden': 'true' }, day.getDate()), h('span', { class: 'visually-hidden' }, dayName.format(day))),
          h('span', { class: 'day-name' }, dayName.format(day)),
          items.length === 0 ? null : h('ul', {}, items.map((event) => h('li', {}, h('a', { href: `#/events/${event.id}` }, h('span', { class: 'time' }, formatTime(event.start_time)), ' ', event.title)))),
        );
      };
      replace(
        body,
        h('p', { class: 'summary' }, events.length === 0 ? `No events in ${monthName}.` : `${events.length} event${events.length === 1 ? '' : 's'} in ${monthName}.`),
        h(
          'table',
          { class: 'month' },
          h('caption', { class: 'visually-hidden' }, `${monthName}, times in ${timeZoneName()}`),
          h('thead', {}, h('tr', {}, WEEKDAYS.map((name) => h('th', { scope: 'col' }, h('abbr', { title: name }, name.slice(0, 3)))))),
          h('tbody', {}, grid.weeks.map((week) => h('tr', {}, week.map(cell)))),
        ),
      );
      if (live) ctx.announce('The month now shows a change made elsewhere.');
    } catch (error) {
      replace(body, h('p', { class: 'alert', role: 'alert' }, describeProblem(error)));
    } finally {
      body.setAttribute('aria-busy', 'false');
    }
  }
  void load();

  let pending: ReturnType<typeof setTimeout> | undefined;
  return {
    title: monthName,
    element: h(
      'section',
      {},
      h('p', { class: 'hint' }, `Times are in your time zone, ${timeZoneName()}.`),
      h('div', { class: 'toolbar' }, link(-1, 'Previous month'), h('a', { href: '#/month', class: 'button' }, 'This month'), link(1, 'Next month'), h('div', { class: 'field inline' }, h('label', { for: categoryId }, 'Category'), categorySelect)),
      body,
    ),
    onChange() {
      clearTimeout(pending);
      pending = setTimeout(() => void load(true), 200);
    },
    dispose: () => clearTimeout(pending),
  };
}
