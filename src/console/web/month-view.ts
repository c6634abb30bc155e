// The month view: events placed on the days of the zone shown (the browser's by default, API.md §10), refreshed by live changes;
// a cancelled one says so in words. Opened without a month, it shows the current one, or, when that has no event, the
// month of the next event (saying so); a month can be picked directly.
import { h, replace, uid } from './dom.js';
import { queryString } from './api.js';
import { describeProblem } from './problem.js';
import { formatTime } from './format.js';
import { dayOf, monthGrid, monthKey, shiftMonth, type GridDay, type MonthGrid } from './month.js';
import { dayKey, wallClock } from './format.js';
import { zoneNote } from './zone-note.js';
import { statusBadge } from './status-marks.js';
import { CATEGORIES, type CampusEvent, type EventPage } from './types.js';
import type { ConsoleContext, Screen } from './context.js';

/** At most this many events are fetched for one month (ten pages of 100). */
const MAX_PAGES = 10;
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

const monthFormat = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' });
/** "March 2027". */
const nameOf = (grid: Pick<MonthGrid, 'year' | 'month'>): string => monthFormat.format(Date.UTC(grid.year, grid.month - 1, 15));

/** The month of `params` (`month`, `category`); `setTitle` names the month shown when it is not the one asked for. */
export function monthView(ctx: ConsoleContext, params: URLSearchParams, setTitle: (title: string) => void): Screen {
  const zone = ctx.zones.shown;
  const asked = params.get('month');
  // The month in the address, else this one: only then may the view move on to the next event's month.
  const chosen = asked !== null && /^\d{4}-(0[1-9]|1[0-2])$/.test(asked);
  let grid = monthGrid(asked, zone);
  const current = monthKey(monthGrid(null, zone));
  const category = params.get('category') ?? '';
  let monthName = nameOf(grid);
  const dayFormat = new Intl.DateTimeFormat(undefined, { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' });
  const dayName = (day: GridDay): string => dayFormat.format(Date.parse(`${day.key}T12:00:00Z`));
  const categoryId = uid('month-category');
  const categorySelect = h('select', { id: categoryId }, h('option', { value: '' }, 'All categories'), CATEGORIES.map((name) => h('option', { value: name, selected: name === category }, name)));
  categorySelect.addEventListener('change', () => ctx.navigate(`#/month${queryString({ month: monthKey(grid), category: categorySelect.value })}`));
  const previous = h('a', { class: 'button' }, 'Previous month');
  const next = h('a', { class: 'button' }, 'Next month');
  const pickerId = uid('month-pick');
  const picker = h('input', { id: pickerId, type: 'month', value: monthKey(grid), required: true, pattern: '\\d{4}-\\d{2}', placeholder: 'YYYY-MM' });
  const pick = h('form', { class: 'month-pick' }, h('div', { class: 'field inline' }, h('label', { for: pickerId }, 'Month'), picker), h('button', { type: 'submit' }, 'Show month'));
  pick.addEventListener('submit', (event) => {
    event.preventDefault();
    if (/^\d{4}-(0[1-9]|1[0-2])$/.test(picker.value)) ctx.navigate(`#/month${queryString({ month: picker.value, category })}`);
  });
  /** Points the month links and the picker at `grid`. */
  const aim = (): void => {
    previous.setAttribute('href', `#/month${queryString({ month: shiftMonth(grid, -1), category })}`);
    next.setAttribute('href', `#/month${queryString({ month: shiftMonth(grid, 1), category })}`);
    picker.value = monthKey(grid);
  };
  aim();
  const body = h('div', { 'aria-busy': 'true' }, h('p', {}, 'Loading the month…'));
  /** Said once the view moved from an empty current month to the next event's. */
  let moved: string | undefined;

  /** The month's events, at most MAX_PAGES pages of them; `complete` is false when the month holds more. */
  async function fetchMonth(): Promise<{ events: CampusEvent[]; complete: boolean }> {
    const events: CampusEvent[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const { data } = await ctx.api.json<EventPage>('GET', `/events${queryString({ category, start_date: grid.startDate, limit: 100, page })}`);
      for (const event of data.events) if (Date.parse(event.start_time) < grid.end) events.push(event);
      const last = data.events.at(-1);
      // The list is in start order: once an event starts after the month, nothing later is in it.
      if (last === undefined || Date.parse(last.start_time) >= grid.end || page * 100 >= data.total) {
        return { events: events.filter((event) => Date.parse(event.start_time) >= grid.first), complete: true };
      }
    }
    // Ten full pages and the month not over: it holds more only if the next event in line still starts in it.
    const { data } = await ctx.api.json<EventPage>('GET', `/events${queryString({ category, start_date: grid.startDate, limit: 1, page: MAX_PAGES * 100 + 1 })}`);
    const next = data.events[0];
    return { events: events.filter((event) => Date.parse(event.start_time) >= grid.first), complete: next === undefined || Date.parse(next.start_time) >= grid.end };
  }

  /**
   * The month of the next event after this (empty) one, found with one cheap query: the first event, in start
   * order, from the campus day the month ends in (the API's days are the campus's); undefined when there is none.
   */
  async function nextEventMonth(): Promise<MonthGrid | undefined> {
    const from = dayKey(wallClock(ctx.zones.campus, grid.end));
    const { data } = await ctx.api.json<EventPage>('GET', `/events${queryString({ category, start_date: from, limit: 1 })}`);
    const first = data.events[0];
    return first === undefined ? undefined : monthGrid(dayOf(first.start_time, zone).slice(0, 7), zone);
  }

  /** Fetches and draws the month; `live` says it follows someone else's change, which the status line then mentions. */
  async function load(live = false): Promise<void> {
    try {
      let { events, complete } = await fetchMonth();
      if (events.length === 0 && !chosen && !live && moved === undefined && monthKey(grid) === current) {
        const later = await nextEventMonth();
        if (later !== undefined && monthKey(later) !== monthKey(grid)) {
          moved = `No events in ${monthName}; showing ${nameOf(later)}, the month of the next event.`;
          grid = later;
          monthName = nameOf(grid);
          aim();
          if (body.isConnected) setTitle(monthName);
          ({ events, complete } = await fetchMonth());
          ctx.announce(moved);
        }
      }
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
        moved === undefined ? null : h('p', { class: 'note moved' }, moved),
        h(
          'p',
          { class: 'summary' },
          events.length === 0
            ? `No events in ${monthName}.`
            : complete
              ? `${events.length} event${events.length === 1 ? '' : 's'} in ${monthName}.`
              : `The first ${events.length} events of ${monthName}, up to ${dayName({ key: dayOf(events.at(-1)!.start_time, zone), day: 0 })}: the month holds more than a page can show. Choose a category, or see them all in the list.`,
        ),
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
      h(
        'div',
        { class: 'toolbar' },
        previous,
        h('a', { href: `#/month${queryString({ month: current, category })}`, class: 'button' }, 'This month'),
        next,
        pick,
        h('div', { class: 'field inline' }, h('label', { for: categoryId }, 'Category'), categorySelect),
      ),
      body,
    ),
    onChange() {
      clearTimeout(pending);
      pending = setTimeout(() => void load(true), 200);
    },
    dispose: () => clearTimeout(pending),
  };
}
