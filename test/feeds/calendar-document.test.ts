// Tests of renderCalendar(): every property API.md §9.1 lists, text that survives an independent parser, and the same bytes for the same events.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderCalendar, type CalendarEvent } from '../../src/feeds/calendar-document.js';
import { parseFeed } from './parse-feed.js';

const HOSTILE = 'Commas, semicolons; back\\slashes \\n and\nnewlines\r\nCRLF \\, 🎉👩‍🔬 日本語 — ' + '🎉'.repeat(40);

function event(overrides: Partial<CalendarEvent> = {}): CalendarEvent {
  return {
    id: 'evt_0123456789abcdefABCDEF',
    title: 'Intro to Distributed Systems',
    description: 'Guest lecture',
    category: 'academic',
    location: 'Hall A',
    startMs: Date.UTC(2026, 8, 1, 17),
    endMs: Date.UTC(2026, 8, 1, 19),
    organizer: { name: 'Olivia Organizer', email: 'olivia@campus.edu' },
    createdMs: Date.UTC(2026, 7, 1, 9, 30, 15),
    modifiedMs: Date.UTC(2026, 7, 2, 10, 0, 1),
    ...overrides,
  };
}

test('renderCalendar() writes the VCALENDAR properties of API.md §9.1, in CRLF lines', () => {
  const text = renderCalendar('Campus events', []);
  assert.equal(
    text,
    'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//campus-events//EN\r\nCALSCALE:GREGORIAN\r\nMETHOD:PUBLISH\r\nX-WR-CALNAME:Campus events\r\n' +
      'REFRESH-INTERVAL;VALUE=DURATION:PT1H\r\nX-PUBLISHED-TTL:PT1H\r\nEND:VCALENDAR\r\n',
  );
  assert.deepEqual(parseFeed(text).events, []);
  assert.ok(renderCalendar('Talks, mostly; late', []).includes('\r\nX-WR-CALNAME:Talks\\, mostly\\; late\r\n'), 'the name is TEXT, escaped');
});

test('renderCalendar() writes one VEVENT with every property, times in UTC, DTSTAMP and LAST-MODIFIED the last change', () => {
  const text = renderCalendar('Campus events', [event()]);
  const vevent = text.slice(text.indexOf('BEGIN:VEVENT'), text.indexOf('END:VEVENT') + 12);
  assert.equal(
    vevent,
    [
      'BEGIN:VEVENT',
      'UID:evt_0123456789abcdefABCDEF@campus-events',
      'DTSTAMP:20260802T100001Z',
      'DTSTART:20260901T170000Z',
      'DTEND:20260901T190000Z',
      'SUMMARY:Intro to Distributed Systems',
      'DESCRIPTION:Guest lecture',
      'LOCATION:Hall A',
      'CATEGORIES:academic',
      'ORGANIZER;CN="Olivia Organizer":mailto:olivia@campus.edu',
      'CREATED:20260801T093015Z',
      'STATUS:CONFIRMED',
      'LAST-MODIFIED:20260802T100001Z',
      'END:VEVENT',
      '',
    ].join('\r\n'),
  );
});

test('renderCalendar() keeps DTSTART and DTEND whole seconds that cover the event: an end within its start\'s second comes after it', () => {
  const text = renderCalendar('Campus events', [event({ startMs: Date.UTC(2026, 11, 26, 10, 0, 0, 100), endMs: Date.UTC(2026, 11, 26, 10, 0, 0, 900) })]);
  assert.ok(text.includes('\r\nDTSTART:20261226T100000Z\r\nDTEND:20261226T100001Z\r\n'), text);
  const endOfTime = renderCalendar('Campus events', [event({ startMs: Date.UTC(9999, 11, 31, 23), endMs: Date.UTC(9999, 11, 31, 23, 59, 59, 500) })]);
  assert.ok(endOfTime.includes('\r\nDTSTART:99991231T230000Z\r\nDTEND:99991231T235959Z\r\n'), 'an end in the last second of 9999 stays in 9999');
  // One within that second still ends after it starts (RFC 5545 §3.8.2.2): it starts a second early.
  const lastSecond = renderCalendar('Campus events', [event({ startMs: Date.UTC(9999, 11, 31, 23, 59, 59), endMs: Date.UTC(9999, 11, 31, 23, 59, 59, 999) })]);
  assert.ok(lastSecond.includes('\r\nDTSTART:99991231T235958Z\r\nDTEND:99991231T235959Z\r\n'), lastSecond);
  const exact = renderCalendar('Campus events', [event({ endMs: Date.UTC(2026, 8, 1, 19, 0, 0, 0) })]);
  assert.ok(exact.includes('\r\nDTEND:20260901T190000Z\r\n'), 'a whole second stays as it is');
});

test('renderCalendar() output read by ical.js gives back every field, hostile text intact', () => {
  const events = [
    event(),
    event({
      id: 'evt_ZZZZZZZZZZZZZZZZZZZZZZ',
      title: Array.from(HOSTILE.replace(/[\r\n]/g, ' ')).slice(0, 120).join(''), // titles hold no line breaks (API.md §4)
      description: HOSTILE + '\n\n' + HOSTILE,
      location: 'Room 1; Building 2, Floor \\3',
      organizer: { name: 'Doe, "JD" ^ Jane; 🎉', email: "o'neil+x@campus.edu" },
      // The longest series id: its RELATED-TO line is folded.
      seriesId: `ser_${'S'.repeat(64)}`,
    }),
  ];
  const parsed = parseFeed(renderCalendar('Campus events: social', events));
  assert.equal(parsed.properties['x-wr-calname'], 'Campus events: social');
  assert.equal(parsed.properties['prodid'], '-//campus-events//EN');
  assert.equal(parsed.events.length, 2);
  for (const [index, got] of parsed.events.entries()) {
    const want = events[index]!;
    assert.equal(got.uid, `${want.id}@campus-events`);
    assert.equal(got.summary, want.title);
    // A parser gives every line break back as LF: CRLF and CR in a description were written as \n.
    assert.equal(got.description, want.description.replace(/\r\n|\r/g, '\n'));
    assert.equal(got.location, want.location);
    assert.equal(got.categories, want.category);
    assert.equal(got.startMs, want.startMs);
    assert.equal(got.endMs, want.endMs);
    assert.equal(got.organizerName, want.organizer.name);
    assert.equal(decodeURIComponent(got.organizerUri), `mailto:${want.organizer.email}`);
    assert.equal(got.createdMs, want.createdMs);
    assert.equal(got.lastModifiedMs, want.modifiedMs);
    assert.equal(got.dtstampMs, want.modifiedMs);
    assert.equal(got.relatedTo, want.seriesId === undefined ? null : `${want.seriesId}@campus-events`);
  }
});

test('renderCalendar() gives the same bytes for the same events, and different bytes after a change', () => {
  const first = renderCalendar('Campus events', [event(), event({ id: 'evt_1111111111111111111111' })]);
  const again = renderCalendar('Campus events', [event(), event({ id: 'evt_1111111111111111111111' })]);
  assert.equal(again, first);
  const changed = renderCalendar('Campus events', [event({ modifiedMs: Date.UTC(2026, 7, 3) }), event({ id: 'evt_1111111111111111111111' })]);
  assert.notEqual(changed, first);
});

test('renderCalendar() says RELATED-TO the series last in the VEVENT of an occurrence, and nothing of a series for a one-off event', () => {
  const occurrence = renderCalendar('Campus events', [event({ seriesId: 'ser_0000000000000001' })]);
  assert.ok(occurrence.includes('\r\nLAST-MODIFIED:20260802T100001Z\r\nRELATED-TO:ser_0000000000000001@campus-events\r\nEND:VEVENT\r\n'), occurrence);
  assert.ok(!renderCalendar('Campus events', [event()]).includes('RELATED-TO'));
});

test('renderCalendar() marks a cancelled event STATUS:CANCELLED, its DESCRIPTION starting with the word and the reason', () => {
  const cancelled = renderCalendar('Campus events', [event({ cancellation: { reason: 'Storm warning' } })]);
  assert.ok(cancelled.includes('\r\nSTATUS:CANCELLED\r\n') && !cancelled.includes('CONFIRMED'), cancelled);
  assert.ok(cancelled.includes('\r\nDESCRIPTION:Cancelled: Storm warning\\n\\nGuest lecture\r\n'), cancelled);
  const bare = renderCalendar('Campus events', [event({ cancellation: { reason: undefined }, description: '' })]);
  assert.ok(bare.includes('\r\nDESCRIPTION:Cancelled.\r\n'), bare);
  const parsed = parseFeed(cancelled);
  assert.equal(parsed.events[0]!.status, 'CANCELLED');
  assert.equal(parsed.events[0]!.description, 'Cancelled: Storm warning\n\nGuest lecture');
  assert.equal(parseFeed(renderCalendar('Campus events', [event()])).events[0]!.status, 'CONFIRMED');
});
