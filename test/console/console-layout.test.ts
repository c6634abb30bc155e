/// <reference lib="dom" />
// The console, round three (issue 36, points 2–4 and part of 6): the month view opens where the events are, a phone's
// first screen holds three events, the attendee page says when the event is before its list, dates name their weekday,
// a repeating event's button counts its series and says when the start day is added; axe finds nothing at any impact.
// Campus in America/Los_Angeles, browser in Europe/Berlin, as the issue tried it; "now" is fixed in the page's clock.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { OUTPUT_DIR, openBrowser, skipWithoutChromium, type Browsing } from './browser.js';
import { assertClean, signIn, startJourneyServer, type JourneyServer } from './journey-server.js';
import { ROOT } from '../helpers/spawn.js';

const skip = skipWithoutChromium();
const TIMEOUT_MS = 120_000;
const CAMPUS = 'America/Los_Angeles';
const BROWSER = 'Europe/Berlin';
/** The README's pictures are taken again only when asked (UPDATE_SCREENSHOTS=1): a test run leaves the checkout as it was. */
const SCREENSHOTS = process.env['UPDATE_SCREENSHOTS'] === '1' ? path.join(ROOT, 'test/console/screenshots') : OUTPUT_DIR;
/** The date part of the console's date and time (src/console/web/format.ts DATE_WITH_WEEKDAY); the time is the locale's short one. */
const DATE_WITH_WEEKDAY: Intl.DateTimeFormatOptions = { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' };

let journey: JourneyServer;
let browsing: Browsing;
/** The March 2027 events, in start order. */
const march: { id: string; title: string; start_time: string; end_time: string }[] = [];

before(async () => {
  if (skip !== false) return;
  journey = await startJourneyServer(['--time-zone', CAMPUS]);
  browsing = await openBrowser(journey.url, { timezoneId: BROWSER });
  // Tuesdays and Thursdays of March 2027, 10:00–11:30 in the campus zone (PST, UTC-8 until 14 March).
  for (const [day, title] of [[2, 'Organic chemistry lecture'], [4, 'Organic chemistry lab'], [9, 'Jazz ensemble rehearsal'], [11, 'Career fair briefing'], [16, 'Poetry reading']] as const) {
    const start = `2027-03-${String(day).padStart(2, '0')}T18:00:00.000Z`;
    const end = `2027-03-${String(day).padStart(2, '0')}T19:30:00.000Z`;
    const response = await journey.api('POST', '/events', journey.keys.organizer, { title, description: '', category: 'academic', location: 'Science hall, room 204', capacity: 40, start_time: start, end_time: end });
    assert.equal(response.status, 201, await response.clone().text());
    march.push({ ...((await response.json()) as { id: string }), title, start_time: start, end_time: end });
  }
});

after(async () => {
  if (skip !== false) return;
  await browsing?.close();
  await journey?.stop();
});

/** A tab whose clock reads `now`, at the size given, signed in as the organizer; every answer ≥ 400 is recorded in `failed`. */
async function organizerTab(now: string, size = { width: 1280, height: 800 }): Promise<{ page: Page; failed: string[] }> {
  const page = await browsing.context.newPage();
  const failed: string[] = [];
  page.on('response', (response) => {
    if (response.status() >= 400) failed.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
  await page.clock.setFixedTime(new Date(now));
  await page.setViewportSize(size);
  await signIn(page, journey.url, journey.keys.organizer);
  return { page, failed };
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core finds no violation at all on the page, of any impact (minor and moderate included). */
async function assertNoAxeViolation(page: Page, screen: string): Promise<void> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<{ violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((violation) => `${violation.impact} ${violation.id} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
  });
  assert.deepEqual(violations, [], `axe-core finds no violation of any impact on the ${screen} screen`);
}

/** Checks axe at 1280 and 360 px, then returns to `back`. */
async function assertAccessibleAtBothWidths(page: Page, screen: string, back: { width: number; height: number }): Promise<void> {
  for (const size of [{ width: 1280, height: 800 }, { width: 360, height: 740 }]) {
    await page.setViewportSize(size);
    await assertNoAxeViolation(page, `${screen} (${size.width} px)`);
  }
  await page.setViewportSize(back);
}

/** How the console writes an instant with its weekday, in the page's own Intl (Chromium's ICU). */
async function shownInPage(page: Page, starts: string[]): Promise<string[]> {
  return page.evaluate(
    ({ starts, zone, options }) => starts.map((start) => `${new Intl.DateTimeFormat(undefined, { ...options, timeZone: zone }).format(new Date(start))}, ${new Intl.DateTimeFormat(undefined, { timeStyle: 'short', timeZone: zone }).format(new Date(start))}`),
    { starts, zone: CAMPUS, options: DATE_WITH_WEEKDAY },
  );
}

test('monthView() opens on the next event\'s month when the current one is empty, saying so; on the current month when it has events; a month can be picked', { skip, timeout: TIMEOUT_MS }, async () => {
  // November 2026 has no event: the view moves on to March 2027.
  const empty = await organizerTab('2026-11-15T12:00:00Z');
  await empty.page.goto(`${journey.url}/console/#/month`);
  await empty.page.locator('#content').getByText('No events in November 2026; showing March 2027, the month of the next event.').waitFor();
  await empty.page.getByRole('heading', { level: 1, name: 'March 2027' }).waitFor();
  await empty.page.getByRole('link', { name: /Organic chemistry lecture/ }).waitFor();
  assert.equal(await empty.page.getByLabel('Month', { exact: true }).inputValue(), '2027-03', 'the picker shows the month shown');
  mkdirSync(SCREENSHOTS, { recursive: true });
  await empty.page.screenshot({ path: path.join(SCREENSHOTS, 'month-1280.png') });
  await empty.page.getByRole('link', { name: 'Next month' }).click();
  await empty.page.getByRole('heading', { level: 1, name: 'April 2027' }).waitFor();
  // A month asked for is shown even when empty, and "This month" is the current one.
  await empty.page.getByRole('link', { name: 'This month' }).click();
  await empty.page.locator('#content').getByText('No events in November 2026.', { exact: true }).waitFor();
  assert.equal(await empty.page.locator('.moved').count(), 0, 'no move from a month asked for');
  // Picking a month directly.
  await empty.page.getByLabel('Month', { exact: true }).fill('2027-03');
  await empty.page.getByRole('button', { name: 'Show month' }).click();
  await empty.page.getByRole('heading', { level: 1, name: 'March 2027' }).waitFor();
  assert.match(empty.page.url(), /#\/month\?month=2027-03$/);
  await empty.page.getByText('5 events in March 2027.').waitFor();
  await assertAccessibleAtBothWidths(empty.page, 'month', { width: 1280, height: 800 });
  assert.deepEqual(empty.failed, [], 'no request failed');
  await empty.page.close();

  // March 2027 has events: it opens there, with no sentence about moving.
  const busy = await organizerTab('2027-03-10T12:00:00Z');
  await busy.page.goto(`${journey.url}/console/#/month`);
  await busy.page.getByText('5 events in March 2027.').waitFor();
  await busy.page.getByRole('heading', { level: 1, name: 'March 2027' }).waitFor();
  assert.equal(await busy.page.locator('.moved').count(), 0, 'the current month, not moved');
  assert.deepEqual(busy.failed, [], 'no request failed');
  await busy.page.close();
  assertClean(browsing);
});

test('eventList() at 360×740 shows at least three whole event cards, each date with its weekday; at 1280 px axe finds nothing either', { skip, timeout: TIMEOUT_MS }, async () => {
  const { page, failed } = await organizerTab('2027-02-20T12:00:00Z', { width: 360, height: 740 });
  await page.goto(`${journey.url}/console/#/events`);
  await page.getByRole('link', { name: 'Poetry reading' }).waitFor();
  const cards = page.locator('table.stack tbody tr');
  assert.equal(await cards.count(), 5);
  const third = await cards.nth(2).boundingBox();
  assert.ok(third !== null && third.y + third.height <= 740, `the third card ends within the first 740 px (at ${third && Math.round(third.y + third.height)} px)`);
  const starts = await page.locator('td[data-label="Starts"]').allTextContents();
  assert.deepEqual(starts, await shownInPage(page, march.map((event) => event.start_time)));
  assert.match(starts[0]!, /^Tue\b/, 'Tuesday 2 March names its weekday');
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 360, 'no horizontal scroll');
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, 'phone-list-360.png') });
  await assertAccessibleAtBothWidths(page, 'events list', { width: 360, height: 740 });
  assert.deepEqual(failed, [], 'no request failed');
  assertClean(browsing);
  await page.close();
});

test('eventPage() on a phone: the event\'s date and time come before the attendee list', { skip, timeout: TIMEOUT_MS }, async () => {
  const event = march[0]!;
  const { page, failed } = await organizerTab('2027-02-20T12:00:00Z', { width: 360, height: 740 });
  await page.goto(`${journey.url}/console/#/events/${event.id}`);
  const heading = page.getByRole('heading', { level: 2, name: 'Attendees' });
  await heading.waitFor();
  const when = page.locator('.event-when');
  await when.waitFor();
  const [start] = await shownInPage(page, [event.start_time]);
  assert.equal(await when.textContent(), `${start} – 11:30`);
  const [whenBox, listBox] = [await when.boundingBox(), await heading.boundingBox()];
  assert.ok(whenBox !== null && listBox !== null && whenBox.y + whenBox.height <= listBox.y, 'when the event is comes before the attendees');
  const order = await page.evaluate(() => {
    const line = document.querySelector('.event-when')!;
    return line.compareDocumentPosition(document.getElementById('attendees-heading')!) & Node.DOCUMENT_POSITION_FOLLOWING;
  });
  assert.ok(order !== 0, 'and before them in reading order');
  assert.deepEqual(failed, [], 'no request failed');
  assertClean(browsing);
  await page.close();
});

test('the new-event form with Repeats on: "Create series (8 occurrences)", the start day added and said, weekdays in the preview, as the server makes it', { skip, timeout: TIMEOUT_MS }, async () => {
  const { page, failed } = await organizerTab('2027-02-20T12:00:00Z');
  await page.goto(`${journey.url}/console/#/new`);
  await page.getByLabel('Title').fill('Study group');
  await page.getByLabel('Category').selectOption('academic');
  await page.getByLabel('Location').fill('Library, room 3');
  // Monday 5 April 2027, 16:00 in the campus zone; the group meets on Tuesdays and Thursdays after it.
  await page.getByLabel('Starts').fill('2027-04-05T16:00');
  await page.getByLabel('Ends').fill('2027-04-05T17:00');
  await page.getByLabel('Capacity (seats)').fill('12');
  await page.getByRole('button', { name: 'Create event' }).waitFor();
  await page.getByLabel('How often').selectOption('WEEKLY');
  assert.equal(await page.getByLabel('Monday', { exact: true }).isChecked(), true, 'the start\'s day is ticked by default');
  await page.getByLabel('Monday', { exact: true }).uncheck();
  for (const day of ['Tuesday', 'Thursday']) await page.getByLabel(day, { exact: true }).check();
  await page.getByLabel('Number of occurrences').fill('8');
  await page.getByText('Monday, the start date, is added as the first occurrence.').waitFor();
  const create = page.getByRole('button', { name: 'Create series (8 occurrences)', exact: true });
  await create.waitFor();
  const preview = await page.locator('.preview ol li').allTextContents();
  assert.deepEqual(preview.map((line) => line.slice(0, 3)), ['Mon', 'Tue', 'Thu', 'Tue', 'Thu', 'Tue'], 'the preview names each weekday');
  await page.getByLabel('Number of occurrences').fill('3');
  await page.getByRole('button', { name: 'Create series (3 occurrences)', exact: true }).waitFor();
  await page.getByLabel('Number of occurrences').fill('8');
  await assertAccessibleAtBothWidths(page, 'new-event form with Repeats', { width: 1280, height: 800 });
  await create.click();
  await page.getByRole('link', { name: 'Edit all future occurrences' }).waitFor();
  const seriesId = new URL(page.url()).hash.split('/')[2]!;
  const made = ((await (await journey.api('GET', `/events?series_id=${seriesId}`, journey.keys.organizer)).json()) as { events: { start_time: string }[] }).events;
  assert.equal(made.length, 8, 'eight occurrences, as the button said');
  assert.deepEqual(preview, (await shownInPage(page, made.map((event) => event.start_time))).slice(0, 6), 'the preview showed what the server made');
  assert.deepEqual(failed, [], 'no request failed');
  assertClean(browsing);
  await page.close();
});
