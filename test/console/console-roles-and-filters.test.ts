/// <reference lib="dom" />
// The console against three lines of API.md §10 an outside audit found it breaking: the month view is in the browser's
// time zone (a campus on UTC, a browser in Auckland); an edit form is not offered to a role or a non-owner that cannot
// save it; the events list filters by status and series, in its address, its API request and its iCalendar address,
// and says what in its address it cannot apply.
// Real Chromium against `node dist/server.js`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { checkScreen, openBrowser, skipWithoutChromium, type Browsing } from './browser.js';
import { assertClean, signedInTab, startJourneyServer, type JourneyServer, type Role } from './journey-server.js';

const skip = skipWithoutChromium();
const TIMEOUT_MS = 180_000;
const CAMPUS = 'UTC';
const BROWSER = 'Pacific/Auckland';
/** An organizer other than the journey's (Olivia), who owns what the admin makes for him. */
const OSCAR = { name: 'Oscar Other', email: 'oscar@campus.edu' };

let journey: JourneyServer;
let browsing: Browsing;

before(async () => {
  if (skip !== false) return;
  // The campus zone is the default (UTC): no --time-zone.
  journey = await startJourneyServer();
  browsing = await openBrowser(journey.url, { timezoneId: BROWSER });
});

after(async () => {
  if (skip !== false) return;
  await browsing?.close();
  await journey?.stop();
});

/** A new tab signed in as `role` (no zone chosen yet, its own key); the caller closes it. */
const tab = (role: Role): Promise<Page> => signedInTab(browsing, journey, role);

/** Makes `body` through the API as `role` at `path` (POST); answers the new id. */
async function make(path: string, role: Role, body: Record<string, unknown>): Promise<string> {
  const response = await journey.api('POST', path, journey.keys[role], { description: '', category: 'academic', location: 'Hall A', capacity: 30, ...body });
  assert.equal(response.status, 201, await response.clone().text());
  return ((await response.json()) as { id: string }).id;
}

/** The day number of the month-view cell that holds the link named `title`. */
const dayHolding = (page: Page, title: RegExp): Promise<string | null> =>
  page.locator('td', { has: page.getByRole('link', { name: title }) }).locator('.day-number [aria-hidden]').textContent();

test('monthView() shows the browser\'s zone by default, naming it, with the campus zone as the other choice; the list keeps the campus zone', { skip, timeout: TIMEOUT_MS }, async () => {
  // 23:30 UTC on 31 March is 12:30 on 1 April in Auckland (NZDT, UTC+13, until 4 April 2027).
  const id = await make('/events', 'organizer', { title: 'Night sky talk', start_time: '2027-03-31T23:30:00Z', end_time: '2027-04-01T00:30:00Z' });
  const page = await tab('reader');
  try {
    await page.goto(`${journey.url}/console/#/month?month=2027-04`);
    await page.getByText(`Times are in ${BROWSER}, your time zone.`).waitFor();
    await page.getByRole('link', { name: /Night sky talk/ }).waitFor();
    assert.equal(await dayHolding(page, /Night sky talk/), '1', 'on 1 April, the browser\'s day');
    await page.getByRole('link', { name: '12:30 Night sky talk' }).waitFor();
    assert.equal(await page.locator('table.month caption').textContent(), `April 2027, times in ${BROWSER}`);
    await checkScreen(page, 'month-browser-zone');

    // The campus zone is the other choice; once chosen it holds on the next screens of the tab.
    await page.getByRole('button', { name: `Show times in the campus time zone (${CAMPUS})` }).click();
    await page.getByText(`Times are in ${CAMPUS}, the campus time zone.`).waitFor();
    await page.getByText('No events in April 2027.').waitFor();
    await page.goto(`${journey.url}/console/#/month?month=2027-03`);
    await page.getByRole('link', { name: '23:30 Night sky talk' }).waitFor();
    assert.equal(await dayHolding(page, /Night sky talk/), '31', 'on 31 March, the campus day');
    await page.getByRole('button', { name: `Show times in my time zone (${BROWSER})` }).click();
    await page.getByText(`Times are in ${BROWSER}, your time zone.`).waitFor();
    await page.goto(`${journey.url}/console/#/events/${id}`);
    await page.locator('dl.facts dd', { hasText: 'Thu, 1 Apr 2027, 12:30' }).waitFor();
  } finally {
    await page.close();
  }

  // A fresh tab has chosen nothing: the list and an event's page are in the campus zone, named, and the month in the browser's.
  const fresh = await tab('reader');
  try {
    await fresh.goto(`${journey.url}/console/#/events`);
    await fresh.getByText(`Times are in ${CAMPUS}, the campus time zone.`).waitFor();
    await fresh.getByRole('row', { name: /Night sky talk/ }).getByText('Wed, 31 Mar 2027, 23:30').waitFor();
    await fresh.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Month' }).click();
    await fresh.getByText(`Times are in ${BROWSER}, your time zone.`).waitFor();
    await fresh.goto(`${journey.url}/console/#/events/${id}`);
    await fresh.locator('dl.facts dd', { hasText: 'Wed, 31 Mar 2027, 23:30' }).waitFor();
    assertClean(browsing);
  } finally {
    await fresh.close();
  }
});

test('the edit screens are refused like an unknown page to a reader and to an organizer who does not own the event or series', { skip, timeout: TIMEOUT_MS }, async () => {
  const olivias = await make('/events', 'organizer', { title: 'Olivia\'s seminar', start_time: '2027-05-10T09:00:00Z', end_time: '2027-05-10T10:00:00Z' });
  const oscars = await make('/events', 'admin', { title: 'Oscar\'s seminar', start_time: '2027-05-11T09:00:00Z', end_time: '2027-05-11T10:00:00Z', organizer: OSCAR });
  const series = await make('/series', 'admin', {
    title: 'Oscar\'s reading group', start_time: '2027-05-12T09:00:00Z', end_time: '2027-05-12T10:00:00Z', time_zone: CAMPUS, recurrence: 'FREQ=WEEKLY;COUNT=3', organizer: OSCAR,
  });
  /** Opens `route` and waits for the refusal: the "Not found" screen, no form, no save button, a way back to `back`. */
  const refused = async (page: Page, route: string, back: string): Promise<void> => {
    await page.goto(`${journey.url}/console/${route}`);
    // The way back names this route's page: the refusal of the route before (a change of the hash alone) may still show.
    await page.locator(`a[href="${back}"]`).filter({ hasText: /^Go to the/ }).waitFor();
    await page.getByRole('heading', { level: 1, name: 'Not found' }).waitFor();
    await page.getByText('There is no such page in the console.').waitFor();
    assert.equal(await page.getByRole('button', { name: /^Save/ }).count(), 0, `no save on ${route}`);
    assert.equal(await page.getByLabel('Title').count(), 0, `no form on ${route}`);
    assert.equal(await page.getByRole('link', { name: /^Go to the/ }).count(), 1);
  };
  const reader = await tab('reader');
  const organizer = await tab('organizer');
  const admin = await tab('admin');
  try {
    await refused(reader, `#/events/${olivias}/edit`, '#/events');
    await refused(reader, `#/series/${series}/edit`, '#/events');
    await refused(organizer, `#/events/${oscars}/edit`, `#/events/${oscars}`);
    await refused(organizer, `#/series/${series}/edit`, `#/series/${series}`);
    await checkScreen(organizer, 'edit-refused');
    // What its owner or an admin may edit still opens.
    await organizer.goto(`${journey.url}/console/#/events/${olivias}/edit`);
    await organizer.getByRole('button', { name: 'Save changes' }).waitFor();
    assert.equal(await organizer.getByLabel('Title').inputValue(), 'Olivia\'s seminar');
    await admin.goto(`${journey.url}/console/#/events/${oscars}/edit`);
    await admin.getByRole('button', { name: 'Save changes' }).waitFor();
    await admin.goto(`${journey.url}/console/#/series/${series}/edit`);
    await admin.getByRole('button', { name: 'Save all future occurrences' }).waitFor();
    assertClean(browsing);
  } finally {
    await Promise.all([reader.close(), organizer.close(), admin.close()]);
  }
});

test('eventList() filters by status and by series: in the address, the API request and the iCalendar address', { skip, timeout: TIMEOUT_MS }, async () => {
  await make('/events', 'organizer', { title: 'Glass blowing demo', category: 'cultural', start_time: '2027-06-01T09:00:00Z', end_time: '2027-06-01T10:00:00Z' });
  const called = await make('/events', 'organizer', { title: 'Kiln safety talk', category: 'cultural', start_time: '2027-06-02T09:00:00Z', end_time: '2027-06-02T10:00:00Z' });
  assert.equal((await journey.api('PUT', `/events/${called}`, journey.keys.organizer, { status: 'cancelled' })).status, 200);
  const series = await make('/series', 'organizer', {
    title: 'Ceramics studio', category: 'cultural', start_time: '2027-06-03T09:00:00Z', end_time: '2027-06-03T10:00:00Z', time_zone: CAMPUS, recurrence: 'FREQ=WEEKLY;COUNT=2',
  });
  const page = await tab('reader');
  const listed = (): Promise<string[]> => page.locator('table.stack tbody tr td:first-child a').allTextContents();
  const feed = (): Promise<URLSearchParams> => page.getByLabel('iCalendar address').inputValue().then((address) => new URL(address).searchParams);
  try {
    // From the address: cancelled ones only, asked of the API so, and the calendar address carries it.
    const asked = page.waitForRequest((request) => new URL(request.url()).pathname === '/events' && new URL(request.url()).searchParams.get('status') === 'cancelled');
    await page.goto(`${journey.url}/console/#/events?category=cultural&status=cancelled`);
    await asked;
    await page.getByText('1 event; page 1 of 1.').waitFor();
    assert.deepEqual(await listed(), ['Kiln safety talk']);
    assert.equal(await page.getByLabel('Status').inputValue(), 'cancelled');
    await page.getByText('Filters (2 active)').waitFor();
    assert.equal((await feed()).get('status'), 'cancelled');

    // From the control: published only, into the address.
    await page.getByLabel('Status').selectOption({ label: 'Published only' });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('3 events; page 1 of 1.').waitFor();
    assert.match(page.url(), /[?&]status=published(&|$)/);
    assert.deepEqual(await listed(), ['Glass blowing demo', 'Ceramics studio', 'Ceramics studio']);
    assert.equal((await feed()).get('status'), 'published');
    await checkScreen(page, 'events-status-filter');
    // Both, the default: no status in the address or the calendar address.
    await page.getByLabel('Status').selectOption({ label: 'Published, cancelled' });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('4 events; page 1 of 1.').waitFor();
    assert.doesNotMatch(page.url(), /status=/);
    assert.equal((await feed()).has('status'), false);

    // A series page leads to its occurrences in the list, whose filters keep the series and whose calendar address carries it.
    await page.goto(`${journey.url}/console/#/series/${series}`);
    await page.getByRole('link', { name: 'Open the occurrences in the events list' }).click();
    await page.getByText('2 events; page 1 of 1.').waitFor();
    assert.match(page.url(), new RegExp(`#/events\\?series_id=${series}$`));
    await page.locator('p.series-filter').getByRole('link', { name: '“Ceramics studio”' }).waitFor();
    assert.deepEqual(await listed(), ['Ceramics studio', 'Ceramics studio']);
    assert.equal((await feed()).get('series_id'), series);
    await page.getByLabel('Status').selectOption({ label: 'Cancelled only' });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No events match this filter.').waitFor();
    assert.match(page.url(), new RegExp(`series_id=${series}`), 'applying a filter keeps the series');
    await page.getByRole('link', { name: 'Show every event' }).click();
    await page.getByText('1 event; page 1 of 1.').waitFor();
    assert.deepEqual(await listed(), ['Kiln safety talk'], 'the series gone, the status kept');
    assertClean(browsing);
  } finally {
    await page.close();
  }
});

test('eventList() names what its address asks that it leaves out, and a page past the last; a feed key\'s address is headed for no filter', { skip, timeout: TIMEOUT_MS }, async () => {
  await make('/events', 'organizer', { title: 'Pottery wheel basics', category: 'cultural', start_time: '2027-07-01T09:00:00Z', end_time: '2027-07-01T10:00:00Z' });
  const page = await tab('reader');
  const note = page.locator('p.hint', { hasText: 'The address asks for what this list cannot apply' });
  try {
    await page.goto(`${journey.url}/console/#/events?category=cultural,pottery&limit=500&colour=red`);
    await page.getByRole('link', { name: 'Pottery wheel basics' }).waitFor();
    assert.equal(
      await note.textContent(),
      'The address asks for what this list cannot apply, so it is left out: category “cultural,pottery”, limit “500”, colour “red”.',
    );
    assert.equal(await page.locator('summary', { hasText: 'Calendar subscription' }).textContent(), 'Calendar subscription for this filter');

    await page.goto(`${journey.url}/console/#/events?page=99`);
    await page.getByText(/^\d+ events?; page 99 is past the last page, 1\.$/).waitFor();
    assert.equal(await note.count(), 0, 'page 99 is applied, only empty');

    await page.goto(`${journey.url}/console/#/events?category=cultural`);
    await page.getByRole('link', { name: 'Pottery wheel basics' }).waitFor();
    assert.equal(await note.count(), 0, 'nothing left out, nothing said');
    assertClean(browsing);
  } finally {
    await page.close();
  }
  const feed = await tab('feed');
  try {
    await feed.getByText('This is a calendar feed key').waitFor();
    assert.equal(await feed.locator('summary').textContent(), 'Calendar subscription');
    assert.equal(new URL(await feed.getByLabel('iCalendar address').inputValue()).search, `?key=${journey.keys.feed}`);
  } finally {
    await feed.close();
  }
});
