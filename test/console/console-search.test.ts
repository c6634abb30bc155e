/// <reference lib="dom" />
// Finding events in the console (API.md §5): the search box (`q`) and several categories (`category=a,b`) on the list,
// kept in the address and in the calendar address of the filter.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { checkScreen, openBrowser, skipWithoutChromium, type Browsing } from './browser.js';
import { assertClean, signIn, startJourneyServer, type JourneyServer } from './journey-server.js';

const skip = skipWithoutChromium();
const TIMEOUT_MS = 180_000;

let journey: JourneyServer;
let browsing: Browsing;

before(async () => {
  if (skip !== false) return;
  journey = await startJourneyServer(['--time-zone', 'Europe/Berlin']);
  const events: [string, string][] = [
    ['Organic Chemistry — Laboratory', 'academic'],
    ['Chemistry quiz night', 'social'],
    ['Yoga at dawn', 'athletic'],
    ['Jazz night', 'cultural'],
  ];
  for (const [index, [title, category]] of events.entries()) {
    const start = Date.UTC(2027, 1, 1 + index, 18);
    const response = await journey.api('POST', '/events', journey.keys.organizer, { title, category, location: 'Campus', start_time: new Date(start).toISOString(), end_time: new Date(start + 3600_000).toISOString(), capacity: 10 });
    assert.equal(response.status, 201);
  }
  browsing = await openBrowser(journey.url, { timezoneId: 'America/New_York' });
});

after(async () => {
  if (skip !== false) return;
  await browsing?.close();
  await journey?.stop();
});

test('a search box finds events by the starts of words, and several categories combine with it', { skip, timeout: TIMEOUT_MS }, async () => {
  const page = await browsing.context.newPage();
  try {
    await signIn(page, journey.url, journey.keys.organizer);
    await page.getByRole('link', { name: 'Jazz night' }).waitFor();
    await page.getByRole('searchbox', { name: 'Search' }).fill('chem lab');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByText('1 event; page 1 of 1.').waitFor();
    await page.getByRole('link', { name: 'Organic Chemistry — Laboratory' }).waitFor();
    assert.equal(new URL(page.url()).hash, '#/events?q=chem+lab');

    await page.getByRole('searchbox', { name: 'Search' }).fill('chem');
    await page.getByLabel('academic', { exact: true }).check();
    await page.getByLabel('social', { exact: true }).check();
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('2 events; page 1 of 1.').waitFor();
    assert.equal(new URL(page.url()).hash, '#/events?q=chem&category=academic%2Csocial');
    assert.deepEqual(await page.locator('tbody tr td:first-child a').allTextContents(), ['Organic Chemistry — Laboratory', 'Chemistry quiz night']);
    await page.getByText('Filters (1 active)').waitFor();
    await checkScreen(page, 'events-search');
    await page.getByText('Calendar subscription for this filter').click();
    assert.equal(await page.getByLabel('iCalendar address').inputValue(), `${journey.url}/events.ics?q=chem&category=academic%2Csocial&key=FEEDKEY`);

    await page.getByLabel('social', { exact: true }).uncheck();
    await page.getByLabel('athletic', { exact: true }).check();
    await page.getByRole('searchbox', { name: 'Search' }).fill('');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    // The count reads "2 events" before and after: wait for the new list itself, not the line it shares with the old one.
    await page.getByRole('link', { name: 'Yoga at dawn' }).waitFor();
    await page.getByText('2 events; page 1 of 1.').waitFor();
    assert.deepEqual(await page.locator('tbody tr td:first-child a').allTextContents(), ['Organic Chemistry — Laboratory', 'Yoga at dawn']);

    await page.getByRole('searchbox', { name: 'Search' }).fill('zebra');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByText('No events match “zebra” with this filter.').waitFor();
    assertClean(browsing);
  } finally {
    await page.close();
  }
});
