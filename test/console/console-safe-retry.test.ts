/// <reference lib="dom" />
// A create or a registration whose answer is lost on the way (the server wrote it, then the link dropped) and which the
// person sends again is answered again, not made twice: the console sends the same Idempotency-Key for the same
// request (API.md §9.3). Real Chromium against `node dist/server.js`; the lost answer is a reset after the server answered.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page, Route } from 'playwright-core';
import { openBrowser, skipWithoutChromium, type Browsing } from './browser.js';
import { signedInTab, startJourneyServer, type JourneyServer } from './journey-server.js';

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

/** Loses the answer of the first POST to a URL matching `pattern` (after the server wrote it); lets the rest through. Records each POST's Idempotency-Key and replay header. */
async function loseFirstAnswer(page: Page, pattern: RegExp): Promise<{ keys: (string | undefined)[]; replayed: (string | null)[] }> {
  const seen = { keys: [] as (string | undefined)[], replayed: [] as (string | null)[] };
  await page.route(pattern, async (route: Route) => {
    if (route.request().method() !== 'POST') return route.continue();
    seen.keys.push(route.request().headers()['idempotency-key']);
    const answer = await route.fetch();
    seen.replayed.push(answer.headers()['idempotent-replayed'] ?? null);
    if (seen.keys.length === 1) return route.abort('connectionreset');
    return route.fulfill({ response: answer });
  });
  return seen;
}

/** Two POSTs, the retry with the first one's key, answered with the first answer. */
function assertRetriedOnce(seen: { keys: (string | undefined)[]; replayed: (string | null)[] }): void {
  assert.equal(seen.keys.length, 2);
  assert.match(seen.keys[0] ?? '', /^[0-9a-f]{32}$/);
  assert.equal(seen.keys[1], seen.keys[0], 'the retry carries the same key');
  assert.deepEqual(seen.replayed, [null, 'true'], 'the server answered the retry with the first answer');
}

/** How many events the search finds for `title`. */
async function eventsTitled(title: string): Promise<number> {
  return ((await (await journey.api('GET', `/events?q=${encodeURIComponent(title)}`, journey.keys.admin)).json()) as { total: number }).total;
}

/** The new-event form filled in: `title`, on `day` from 10:00 to 12:00, 20 seats. */
async function fillNew(page: Page, title: string, day: string): Promise<void> {
  await page.goto(`${journey.url}/console/#/new`);
  await page.getByLabel('Title').fill(title);
  await page.getByLabel('Category').selectOption('academic');
  await page.getByLabel('Location').fill('Hall B');
  await page.getByLabel('Starts').fill(`${day}T10:00`);
  await page.getByLabel('Ends').fill(`${day}T12:00`);
  await page.getByLabel('Capacity (seats)').fill('20');
}

test('a create whose answer was lost, sent again, makes one event, and the console says it was created', { skip, timeout: TIMEOUT_MS }, async () => {
  const title = 'Lost-answer lecture';
  const page = await signedInTab(browsing, journey, 'admin');
  try {
    const seen = await loseFirstAnswer(page, /\/events$/);
    await fillNew(page, title, '2031-05-01');
    await page.getByRole('button', { name: 'Create event' }).click();
    await page.getByRole('alert').filter({ hasText: 'could not be reached' }).waitFor();
    await page.getByRole('button', { name: 'Create event' }).click();
    await page.getByRole('heading', { level: 1, name: title }).waitFor();
    assertRetriedOnce(seen);
    assert.equal(await eventsTitled(title), 1, 'one event, not two');
  } finally {
    await page.close();
  }
});

test('a series whose create answer was lost, sent again, makes one series with one set of occurrences', { skip, timeout: TIMEOUT_MS }, async () => {
  const title = 'Lost-answer seminar';
  const page = await signedInTab(browsing, journey, 'admin');
  try {
    const seen = await loseFirstAnswer(page, /\/series$/);
    await fillNew(page, title, '2031-05-06');
    await page.getByLabel('How often').selectOption('WEEKLY');
    await page.getByLabel('Number of occurrences').fill('3');
    const create = page.getByRole('button', { name: 'Create series (3 occurrences)', exact: true });
    await create.click();
    await page.getByRole('alert').filter({ hasText: 'could not be reached' }).waitFor();
    await create.click();
    await page.getByRole('heading', { level: 1, name: title }).waitFor();
    assertRetriedOnce(seen);
    assert.equal(await eventsTitled(title), 3, 'three occurrences, not six');
  } finally {
    await page.close();
  }
});

test('a registration whose answer was lost, sent again, registers once and says so; the next person gets a key of their own', { skip, timeout: TIMEOUT_MS }, async () => {
  const eventId = await journey.createEvent({ title: 'Lost-answer workshop', start_time: '2031-06-01T10:00:00Z', end_time: '2031-06-01T12:00:00Z' });
  const page = await signedInTab(browsing, journey, 'organizer');
  try {
    const seen = await loseFirstAnswer(page, /\/registrations$/);
    await page.goto(`${journey.url}/console/#/events/${eventId}`);
    await page.getByLabel('Name').fill('Ann Attendee');
    await page.getByLabel('E-mail').fill('ann@campus.edu');
    await page.getByRole('button', { name: 'Register', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'could not be reached' }).waitFor();
    await page.getByRole('button', { name: 'Register', exact: true }).click();
    await page.getByText('Ann Attendee is registered: confirmed').waitFor();
    assert.equal(seen.keys[1], seen.keys[0]);
    assert.deepEqual(seen.replayed, [null, 'true']);
    await page.getByLabel('Name').fill('Ben Backup');
    await page.getByLabel('E-mail').fill('ben@campus.edu');
    await page.getByRole('button', { name: 'Register', exact: true }).click();
    await page.getByText('Ben Backup is registered: confirmed').waitFor();
    assert.equal(seen.keys.length, 3);
    assert.notEqual(seen.keys[2], seen.keys[0], 'a new request, a new key');
    const roster = (await (await journey.api('GET', `/events/${eventId}/registrations`, journey.keys.admin)).json()) as { registrations: { name: string }[] };
    assert.deepEqual(roster.registrations.map((registration) => registration.name).sort(), ['Ann Attendee', 'Ben Backup']);
  } finally {
    await page.close();
  }
});
