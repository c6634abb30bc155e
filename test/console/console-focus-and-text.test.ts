/// <reference lib="dom" />
// Where the keyboard's focus goes after an action that redraws what held it (a check-in, a cancelled registration),
// a publishing move refused because the event changed since the page read it, and text a person typed that could
// break the page: a 200-character word, a right-to-left override; what a screen reader hears of a refused key and of
// the live-updates line. Real Chromium against `node dist/server.js`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { openBrowser, skipWithoutChromium, type Browsing } from './browser.js';
import { assertClean, fieldMessage, signedInTab, startJourneyServer, type JourneyServer } from './journey-server.js';

const skip = skipWithoutChromium();
const TIMEOUT_MS = 120_000;

let journey: JourneyServer;
let browsing: Browsing;

before(async () => {
  if (skip !== false) return;
  journey = await startJourneyServer();
  browsing = await openBrowser(journey.url, { timezoneId: 'UTC' });
});

after(async () => {
  if (skip !== false) return;
  await browsing?.close();
  await journey?.stop();
});

const FUTURE = { start_time: '2031-05-01T10:00:00Z', end_time: '2031-05-01T12:00:00Z' };

async function register(eventId: string, name: string, email: string): Promise<string> {
  const response = await journey.api('POST', `/events/${eventId}/registrations`, journey.keys.reader, { name, email });
  assert.equal(response.status, 201);
  return ((await response.json()) as { id: string }).id;
}

/** What has the keyboard's focus: its tag, and its text or accessible name. */
const focused = (page: Page): Promise<string> =>
  page.evaluate(() => {
    const active = document.activeElement;
    return active === null ? 'nothing' : `${active.tagName.toLowerCase()}: ${(active.getAttribute('aria-label') ?? (active as HTMLElement).innerText).trim().replace(/\s+/g, ' ').slice(0, 200)}`;
  });

test('the attendee list: after a check-in, and after a cancel, focus is on that attendee\'s row, which says what happened', { skip, timeout: TIMEOUT_MS }, async () => {
  const eventId = await journey.createEvent({ title: 'Focus workshop', ...FUTURE });
  await register(eventId, 'Ann Attendee', 'ann@campus.edu');
  await register(eventId, 'Ben Backup', 'ben@campus.edu');
  const page = await signedInTab(browsing, journey, 'organizer');
  try {
    await page.goto(`${journey.url}/console/#/events/${eventId}`);
    const checkIn = page.getByRole('button', { name: 'Check in Ann Attendee' });
    await checkIn.focus();
    await page.keyboard.press('Enter');
    await checkIn.waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.activeElement?.closest('tr') !== null && document.activeElement?.closest('tr') !== undefined, undefined, { timeout: 5_000 }).catch(() => undefined);
    assert.match(await focused(page), /^tr: Ann Attendee ann@campus\.edu confirmed (?!not yet)/, 'focus is on Ann\'s row, checked in');

    await page.getByRole('button', { name: 'Cancel registration of Ben Backup' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel registration' }).press('Enter');
    await page.locator('tr.cancelled-row').filter({ hasText: 'Ben Backup' }).waitFor();
    await page.waitForFunction(() => document.activeElement?.tagName === 'TR', undefined, { timeout: 5_000 }).catch(() => undefined);
    assert.match(await focused(page), /^tr: Ben Backup ben@campus\.edu cancelled/, 'focus is on Ben\'s row, cancelled');
    assertClean(browsing);
  } finally {
    await page.close();
  }
});

test('the attendee list redrawn by a live update keeps the keyboard\'s focus on its pager\'s button', { skip, timeout: TIMEOUT_MS }, async () => {
  const eventId = await journey.createEvent({ title: 'Crowded talk', capacity: 200, ...FUTURE });
  for (let n = 0; n < 101; n++) await register(eventId, `Person ${n}`, `p${n}@campus.edu`);
  const page = await signedInTab(browsing, journey, 'organizer');
  try {
    await page.goto(`${journey.url}/console/#/events/${eventId}`);
    const next = page.getByRole('navigation', { name: 'Attendee pages' }).getByRole('button', { name: 'Next page' });
    await next.focus();
    await register(eventId, 'Late Comer', 'late@campus.edu');
    await page.getByText('102 registrations; page 1 of 2.').waitFor();
    assert.equal(await focused(page), 'button: Next page');
  } finally {
    await page.close();
  }
});

test('an attendee\'s own registration page: after cancelling, focus is on the sentence saying it is cancelled', { skip, timeout: TIMEOUT_MS }, async () => {
  const eventId = await journey.createEvent({ title: 'Focus lecture', ...FUTURE });
  const registrationId = await register(eventId, 'Cleo Cancel', 'cleo@campus.edu');
  const page = await signedInTab(browsing, journey, 'reader');
  try {
    await page.goto(`${journey.url}/console/#/events/${eventId}/registrations/${registrationId}`);
    await page.getByRole('button', { name: 'Cancel this registration' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel registration' }).press('Enter');
    await page.locator('#content').getByText('The registration of Cleo Cancel is cancelled.', { exact: true }).waitFor();
    assert.equal(await focused(page), 'p: The registration of Cleo Cancel is cancelled.');
  } finally {
    await page.close();
  }
});

test('a publishing move on a page read before someone changed the event: refused, said so, and the page shows the event as it now is', { skip, timeout: TIMEOUT_MS }, async () => {
  const eventId = await journey.createEvent({ title: 'Draft recital', status: 'draft', ...FUTURE });
  const page = await signedInTab(browsing, journey, 'organizer');
  try {
    await page.goto(`${journey.url}/console/#/events/${eventId}`);
    const publish = page.getByRole('button', { name: 'Publish' });
    await publish.waitFor();
    // Changed elsewhere (another tab, a colleague): a draft's edit is in no change feed, so this page cannot know.
    assert.equal((await journey.api('PUT', `/events/${eventId}`, journey.keys.organizer, { title: 'Draft recital, moved to the chapel' })).status, 200);
    await publish.click();
    const alert = page.locator('#content .alert[role="alert"]').filter({ hasText: 'changed after this page showed it' });
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? '', /^This event changed after this page showed it \(someone edited it, or a registration came in\), so it was not published\. It is shown again as it is now/);
    await page.getByRole('heading', { name: 'Draft recital, moved to the chapel' }).waitFor();
    const stored = (await (await journey.api('GET', `/events/${eventId}`, journey.keys.organizer)).json()) as { status?: string };
    assert.equal(stored.status, 'draft', 'nothing was published on the old tag');
  } finally {
    await page.close();
  }
});

test('the events list at 1280 px: a 200-character word in a title or location wraps instead of widening the page', { skip, timeout: TIMEOUT_MS }, async () => {
  await journey.createEvent({ title: 'W'.repeat(200), location: 'L'.repeat(200), ...FUTURE });
  const page = await signedInTab(browsing, journey, 'reader');
  try {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${journey.url}/console/#/events`);
    await page.getByRole('link', { name: 'W'.repeat(200) }).waitFor();
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 1280, 'no horizontal scroll');
    // Short words still keep to one line: the date's and category's cells are not squeezed to a few letters.
    const lines = await page.evaluate(() => [...document.querySelectorAll('td[data-label="Category"], th')].map((cell) => {
      const range = document.createRange();
      range.selectNodeContents(cell);
      return `${cell.textContent}: ${new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size}`;
    }));
    assert.deepEqual(lines.filter((each) => !each.endsWith(': 1')), [], 'headers and categories are not broken inside their word');
  } finally {
    await page.close();
  }
});

test('a title holding a right-to-left override cannot move the text beside it: the Cancelled mark stays after the title', { skip, timeout: TIMEOUT_MS }, async () => {
  const title = 'Chess club \u202Eevif ta';
  const eventId = await journey.createEvent({ title, ...FUTURE, start_time: '2031-05-02T10:00:00Z', end_time: '2031-05-02T12:00:00Z' });
  assert.equal((await journey.api('PUT', `/events/${eventId}`, journey.keys.organizer, { status: 'cancelled' })).status, 200);
  const page = await signedInTab(browsing, journey, 'reader');
  try {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${journey.url}/console/#/events`);
    const link = page.getByRole('link', { name: title });
    await link.waitFor();
    const badge = page.locator('tr', { has: link }).locator('.badge');
    const [linkBox, badgeBox] = [await link.boundingBox(), await badge.boundingBox()];
    assert.ok(linkBox !== null && badgeBox !== null);
    assert.ok(badgeBox.x >= linkBox.x + linkBox.width - 1, `the mark (x ${Math.round(badgeBox.x)}) comes after the title (ends at ${Math.round(linkBox.x + linkBox.width)})`);
  } finally {
    await page.close();
  }
});

test('a refused key at sign-in marks the key field with the reason, and the live-updates line is a status a screen reader hears', { skip, timeout: TIMEOUT_MS }, async () => {
  const page = await browsing.context.newPage();
  try {
    await page.goto(`${journey.url}/`);
    const key = page.getByLabel('API key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    assert.equal(await key.getAttribute('aria-invalid'), 'true', 'an empty key');
    assert.match(await fieldMessage(page, 'API key'), /^Enter your API key\./);
    await key.fill(`cek_${'x'.repeat(40)}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('That key was not accepted').waitFor();
    assert.equal(await key.getAttribute('aria-invalid'), 'true', 'an unknown key');
    assert.equal(await fieldMessage(page, 'API key'), 'That key was not accepted: it is unknown or has been revoked. Check it and try again.');
    assert.match(await focused(page), /^input/, 'focus is back on the key');
    await key.fill(journey.keys.reader);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Live updates: on.' }).waitFor();
    assertClean(browsing);
  } finally {
    await page.close();
  }
});
