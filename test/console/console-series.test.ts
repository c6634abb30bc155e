/// <reference lib="dom" />
// Recurring series in the console (API.md §11): the "Repeats" section with its preview, the series page, an occurrence's
// link to it, editing all future occurrences and deleting the series. The preview is checked against what the server made.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { checkScreen, openBrowser, skipWithoutChromium, type Browsing } from './browser.js';
import { assertClean, fieldDescription, signIn, startJourneyServer, type JourneyServer } from './journey-server.js';

const skip = skipWithoutChromium();
const TIMEOUT_MS = 180_000;
const CAMPUS = 'Europe/Berlin';

let journey: JourneyServer;
let browsing: Browsing;

before(async () => {
  if (skip !== false) return;
  journey = await startJourneyServer(['--time-zone', CAMPUS]);
  browsing = await openBrowser(journey.url, { timezoneId: 'America/New_York' });
});

after(async () => {
  if (skip !== false) return;
  await browsing?.close();
  await journey?.stop();
});

interface Occurrence {
  id: string;
  start_time: string;
  location: string;
  series_id?: string;
}

async function occurrencesOf(seriesId: string): Promise<Occurrence[]> {
  const response = await journey.api('GET', `/events?series_id=${seriesId}&limit=100`, journey.keys.organizer);
  assert.equal(response.status, 200);
  return ((await response.json()) as { events: Occurrence[] }).events;
}

/** The preview's list, as shown. */
async function previewed(page: Page): Promise<string[]> {
  return page.locator('.preview ol li').allTextContents();
}

/** The starts as the console shows them, in the campus zone. */
function shown(starts: string[]): string[] {
  // As src/console/web/format.ts writes a date with its time: with its weekday (issue 36).
  const date = new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', timeZone: CAMPUS });
  const time = new Intl.DateTimeFormat('en-GB', { timeStyle: 'short', timeZone: CAMPUS });
  return starts.map((start) => `${date.format(new Date(start))}, ${time.format(new Date(start))}`);
}

async function fillEvent(page: Page, title: string, start: string, end: string): Promise<void> {
  await page.goto(`${journey.url}/console/#/new`);
  await page.getByLabel('Title').fill(title);
  await page.getByLabel('Category').selectOption('academic');
  await page.getByLabel('Location').fill('Lecture hall 1');
  await page.getByLabel('Starts').fill(start);
  await page.getByLabel('Ends').fill(end);
  await page.getByLabel('Capacity (seats)').fill('80');
}

test('a term of lectures: weekly on two days, previewed before saving, then the series page lists what the server made', { skip, timeout: TIMEOUT_MS }, async () => {
  const page = await browsing.context.newPage();
  try {
    await signIn(page, journey.url, journey.keys.organizer);
    // Tuesday 23 March 2027 10:00 in Berlin: the lectures cross the start of summer time on 28 March.
    await fillEvent(page, 'Algorithms lecture', '2027-03-23T10:00', '2027-03-23T11:30');
    await page.getByLabel('How often').selectOption('WEEKLY');
    assert.equal(await page.getByLabel('Tuesday', { exact: true }).isChecked(), true, 'the start\'s own day is ticked');
    await page.getByLabel('Thursday', { exact: true }).check();
    await page.getByLabel('Number of occurrences').fill('6');
    await page.getByText('Every week on Tuesday and Thursday, 6 times: 6 occurrences').waitFor();
    const preview = await previewed(page);
    assert.equal(preview.length, 6);
    // A screen reader hears the preview's sentences as they change, not its whole list of dates again at each key.
    assert.equal(await page.locator('[aria-live] .occurrences, .occurrences[aria-live], [aria-live] li').count(), 0, 'the dates are out of any live region');
    assert.match((await page.locator('.preview [aria-live]').textContent()) ?? '', /Every week on Tuesday and Thursday, 6 times: 6 occurrences/);
    await page.getByRole('button', { name: 'Create series (6 occurrences)', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Algorithms lecture' }).waitFor();
    const seriesId = new URL(page.url()).hash.split('/')[2]!;
    assert.match(seriesId, /^ser_/);
    const made = await occurrencesOf(seriesId);
    assert.deepEqual(preview, shown(made.map((event) => event.start_time)), 'the preview showed exactly the occurrences the server made');
    assert.ok(made.every((event) => shown([event.start_time])[0]!.endsWith('10:00')), 'every lecture at 10:00 local, across the change');
    assert.deepEqual([made[0]!.start_time, made[5]!.start_time], ['2027-03-23T09:00:00.000Z', '2027-04-08T08:00:00.000Z'], 'so their UTC times move');
    await page.getByText('6 occurrences.').waitFor();
    await page.getByText('Every week on Tuesday and Thursday, 6 times (in Europe/Berlin)').waitFor();
    await checkScreen(page, 'series');

    await page.getByRole('link', { name: preview[2]! }).click();
    await page.getByRole('heading', { level: 1, name: 'Algorithms lecture' }).waitFor();
    await page.getByRole('link', { name: 'Part of a series: see every occurrence' }).click();
    await page.getByRole('link', { name: 'Edit all future occurrences' }).click();
    await page.getByLabel('Location').fill('Lecture hall 2');
    await page.getByRole('button', { name: 'Save all future occurrences' }).click();
    await page.getByText('Lecture hall 2').waitFor();
    assert.deepEqual((await occurrencesOf(seriesId)).map((event) => event.location), new Array(6).fill('Lecture hall 2'), 'one edit moved every occurrence');
    assert.deepEqual((await occurrencesOf(seriesId)).map((event) => event.id), made.map((event) => event.id), 'the same occurrences, ids kept');

    // A longer term: the schedule is sent (its section was touched), the six kept, two added.
    await page.getByRole('link', { name: 'Edit all future occurrences' }).click();
    assert.equal(await page.getByLabel('Number of occurrences').inputValue(), '6', 'the rule read back into the form');
    await page.getByLabel('Number of occurrences').fill('8');
    await page.getByText('8 occurrences, the last on').waitFor();
    await page.getByRole('button', { name: 'Save all future occurrences' }).click();
    await page.getByText('8 occurrences.').waitFor();
    const longer = await occurrencesOf(seriesId);
    assert.deepEqual(longer.slice(0, 6).map((event) => event.id), made.map((event) => event.id));
    assert.equal(longer.length, 8);
    await page.getByRole('link', { name: shown([longer[7]!.start_time])[0]! }).click();
    await page.getByRole('link', { name: 'Edit event' }).click();
    await page.getByText('This event is one occurrence of a series: saving changes it alone').waitFor();
    await page.getByRole('link', { name: 'Edit the whole series instead' }).click();

    await page.getByRole('button', { name: 'Delete series' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete series' }).click();
    await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
    assert.equal((await journey.api('GET', `/series/${seriesId}`, journey.keys.organizer)).status, 404);
    assert.deepEqual(await occurrencesOf(seriesId), []);
    assert.equal((await journey.api('GET', `/events/${longer[7]!.id}`, journey.keys.organizer)).status, 404);
    assertClean(browsing);
  } finally {
    await page.close();
  }
});

test('a club on the last Friday of each month until a date: the preview matches the server, and a reader sees no edit', { skip, timeout: TIMEOUT_MS }, async () => {
  const page = await browsing.context.newPage();
  try {
    await signIn(page, journey.url, journey.keys.organizer);
    await fillEvent(page, 'Film club', '2026-12-25T19:00', '2026-12-25T21:00');
    await page.getByLabel('How often').selectOption('MONTHLY');
    await page.getByLabel('the last Friday of each month').check();
    await page.getByLabel('a date', { exact: true }).check();
    await page.getByLabel('Last date').fill('2027-05-28');
    await page.getByText('Every month on the last Friday, until').waitFor();
    const preview = await previewed(page);
    await page.getByRole('button', { name: 'Create series (6 occurrences)', exact: true }).click();
    await page.getByRole('link', { name: 'Edit all future occurrences' }).waitFor();
    const seriesId = new URL(page.url()).hash.split('/')[2]!;
    const made = await occurrencesOf(seriesId);
    assert.deepEqual(preview, shown(made.map((event) => event.start_time)).slice(0, 6));
    assert.equal(made.length, 6, 'December to May, the 28th of May included');
    const reader = await browsing.context.newPage();
    try {
      await signIn(reader, journey.url, journey.keys.reader);
      await reader.goto(`${journey.url}/console/#/series/${seriesId}`);
      await reader.getByRole('heading', { level: 1, name: 'Film club' }).waitFor();
      assert.equal(await reader.getByRole('link', { name: 'Edit all future occurrences' }).count(), 0);
      assert.equal(await reader.getByRole('button', { name: 'Delete series' }).count(), 0);
    } finally {
      await reader.close();
    }
    // The form with its preview, for the record (axe at both widths); nothing is submitted after it.
    await fillEvent(page, 'Office hours', '2027-01-11T14:00', '2027-01-11T15:00');
    await page.getByLabel('How often').selectOption('WEEKLY');
    for (const day of ['Wednesday', 'Friday']) await page.getByLabel(day, { exact: true }).check();
    await page.getByLabel('Number of occurrences').fill('30');
    await page.getByText('Every week on Monday, Wednesday and Friday, 30 times: 30 occurrences').waitFor();
    await checkScreen(page, 'series-form');
    assertClean(browsing);
  } finally {
    await page.close();
  }
});

test('a series whose start day was added, edited: its later dates stay out when the time or the count changes, and the form shows the days as ticked', { skip, timeout: TIMEOUT_MS }, async () => {
  const page = await browsing.context.newPage();
  const weekdays = (occurrences: Occurrence[]): string[] => shown(occurrences.map((event) => event.start_time)).map((line) => line.slice(0, 3));
  try {
    await signIn(page, journey.url, journey.keys.organizer);
    // Monday 5 April 2027; the course meets on Wednesdays and Fridays after it.
    await fillEvent(page, 'Pottery course', '2027-04-05T10:00', '2027-04-05T12:00');
    await page.getByLabel('How often').selectOption('WEEKLY');
    await page.getByLabel('Monday', { exact: true }).uncheck();
    for (const day of ['Wednesday', 'Friday']) await page.getByLabel(day, { exact: true }).check();
    await page.getByLabel('Number of occurrences').fill('6');
    await page.getByText('Monday, the start date, is added as the first occurrence.').waitFor();
    await page.getByRole('button', { name: 'Create series (6 occurrences)', exact: true }).click();
    await page.getByRole('link', { name: 'Edit all future occurrences' }).waitFor();
    const seriesId = new URL(page.url()).hash.split('/')[2]!;
    assert.deepEqual(weekdays(await occurrencesOf(seriesId)), ['Mon', 'Wed', 'Fri', 'Wed', 'Fri', 'Wed']);

    // An hour later, Repeats untouched: the Mondays left out at 10:00 stay out at 11:00.
    await page.getByRole('link', { name: 'Edit all future occurrences' }).click();
    await page.getByLabel('Starts').fill('2027-04-05T11:00');
    await page.getByLabel('Ends').fill('2027-04-05T13:00');
    await page.getByText('6 occurrences, the last on').waitFor();
    const later = await previewed(page);
    await page.getByRole('button', { name: 'Save all future occurrences' }).click();
    await page.locator('#content').getByText('Saved the series “Pottery course”.').waitFor();
    const moved = await occurrencesOf(seriesId);
    assert.deepEqual(weekdays(moved), ['Mon', 'Wed', 'Fri', 'Wed', 'Fri', 'Wed'], 'no Monday but the first');
    assert.deepEqual(later, shown(moved.map((event) => event.start_time)), 'what the preview showed');
    assert.ok(shown(moved.map((event) => event.start_time)).every((line) => line.endsWith('11:00')));

    // The form shows the days as they were ticked, the start day added, and counts what the series has.
    await page.getByRole('link', { name: 'Edit all future occurrences' }).click();
    assert.deepEqual(
      await Promise.all(['Monday', 'Wednesday', 'Friday'].map((day) => page.getByLabel(day, { exact: true }).isChecked())),
      [false, true, true],
      'Wednesday and Friday ticked, Monday added',
    );
    assert.equal(await page.getByLabel('Number of occurrences').inputValue(), '6');
    await page.getByText('Monday, the start date, is added as the first occurrence.').waitFor();
    assert.deepEqual(await previewed(page), later);
    // Two more: still no Monday but the first.
    await page.getByLabel('Number of occurrences').fill('8');
    await page.getByText('8 occurrences, the last on').waitFor();
    const longer = await previewed(page);
    await page.getByRole('button', { name: 'Save all future occurrences' }).click();
    await page.getByText('8 occurrences.').waitFor();
    const eight = await occurrencesOf(seriesId);
    assert.deepEqual(weekdays(eight), ['Mon', 'Wed', 'Fri', 'Wed', 'Fri', 'Wed', 'Fri', 'Wed']);
    assert.deepEqual(longer, shown(eight.map((event) => event.start_time)).slice(0, 6));
    assert.deepEqual(eight.slice(0, 6).map((event) => event.id), moved.map((event) => event.id), 'the six kept, ids and all');

    // Monday ticked after all: the later Mondays come in.
    await page.getByRole('link', { name: 'Edit all future occurrences' }).click();
    await page.getByLabel('Monday', { exact: true }).check();
    await page.getByText('8 occurrences, the last on').waitFor();
    assert.equal(await page.getByText('Monday, the start date, is added').count(), 0);
    await page.getByRole('button', { name: 'Save all future occurrences' }).click();
    await page.locator('#content').getByText('Saved the series “Pottery course”.').waitFor();
    assert.deepEqual(weekdays(await occurrencesOf(seriesId)), ['Mon', 'Wed', 'Fri', 'Mon', 'Wed', 'Fri', 'Mon', 'Wed']);
    assertClean(browsing);
  } finally {
    await page.close();
  }
});

test('a series with an occurrence deleted on its own, edited: the preview leaves that date out, as the server does; a time the clocks skip says what it is saved as', { skip, timeout: TIMEOUT_MS }, async () => {
  const made = await journey.api('POST', '/series', journey.keys.organizer, {
    title: 'Seminar', category: 'academic', location: 'Room 4', capacity: 20, time_zone: CAMPUS,
    start_time: '2027-02-02T09:00:00+01:00', end_time: '2027-02-02T10:00:00+01:00', recurrence: 'FREQ=WEEKLY;BYDAY=TU,TH;COUNT=4',
  });
  assert.equal(made.status, 201);
  const seriesId = ((await made.json()) as { id: string }).id;
  const [first] = await occurrencesOf(seriesId);
  assert.equal((await journey.api('DELETE', `/events/${first!.id}`, journey.keys.organizer)).status, 204);
  const page = await browsing.context.newPage();
  try {
    await signIn(page, journey.url, journey.keys.organizer);
    // By the way: a time in the hour the campus's clocks skip (28 March 2027 in Berlin) says what it is saved as.
    await page.goto(`${journey.url}/console/#/new`);
    await page.getByLabel('Starts', { exact: true }).fill('2027-03-28T02:30');
    const gapWords = '02:30 does not exist on that day in Europe/Berlin: the clocks skip that hour. It is saved as Sun, 28 Mar 2027, 03:30.';
    const gap = page.getByText(gapWords);
    await gap.waitFor();
    const described = await fieldDescription(page, 'Starts');
    assert.ok(described.includes(gapWords), `a screen reader hears the note with Starts; it hears: ${described}`);
    // Weekly until 11 April from that start: three Sundays at 03:30, the first the instant sent, as the server makes them.
    await page.getByLabel('Ends', { exact: true }).fill('2027-03-28T04:00');
    await page.getByLabel('How often').selectOption('WEEKLY');
    await page.getByLabel('a date', { exact: true }).check();
    await page.getByLabel('Last date').fill('2027-04-11');
    await page.getByText('Every week on Sunday, until').waitFor();
    assert.deepEqual(await previewed(page), shown(['2027-03-28T01:30:00Z', '2027-04-04T01:30:00Z', '2027-04-11T01:30:00Z']), 'the preview starts at the instant sent');
    await page.getByLabel('Starts', { exact: true }).fill('2027-03-28T03:30');
    await gap.waitFor({ state: 'hidden' });
    await page.goto(`${journey.url}/console/#/series/${seriesId}/edit`);
    await page.getByText('3 occurrences, the last on').waitFor();
    await page.getByText('1 date the rule makes is left out: its occurrence was deleted on its own.').waitFor();
    await page.getByLabel('Number of occurrences').fill('6');
    await page.getByText('5 occurrences, the last on').waitFor();
    const preview = await previewed(page);
    await page.getByRole('button', { name: 'Save all future occurrences' }).click();
    await page.getByRole('link', { name: 'Edit all future occurrences' }).waitFor();
    const saved = await occurrencesOf(seriesId);
    assert.equal(saved.length, 5);
    assert.deepEqual(preview, shown(saved.map((event) => event.start_time)), 'what the preview showed');
    assertClean(browsing);
  } finally {
    await page.close();
  }
});

test('turning a page of a series\' occurrences keeps the keyboard\'s focus on the pager, on the page turned to', { skip, timeout: TIMEOUT_MS }, async () => {
  const made = await journey.api('POST', '/series', journey.keys.organizer, {
    title: 'Choir practice', category: 'cultural', location: 'Music room', capacity: 30, time_zone: CAMPUS,
    start_time: '2027-05-03T18:00:00+02:00', end_time: '2027-05-03T19:30:00+02:00', recurrence: 'FREQ=DAILY;COUNT=60',
  });
  assert.equal(made.status, 201);
  const seriesId = ((await made.json()) as { id: string }).id;
  const page = await browsing.context.newPage();
  const focused = (): Promise<string> => page.evaluate(() => document.activeElement?.textContent ?? '');
  try {
    await signIn(page, journey.url, journey.keys.organizer);
    await page.goto(`${journey.url}/console/#/series/${seriesId}`);
    await page.getByText('60 occurrences; page 1 of 3.').waitFor();
    await page.getByRole('button', { name: 'Next page' }).focus();
    await page.keyboard.press('Enter');
    await page.getByText('60 occurrences; page 2 of 3.').waitFor();
    assert.equal(await focused(), 'Next page', 'still on the button pressed');
    await page.keyboard.press('Enter');
    await page.getByText('60 occurrences; page 3 of 3.').waitFor();
    assert.equal(await focused(), 'Previous page', 'the last page has no next one: on the way back');
    await page.keyboard.press('Enter');
    await page.getByText('60 occurrences; page 2 of 3.').waitFor();
    assert.equal(await focused(), 'Previous page');
    assertClean(browsing);
  } finally {
    await page.close();
  }
});
