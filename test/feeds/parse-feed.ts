// Reads a calendar feed back with an independent parser (ical.js), and checks its octet-level rules, for the feed tests.
import assert from 'node:assert/strict';
import ICAL from 'ical.js';

/** One VEVENT as ical.js reads it; times in ms since the epoch. */
export interface ParsedEvent {
  uid: string;
  summary: string;
  description: string;
  location: string;
  categories: string;
  startMs: number;
  endMs: number;
  organizerName: string;
  organizerUri: string;
  createdMs: number;
  lastModifiedMs: number;
  dtstampMs: number;
  /** RELATED-TO: the UID of the series of an occurrence, null when the event is none. */
  relatedTo: string | null;
  /** STATUS (CONFIRMED, CANCELLED), null when there is none. */
  status: string | null;
}

/** The calendar's own properties (name → value as text) and its events, in document order. */
export interface ParsedFeed {
  properties: Record<string, string>;
  events: ParsedEvent[];
}

/** Parses `text` with ical.js, after asserting CRLF line ends, lines of at most 75 octets, each whole UTF-8. */
export function parseFeed(text: string): ParsedFeed {
  assertOctetRules(text);
  const calendar = new ICAL.Component(ICAL.parse(text));
  assert.equal(calendar.name, 'vcalendar');
  const properties: Record<string, string> = {};
  for (const property of calendar.getAllProperties()) properties[property.name] = String(property.getFirstValue());
  const events = calendar.getAllSubcomponents('vevent').map((vevent): ParsedEvent => {
    const time = (name: string): number => (vevent.getFirstPropertyValue(name) as InstanceType<typeof ICAL.Time>).toJSDate().getTime();
    const text = (name: string): string => String(vevent.getFirstPropertyValue(name));
    const organizer = vevent.getFirstProperty('organizer');
    assert.ok(organizer !== null, 'every VEVENT has an ORGANIZER');
    return {
      uid: text('uid'),
      summary: text('summary'),
      description: text('description'),
      location: text('location'),
      categories: text('categories'),
      startMs: time('dtstart'),
      endMs: time('dtend'),
      organizerName: String(organizer.getParameter('cn')),
      organizerUri: String(organizer.getFirstValue()),
      createdMs: time('created'),
      lastModifiedMs: time('last-modified'),
      dtstampMs: time('dtstamp'),
      relatedTo: vevent.hasProperty('related-to') ? text('related-to') : null,
      status: vevent.hasProperty('status') ? text('status') : null,
    };
  });
  return { properties, events };
}

/** CRLF after every line and nowhere else; no physical line over 75 octets; no line ends inside a UTF-8 character. */
export function assertOctetRules(text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  assert.ok(text.endsWith('\r\n'), 'the feed ends with CRLF');
  assert.equal(text.replace(/\r\n/g, '').includes('\n'), false, 'no bare LF');
  assert.equal(text.replace(/\r\n/g, '').includes('\r'), false, 'no bare CR');
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let start = 0;
  let number = 1;
  for (let i = 0; i < bytes.length - 1; i++) {
    if (bytes[i] !== 0x0d || bytes[i + 1] !== 0x0a) continue;
    const line = bytes.subarray(start, i);
    assert.ok(line.length <= 75, `line ${number} has ${line.length} octets: ${line.toString('utf8')}`);
    assert.doesNotThrow(() => decoder.decode(line), `line ${number} is not whole UTF-8 by itself`);
    start = i + 2;
    number++;
  }
}
