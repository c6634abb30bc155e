// GET /events.ics: the filtered event list as an iCalendar subscription, with a content ETag and 304 for calendar programs that poll.
import { createHash } from 'node:crypto';
import type { Route } from '../http/route.js';
import type { EventStore } from '../store/event-store.js';
import { toRecord, type StoredEvent } from '../events/event.js';
import { matchesNoneMatch } from '../http/conditional.js';
import { renderCalendar, type CalendarEvent } from './calendar-document.js';
import { parseFeedQuery } from './feed-query.js';

export interface CalendarRouteDeps {
  store: EventStore;
  now: () => number;
  /** The campus's IANA zone: where the feed's days begin. Default `UTC`. */
  timeZone?: string;
}

/** `Content-Type` of the feed. */
export const CALENDAR_TYPE = 'text/calendar; charset=utf-8';

/** The calendar feed route (API.md §9.1), to be added at `GET /events.ics`. */
export function calendarRoute(deps: CalendarRouteDeps): { method: string; pattern: string; route: Route } {
  const route: Route = {
    name: 'getCalendarFeed',
    auth: true,
    action: 'subscribe',
    body: false,
    query: true,
    queryKey: true,
    async handle(context) {
      const query = parseFeedQuery(context.query, deps.now(), { timeZone: deps.timeZone, role: context.principal?.role });
      const { events } = await deps.store.listInTurns(query);
      const body = renderCalendar(calendarName(query.categories?.join(', ') ?? query.category), events.map(calendarEvent));
      // The tag is a hash of the bytes: equal bytes, equal tag, whenever asked and on any process.
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
      // `private`: the answer may have been reached with a key in the URL, so no shared cache may keep it.
      const headers = { ETag: etag, 'Cache-Control': 'private, no-cache' };
      if (matchesNoneMatch(context.request.headers['if-none-match'], etag)) return { status: 304, body: null, headers };
      return { status: 200, body, headers: { ...headers, 'Content-Type': CALENDAR_TYPE } };
    },
  };
  return { method: 'GET', pattern: '/events.ics', route };
}

/** The calendar's display name (X-WR-CALNAME). */
function calendarName(category: string | undefined): string {
  return category === undefined ? 'Campus events' : `Campus events: ${category}`;
}

function calendarEvent(stored: StoredEvent): CalendarEvent {
  const record = toRecord(stored);
  const event: CalendarEvent = {
    id: record.id,
    title: record.title,
    description: record.description,
    category: record.category,
    location: record.location,
    startMs: stored.startMs,
    endMs: stored.endMs,
    organizer: record.organizer,
    createdMs: Date.parse(record.created_at),
    // The time of the event's last change, registrations included (kept in the log record).
    modifiedMs: stored.modifiedMs,
    seriesId: stored.seriesId,
  };
  // Only a cancelled event gets the field (API.md §14): a published one keeps the shape, and the cost, it always had.
  if (stored.status === 'cancelled') event.cancellation = { reason: record.cancellation_reason };
  return event;
}
