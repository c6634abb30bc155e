/// <reference lib="dom" />
// The console changes only what a person changed, and a bad moment costs them nothing: an edit sends the fields that
// differ (API.md §5's partial PUT), so a time with seconds or in the hour the clocks repeat is not moved by a save of
// the title; a fragment that is not valid percent-encoding is the "not found" screen; and a reload while the key is
// rate limited keeps the key. Real Chromium against `node dist/server.js`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { openBrowser, skipWithoutChromium, type Browsing } from './browser.js';
import { runCli } from '../helpers/spawn.js';
import { assertClean, fieldMessage, signIn, signedInTab, startJourneyServer, type JourneyServer } from './journey-server.js';

const skip = skipWithoutChromium();
const TIMEOUT_MS = 120_000;
// Berlin's clocks go back at 01:00Z on 2027-10-31: 02:30 local is 00:30Z, then again 01:30Z.
const CAMPUS = 'Europe/Berlin';

let journey: JourneyServer;
let browsing: Browsing;

before(async () => {
  if (skip !== false) return;
  journey = await startJourneyServer(['--time-zone', CAMPUS]);
  browsing = await openBrowser(journey.url, { timezoneId: CAMPUS });
});

after(async () => {
  if (skip !== false) return;
  await browsing?.close();
  await journey?.stop();
});

async function read(path: string): Promise<Record<string, unknown>> {
  return (await (await journey.api('GET', path, journey.keys.organizer)).json()) as Record<string, unknown>;
}

/** The bodies of the PUTs `page` sends from now on. */
function putBodies(page: Page): unknown[] {
  const bodies: unknown[] = [];
  page.on('request', (request) => {
    if (request.method() === 'PUT') bodies.push(request.postDataJSON());
  });
  return bodies;
}

test('editing only the title sends only the title: a time with seconds, or in the repeated hour, stays as stored', { skip, timeout: TIMEOUT_MS }, async () => {
  const seconds = await journey.createEvent({ title: 'Seconds', start_time: '2027-09-01T10:00:30.250Z', end_time: '2027-09-01T11:00:45Z' });
  const fallBack = await journey.createEvent({ title: 'Fall back', start_time: '2027-10-31T01:30:00Z', end_time: '2027-10-31T03:00:00Z' });
  const before = [await read(`/events/${seconds}`), await read(`/events/${fallBack}`)];
  const page = await signedInTab(browsing, journey, 'organizer');
  const sent = putBodies(page);
  for (const [id, title] of [[seconds, 'Seconds'], [fallBack, 'Fall back']] as const) {
    await page.goto(`${journey.url}/console/#/events/${id}/edit`);
    await page.getByLabel('Title').fill(`${title} (renamed)`);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { level: 1, name: `${title} (renamed)`, exact: true }).waitFor();
  }
  assert.deepEqual(sent, [{ title: 'Seconds (renamed)' }, { title: 'Fall back (renamed)' }]);
  const after = [await read(`/events/${seconds}`), await read(`/events/${fallBack}`)];
  assert.deepEqual(after.map((event) => [event['start_time'], event['end_time']]), before.map((event) => [event['start_time'], event['end_time']]));
  assert.deepEqual(after.map((event) => [event['start_time'], event['end_time']]), [
    ['2027-09-01T10:00:30.250Z', '2027-09-01T11:00:45.000Z'],
    ['2027-10-31T01:30:00.000Z', '2027-10-31T03:00:00.000Z'],
  ]);

  // A time the person does change is sent, in the zone's minutes.
  await page.goto(`${journey.url}/console/#/events/${seconds}/edit`);
  await page.getByLabel('Ends').fill('2027-09-01T13:15');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('heading', { level: 1, name: 'Seconds (renamed)', exact: true }).waitFor();
  await page.locator('#content').getByText('Saved “Seconds (renamed)”.').waitFor();
  assert.deepEqual(sent.at(-1), { end_time: '2027-09-01T11:15:00.000Z' });
  assert.equal((await read(`/events/${seconds}`))['start_time'], '2027-09-01T10:00:30.250Z');
  assertClean(browsing);
  await page.close();
});

test('the series form sends only what changed too: a first start with seconds is not moved by a new location', { skip, timeout: TIMEOUT_MS }, async () => {
  const created = await journey.api('POST', '/series', journey.keys.organizer, {
    title: 'Reading group', description: '', category: 'academic', location: 'Room 1', capacity: 20,
    time_zone: CAMPUS, recurrence: 'FREQ=WEEKLY;COUNT=3', start_time: '2027-04-06T17:00:30Z', end_time: '2027-04-06T18:00:00Z',
  });
  assert.equal(created.status, 201, await created.clone().text());
  const { id } = (await created.json()) as { id: string };
  const page = await signedInTab(browsing, journey, 'organizer');
  const sent = putBodies(page);
  await page.goto(`${journey.url}/console/#/series/${id}/edit`);
  await page.getByLabel('Location').fill('Room 2');
  await page.getByRole('button', { name: 'Save all future occurrences' }).click();
  await page.getByText('Room 2').first().waitFor();
  assert.deepEqual(sent, [{ location: 'Room 2' }]);
  const saved = await read(`/series/${id}`);
  assert.deepEqual([saved['location'], saved['start_time']], ['Room 2', '2027-04-06T17:00:30.000Z']);
  assertClean(browsing);
  await page.close();
});

test('a fragment that is not valid percent-encoding shows "not found" in place of the screen before it', { skip, timeout: TIMEOUT_MS }, async () => {
  const page = await signedInTab(browsing, journey, 'reader');
  await page.goto(`${journey.url}/console/#/events`);
  await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
  for (const fragment of ['#/events/%E0%A4%A', '#/series/%ZZ', '#/events/evt_1/registrations/%']) {
    await page.evaluate((hash) => (location.hash = hash), fragment);
    await page.getByRole('heading', { level: 1, name: 'Not found' }).waitFor();
    await page.getByText('There is no such page in the console.').waitFor();
    await page.goto(`${journey.url}/console/#/events`);
    await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
  }
  assertClean(browsing);
  await page.close();
});

test('a reload while the key is rate limited keeps the key: "Try again" signs in once the window allows', { skip, timeout: TIMEOUT_MS }, async () => {
  // A window of 6 s: a reload on a busy machine takes longer than 2 s, and the window's first requests would have left it.
  const limited = await startJourneyServer(['--time-zone', CAMPUS, '--rate-limit', '30', '--rate-window', '6']);
  const limitedBrowsing = await openBrowser(limited.url, { timezoneId: CAMPUS });
  try {
    const page = await limitedBrowsing.context.newPage();
    await signIn(page, limited.url, limited.keys.reader);
    // The rest of the window's requests, spent beside the browser.
    let status = 0;
    while (status !== 429) status = (await limited.api('GET', '/me', limited.keys.reader)).status;
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Not signed in yet' }).waitFor();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /retry in \d+ s/i);
    assert.equal(await page.evaluate(() => sessionStorage.getItem('campus-events.key')), limited.keys.reader, 'the key is kept');
    // The window is 6 s: once it has passed, the request goes through.
    await page.waitForTimeout(6_100);
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.getByText('Rita Reader').waitFor();
    await page.close();
  } finally {
    await limitedBrowsing.close();
    await limited.stop();
  }
});

test('an edit that empties a required box, or half types a time, is named as missing and sends nothing', { skip, timeout: TIMEOUT_MS }, async () => {
  const id = await journey.createEvent({ title: 'Kept whole', start_time: '2027-05-10T15:00:00Z', end_time: '2027-05-10T16:00:00Z' });
  const page = await signedInTab(browsing, journey, 'organizer');
  const sent = putBodies(page);
  await page.goto(`${journey.url}/console/#/events/${id}/edit`);
  await page.getByLabel('Capacity (seats)').fill('');
  await page.getByLabel('Category').selectOption('');
  // A browser reads a date-time box with its hour erased as empty.
  await page.getByLabel('Starts').fill('');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText('Starts is required.').waitFor();
  assert.match(await fieldMessage(page, 'Capacity (seats)'), /is required/);
  assert.match(await fieldMessage(page, 'Category'), /is required/);
  assert.match(await fieldMessage(page, 'Starts'), /is required/);
  assert.deepEqual(sent, []);
  const stored = await read(`/events/${id}`);
  assert.deepEqual([stored['start_time'], stored['capacity'], stored['category']], ['2027-05-10T15:00:00.000Z', 30, 'academic']);
  assertClean(browsing);
  await page.close();
});

/** `count` daily series of 31 occurrences from the first of `month` (0-based) of 2028, titled `title N`. */
async function dailySeries(count: number, month: number, title: string): Promise<void> {
  for (let n = 0; n < count; n++) {
    const start = Date.UTC(2028, month, 1, 8, n);
    const created = await journey.api('POST', '/series', journey.keys.organizer, {
      title: `${title} ${n}`, description: '', category: 'social', location: 'Quad', capacity: 10, time_zone: 'UTC',
      recurrence: 'FREQ=DAILY;COUNT=31', start_time: new Date(start).toISOString(), end_time: new Date(start + 1_800_000).toISOString(),
    });
    assert.equal(created.status, 201, await created.clone().text());
  }
}

test('a month of more than 1000 events says the view shows only the first of them; one of exactly 1000 is whole', { skip, timeout: TIMEOUT_MS }, async () => {
  // 33 daily series of 31 occurrences: 1,023 events in January 2028, over the month view's ten pages of 100.
  await dailySeries(33, 0, 'Busy');
  const page = await signedInTab(browsing, journey, 'reader');
  await page.goto(`${journey.url}/console/#/month?month=2028-01`);
  await page.getByText(/^The first 1000 events of January 2028, up to .*: the month holds more than a page can show\./).waitFor();
  await page.getByRole('link', { name: /Busy 0$/ }).first().waitFor();

  // Exactly 1,000 in March 2028 (32 series of 31, and 8 more), and one in April: March is whole, and says so.
  await dailySeries(32, 2, 'Full');
  for (let n = 0; n < 8; n++) await journey.createEvent({ title: `Full extra ${n}`, start_time: `2028-03-15T1${n}:00:00Z`, end_time: `2028-03-15T1${n}:30:00Z` });
  await journey.createEvent({ title: 'April', start_time: '2028-04-10T10:00:00Z', end_time: '2028-04-10T11:00:00Z' });
  await page.goto(`${journey.url}/console/#/month?month=2028-03`);
  await page.getByText('1000 events in March 2028.', { exact: true }).waitFor();
  assertClean(browsing);
  await page.close();
});

test('a key revoked while a page is open signs the tab out on that page: signing in again opens it', { skip, timeout: TIMEOUT_MS }, async () => {
  const made = runCli(['keys', 'create', '--name', 'Short Lived', '--email', 'short@campus.edu', '--role', 'organizer', '--json', '--data-dir', journey.dataDir]);
  assert.equal(made.status, 0, made.stderr);
  const { id, key } = JSON.parse(made.stdout) as { id: string; key: string };
  const page = await browsing.context.newPage();
  await signIn(page, journey.url, key);
  await page.goto(`${journey.url}/console/#/new`);
  await page.getByRole('heading', { level: 1, name: 'New event' }).waitFor();
  await page.getByLabel('Title').fill('Jazz night');
  await page.getByLabel('Description').fill('Doors at 7.\nBring a friend.');
  await page.getByLabel('Category').selectOption('cultural');
  assert.equal(runCli(['keys', 'revoke', id, '--data-dir', journey.dataDir]).status, 0);
  // The change feed's stream ends within 2 s of a revocation; its 401 signs the tab out.
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  assert.equal(await page.evaluate(() => location.hash), '#/new');
  // What was typed is not lost: it is shown, to copy, under the sign-in form.
  const held = page.getByRole('region', { name: 'What the form held (not saved)' });
  assert.deepEqual([await held.getByLabel('Title').inputValue(), await held.getByLabel('Description').inputValue(), await held.getByLabel('Category').inputValue()], ['Jazz night', 'Doors at 7.\nBring a friend.', 'cultural']);
  assert.equal(await held.getByLabel('Location').count(), 0, 'an empty field is left out');
  await page.getByLabel('API key').fill(journey.keys.organizer);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'New event' }).waitFor();
  await page.close();
});

test('a delete confirmed after someone changed the event (while the question was open) deletes nothing, and says so over the event as it now is', { skip, timeout: TIMEOUT_MS }, async () => {
  const id = await journey.createEvent({ title: 'Debate night', start_time: '2027-09-02T17:00:00Z', end_time: '2027-09-02T19:00:00Z' });
  const page = await signedInTab(browsing, journey, 'organizer');
  await page.goto(`${journey.url}/console/#/events/${id}`);
  await page.getByRole('heading', { level: 1, name: 'Debate night', exact: true }).waitFor();
  await page.getByRole('button', { name: 'Delete event' }).click();
  const question = page.getByRole('dialog');
  await question.waitFor();
  const changed = await journey.api('PUT', `/events/${id}`, journey.keys.admin, { location: 'Hall B' });
  assert.equal(changed.status, 200);
  await question.getByRole('button', { name: 'Delete event' }).click();
  await page.getByRole('alert').filter({ hasText: 'This event changed after this page showed it (someone edited it, or a registration came in), so it was not deleted.' }).waitFor();
  await page.getByText('Hall B', { exact: true }).waitFor();
  assert.equal((await journey.api('GET', `/events/${id}`, journey.keys.organizer)).status, 200, 'the event is still there');
  assertClean(browsing);
});
