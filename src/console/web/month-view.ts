// The month view: events placed on the days of the zone shown (the campus's by default), refreshed by live changes;
// a cancelled one says so in words.
import { h, replace, uid } from './dom.js';
import { queryString } from './api.js';
import { describeProblem } from './problem.js';
import { formatTime } from './format.js';
import { dayOf, monthGrid, monthKey, shiftMonth, type GridDay } from './month.js';
import { zoneNote } from './zone-note.js';
import { statusBadge } from './status-marks.js';
import { CATEGORIES, type CampusEvent, type EventPage } from './types.js';
import type { ConsoleContext, Screen } from './context.js';

/** At most this many events are fetched for one month (ten pages of 100). */
const MAX_PAGES = 10;
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

export function monthView(ctx: ConsoleContext, params: URLSearchParams): Screen {
  const zone = ctx.zones.shown;
  const grid = monthGrid(params.get('month'), zone);
  const category = params.get('category') ?? '';
  const monthName = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(Date.UTC(grid.year, grid.month - 1, 15));
  const dayFormat = new Intl.DateTimeFormat(undefined, { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' });
  const dayName = (day: GridDay): string => dayFormat.format(Date.parse(`${day.key}T12:00:00Z`));
  const categoryId = uid('month-category');
  const categorySelect = h('select', { id: categoryId }, h('option', { value: '' }, 'All categories'), CATEGORIES.map((name) => h('option', { value: name, selected: name === category }, name)));
  categorySelect.addEventListener('change', () => ctx.navigate(`#/month${queryString({ month: monthKey(grid), category: categorySelect.value })}`));
  const link = (delta: number, label: string): HTMLElement => h('a', { href: `#/month${queryString({ month: shiftMonth(grid, delta), category })}`, class: 'button' }, label);
  const body = h('div', { 'aria-busy': 'true' }, h('p', {}, 'Loading the month…'));

  async function fetchMonth(): Promise<CampusEvent[]> {
    const events: CampusEvent[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const { data } = await ctx.api.json<EventPage>('GET', `/events${queryString({ category, start_date: grid.startDate, limit: 100, page })}`);
      for (const event of data.events) if (Date.parse(event.start_time) < grid.end) events.push(event);
      const last = data.events.at(-1);
      // The list is in start order: once an event starts after the month, nothing later is in it.
      if (last === undefined || Date.parse(last.start_time) >= grid.end || page * 100 >= data.total) break;
    }
    return events.filter((event) => Date.parse(event.start_time) >= grid.first);
  }

  /** Fetches and draws the month; `live` says it follows someone else's change, which the status line then mentions. */
  async function load(live = false): Promise<void> {
    try {
      const events = await fetchMonth();
      const byDay = new Map<string, CampusEvent[]>();
      for (const event of events) {
        const key = dayOf(event.start_time, zone);
        byDay.set(key, [...(byDay.get(key) ?? []), event]);
      }
      const cell = (day: GridDay | null): HTMLElement => {
        if (day === null) return h('td', { class: 'outside' });
        const items = byDay.get(day.key) ?? [];
        return h(
          'td',
          { class: items.length === 0 ? 'empty' : 'busy' },
          h('span', { class: 'day-number' }, h('span', { 'aria-hidden': 'true' }, day.day), h('span', { class: 'visually-hidden' }, dayName(day))),
          h('span', { class: 'day-name' }, dayName(day)),
          items.length === 0 ? null : h('ul', {}, items.map((event) => h('li', {}, h('a', { href: `#/events/${event.id}` }, h('span', { class: 'time' }, formatTime(event.start_time, zone)), ' ', event.title), ' ', statusBadge(event)))),
        );
      };
      replace(
        body,
        h('p', { class: 'summary' }, events.length === 0 ? `No events in ${monthName}.` : `${events.length} event${events.length === 1 ? '' : 's'} in ${monthName}.`),
        h(
          'table',
          { class: 'month' },
          h('caption', { class: 'visually-hidden' }, `${monthName}, times in ${zone}`),
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
      zoneNote(ctx),
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
