// The iCalendar document of the calendar feed (API.md §9.1): one VCALENDAR, one VEVENT per event, nothing that depends on when it is asked.
import { escapeText, foldLine, mailtoUri, quoteParameter, utcDateTime } from './icalendar.js';

/** What the feed shows of one event; times in ms since the epoch. */
export interface CalendarEvent {
  id: string;
  title: string;
  description: string;
  category: string;
  location: string;
  startMs: number;
  endMs: number;
  organizer: { name: string; email: string };
  createdMs: number;
  /** The time of the event's last change, registrations included. */
  modifiedMs: number;
  /** The series the event is an occurrence of (API.md §11): its VEVENT says RELATED-TO it. */
  seriesId?: string | undefined;
  /**
   * Only on a cancelled event (API.md §14): STATUS:CANCELLED, so subscribed calendars show it called off (a published
   * one is STATUS:CONFIRMED), and a DESCRIPTION that starts with the word and `reason`, when one was given.
   */
  cancellation?: { reason: string | undefined } | undefined;
}

/** Suffix of every UID, so ids stay unique among the events of other calendars. */
export const UID_DOMAIN = 'campus-events';

/**
 * The whole feed as text, CRLF line ends, every line folded. A pure function of its arguments:
 * `DTSTAMP` is the event's last change rather than the time of the request, so the same events
 * in the same state give the same bytes (and so the same ETag) whenever they are asked for.
 */
export function renderCalendar(name: string, events: readonly CalendarEvent[]): string {
  let text =
    'BEGIN:VCALENDAR\r\n' +
    'VERSION:2.0\r\n' +
    'PRODID:-//campus-events//EN\r\n' +
    'CALSCALE:GREGORIAN\r\n' +
    'METHOD:PUBLISH\r\n' +
    foldLine(`X-WR-CALNAME:${escapeText(name)}`) +
    'REFRESH-INTERVAL;VALUE=DURATION:PT1H\r\n' +
    'X-PUBLISHED-TTL:PT1H\r\n';
  for (const event of events) text += renderEvent(event);
  return text + 'END:VCALENDAR\r\n';
}

/** 9999-12-31T23:59:59Z: an end in the last second of 9999 is not rounded up into a year iCalendar cannot write. */
const LAST_SECOND_MS = Date.UTC(9999, 11, 31, 23, 59, 59);

function renderEvent(event: CalendarEvent): string {
  const modified = utcDateTime(event.modifiedMs);
  return (
    'BEGIN:VEVENT\r\n' +
    foldLine(`UID:${event.id}@${UID_DOMAIN}`) +
    `DTSTAMP:${modified}\r\n` +
    // An event within the last second of 9999 starts a second earlier, since its end cannot be rounded past it.
    `DTSTART:${utcDateTime(Math.min(event.startMs, LAST_SECOND_MS - 1000))}\r\n` +
    // Rounded up to its second, as DTSTART is rounded down: the VEVENT covers the event, and an end within the second
    // of its start still comes after it (RFC 5545 §3.6.1).
    `DTEND:${utcDateTime(Math.min(Math.ceil(event.endMs / 1000) * 1000, LAST_SECOND_MS))}\r\n` +
    foldLine(`SUMMARY:${escapeText(event.title)}`) +
    foldLine(`DESCRIPTION:${escapeText(event.cancellation === undefined ? event.description : cancelledDescription(event.description, event.cancellation.reason))}`) +
    foldLine(`LOCATION:${escapeText(event.location)}`) +
    foldLine(`CATEGORIES:${escapeText(event.category)}`) +
    foldLine(`ORGANIZER;CN=${quoteParameter(event.organizer.name)}:${mailtoUri(event.organizer.email)}`) +
    `CREATED:${utcDateTime(event.createdMs)}\r\n` +
    (event.cancellation === undefined ? 'STATUS:CONFIRMED\r\n' : 'STATUS:CANCELLED\r\n') +
    `LAST-MODIFIED:${modified}\r\n` +
    (event.seriesId === undefined ? '' : foldLine(`RELATED-TO:${event.seriesId}@${UID_DOMAIN}`)) +
    'END:VEVENT\r\n'
  );
}

/** The description a calendar shows of a cancelled event: it starts with the word, and the reason when one was given. */
function cancelledDescription(description: string, reason: string | undefined): string {
  const head = reason === undefined ? 'Cancelled.' : `Cancelled: ${reason}`;
  return description === '' ? head : `${head}\n\n${description}`;
}
