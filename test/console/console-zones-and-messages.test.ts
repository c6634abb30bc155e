/// <reference lib="dom" />
// The console written for people (issue "round two"): field problems in the form's words, every time zone named (the
// campus's, Asia/Kolkata, on forms and lists; the browser's, Los Angeles, on the month), events first on a phone,
// registration links, conflicts as they happen, and no browser console error at all on first load. Real Chromium
// against `node dist/server.js`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { checkScreen, openBrowser, skipWithoutChromium, type Browsing } from './browser.js';
import { assertClean, fieldMessage, signIn, startJourneyServer, type JourneyServer } from './journey-server.js';

const skip = skipWithoutChromium();
const TIMEOUT_MS = 180_000;
const CAMPUS = 'Asia/Kolkata';
const BROWSER = 'America/Los_Angeles';

let journey: JourneyServer;
let browsing: Browsing;

before(async () => {
  if (skip !== false) return;
  journey = await startJourneyServer(['--time-zone', CAMPUS]);
  browsing = await openBrowser(journey.url, { timezoneId: BROWSER });
});

after(async () => {
  if (skip !== false) return;
  await browsing?.close();
  await journey?.stop();
});

/**
 * A new tab signed in as the organizer, at 1280 px or a phone's 360×740. Each test closes its own: a tab's
 * live stream holds one of the browser's six connections to the server.
 */
async function organizerTab(phone = false): Promise<Page> {
  const page = await browsing.context.newPage();
  if (phone) await page.setViewportSize({ width: 360, height: 740 });
  await signIn(page, journey.url, journey.keys.organizer);
  return page;
}

test('first load: no browser console error at all, the icon included', { skip, timeout: TIMEOUT_MS }, async () => {
  const page = await browsing.context.newPage();
  const icon = page.waitForResponse((response) => /\/(favicon\.ico|console\/icon\.svg)$/.test(response.url()));
  await signIn(page, journey.url, journey.keys.organizer);
  await page.getByText('No events match this filter.').waitFor();
  await page.getByText('Live updates: on.').waitFor();
  assert.equal((await icon).status(), 200, 'the icon was asked for and served');
  assert.deepEqual(browsing.allErrors, [], 'not even a 404 line');
  const favicon = await fetch(`${journey.url}/favicon.ico`);
  assert.equal(favicon.headers.get('content-type'), 'image/svg+xml');
  assert.equal(favicon.headers.get('content-security-policy'), "default-src 'self'; frame-ancestors 'none'");
  await page.close();
});

test('named zones: the form takes and the list and event show campus times, the month the browser\'s; a switch holds on every screen', { skip, timeout: TIMEOUT_MS }, async () => {
  const page = await organizerTab();
  await page.goto(`${journey.url}/console/#/new`);
  await page.getByText(`Times are in ${CAMPUS}, the campus time zone.`).waitFor();
  await page.getByLabel('Title').fill('Sitar recital');
  await page.getByLabel('Category').selectOption('cultural');
  await page.getByLabel('Location').fill('Music room');
  // 05:00 on the 11th in Kolkata is 23:30 UTC on the 10th, and 15:30 on the 10th in Los Angeles.
  await page.getByLabel('Starts').fill('2027-03-11T05:00');
  await page.getByLabel('Ends').fill('2027-03-11T06:30');
  await page.getByLabel('Capacity (seats)').fill('40');
  await page.getByRole('button', { name: 'Create event' }).click();
  await page.getByRole('heading', { level: 1, name: 'Sitar recital' }).waitFor();
  const id = new URL(page.url()).hash.split('/')[2]!;
  const stored = (await (await journey.api('GET', `/events/${id}`, journey.keys.organizer)).json()) as { start_time: string };
  assert.equal(stored.start_time, '2027-03-10T23:30:00.000Z', 'typed in the campus zone, not the browser\'s');
  await page.locator('dl.facts dd', { hasText: 'Thu, 11 Mar 2027, 05:00' }).waitFor();

  await page.goto(`${journey.url}/console/#/events`);
  await page.getByRole('row', { name: /Sitar recital/ }).getByText('11 Mar 2027, 05:00').waitFor();
  await page.getByText(`Times are in ${CAMPUS}, the campus time zone.`).waitFor();

  // The month view is in the browser's zone (API.md §10) until the person picks the campus's.
  await page.goto(`${journey.url}/console/#/month?month=2027-03`);
  const dayOf = async (): Promise<string | null> => page.locator('td', { has: page.getByRole('link', { name: /Sitar recital/ }) }).locator('.day-number [aria-hidden]').textContent();
  await page.getByText(`Times are in ${BROWSER}, your time zone.`).waitFor();
  await page.getByRole('link', { name: /15:30 Sitar recital/ }).waitFor();
  assert.equal(await dayOf(), '10', 'on the browser\'s day');
  await checkScreen(page, 'month-browser-zone');
  await page.getByRole('button', { name: `Show times in the campus time zone (${CAMPUS})` }).click();
  await page.getByText(`Times are in ${CAMPUS}, the campus time zone.`).waitFor();
  await page.getByRole('link', { name: /05:00 Sitar recital/ }).waitFor();
  assert.equal(await dayOf(), '11', 'on the campus day once switched');
  await page.getByRole('button', { name: `Show times in my time zone (${BROWSER})` }).click();
  await page.getByText(`Times are in ${BROWSER}, your time zone.`).waitFor();
  await page.goto(`${journey.url}/console/#/events/${id}/edit`);
  assert.equal(await page.getByLabel('Starts').inputValue(), '2027-03-10T15:30', 'the form takes times in the zone chosen');
  await page.getByRole('button', { name: `Show times in the campus time zone (${CAMPUS})` }).click();
  await page.getByText(`Times are in ${CAMPUS}, the campus time zone.`).waitFor();
  assert.equal(await page.getByLabel('Starts').inputValue(), '2027-03-11T05:00');
  assertClean(browsing);
  await page.close();
});

test('field problems in the form\'s words: end before start, title too long, e-mail taken, capacity below registrations', { skip, timeout: TIMEOUT_MS }, async () => {
  const page = await organizerTab();
  await page.goto(`${journey.url}/console/#/new`);
  await page.getByLabel('Title').fill('x'.repeat(201));
  await page.getByLabel('Category').selectOption('academic');
  await page.getByLabel('Location').fill('Lab 1');
  await page.getByLabel('Starts').fill('2027-01-03T18:00');
  await page.getByLabel('Ends').fill('2027-01-03T17:00');
  await page.getByLabel('Capacity (seats)').fill('5');
  await page.getByRole('button', { name: 'Create event' }).click();
  await page.getByText('Some fields need attention').waitFor();
  assert.equal(await fieldMessage(page, 'Ends'), 'Ends must be after Starts (18:00).');
  assert.equal(await fieldMessage(page, 'Title'), 'Title is too long: 201 characters, at most 200.');
  await checkScreen(page, 'event-form-sentences');

  const id = await journey.createEvent({ title: 'Small seminar', start_time: '2027-04-01T10:00:00Z', end_time: '2027-04-01T11:00:00Z', capacity: 5 });
  await page.goto(`${journey.url}/console/#/events/${id}`);
  for (const [name, email] of [['Ann', 'ann@campus.edu'], ['Ben', 'ben@campus.edu']]) {
    await page.getByLabel('Name', { exact: true }).fill(name!);
    await page.getByLabel('E-mail', { exact: true }).fill(email!);
    await page.getByRole('button', { name: 'Register', exact: true }).click();
    await page.getByText(`${name} is registered: confirmed`).waitFor();
  }
  await page.getByLabel('Name', { exact: true }).fill('Ann again');
  await page.getByLabel('E-mail', { exact: true }).fill('ANN@campus.edu');
  await page.getByRole('button', { name: 'Register', exact: true }).click();
  await page.getByText('Nobody was registered').waitFor();
  assert.equal(await fieldMessage(page, 'E-mail'), 'ANN@campus.edu is already registered for this event. Cancel that registration first to register this address again.');

  await page.goto(`${journey.url}/console/#/events/${id}/edit`);
  await page.getByLabel('Capacity (seats)').fill('1');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText('The event was not saved').waitFor();
  assert.equal(await fieldMessage(page, 'Capacity (seats)'), 'Capacity (seats) cannot be lower than the 2 people already registered; keep at least 2 seats, or cancel registrations first.');
  assert.equal(await page.getByLabel('Capacity (seats)').getAttribute('aria-invalid'), 'true');
  assertClean(browsing);
  await page.close();
});

test('a phone shows events first: filters fold to one line with a count, the first event within 740 px', { skip, timeout: TIMEOUT_MS }, async () => {
  await journey.createEvent({ title: 'Yoga on the lawn', category: 'athletic', start_time: '2027-05-01T07:00:00Z', end_time: '2027-05-01T08:00:00Z' });
  const page = await organizerTab(true);
  await page.goto(`${journey.url}/console/#/events?category=athletic`);
  const first = page.getByRole('link', { name: 'Yoga on the lawn' });
  await first.waitFor();
  await page.getByText('Filters (1 active)').waitFor();
  assert.equal(await page.getByLabel('Starts on or after', { exact: false }).isVisible(), false, 'the filters are folded');
  const box = await first.boundingBox();
  assert.ok(box !== null && box.y + box.height <= 740, `the first event is in the first screen (bottom at ${box && box.y + box.height} px)`);
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 360, 'no horizontal scroll');
  await page.getByText('Filters (1 active)').click();
  assert.equal(await page.getByLabel('athletic', { exact: true }).isChecked(), true);
  await checkScreen(page, 'events-filters-open');
  assertClean(browsing);
  await page.close();
});

test('a phone: an organizer sees the attendees and the register form before the event\'s facts', { skip, timeout: TIMEOUT_MS }, async () => {
  const id = await journey.createEvent({ title: 'Choir rehearsal', start_time: '2027-05-02T12:00:00Z', end_time: '2027-05-02T13:00:00Z' });
  const page = await organizerTab(true);
  await page.goto(`${journey.url}/console/#/events/${id}`);
  const attendees = page.getByRole('heading', { level: 2, name: 'Attendees' });
  await attendees.waitFor();
  const facts = page.locator('dl.facts');
  const [heading, list] = [await attendees.boundingBox(), await facts.boundingBox()];
  assert.ok(heading !== null && list !== null && heading.y < list.y, 'the attendees come first on a phone');
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.waitForFunction(() => {
    const facts = document.querySelector('dl.facts');
    const heading = document.getElementById('attendees-heading');
    // At 1280 px the facts come first again: beside the attendees, on their left (issue 36 uses the width).
    return facts !== null && heading !== null && facts.getBoundingClientRect().right <= heading.getBoundingClientRect().left;
  });
  assertClean(browsing);
  await page.close();
});

test('registering gives the attendee\'s link to check or cancel their place, with a copy button; Cancel looks destructive', { skip, timeout: TIMEOUT_MS }, async () => {
  const id = await journey.createEvent({ title: 'Pottery class', start_time: '2027-05-03T12:00:00Z', end_time: '2027-05-03T13:00:00Z', capacity: 1 });
  await browsing.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: journey.url });
  const page = await organizerTab();
  await page.goto(`${journey.url}/console/#/events/${id}`);
  await page.getByLabel('Name', { exact: true }).fill('Cleo Clay');
  await page.getByLabel('E-mail', { exact: true }).fill('cleo@campus.edu');
  await page.getByRole('button', { name: 'Register', exact: true }).click();
  const link = page.getByLabel("Cleo Clay's registration link");
  await link.waitFor();
  const address = await link.inputValue();
  assert.match(address, new RegExp(`^${journey.url}/console/#/events/${id}/registrations/reg_[0-9A-Za-z]{22,}$`));
  await page.getByText('with it they can check whether they have a seat, or cancel their place').waitFor();
  await page.getByRole('button', { name: 'Copy link' }).click();
  await page.getByText('Copied. Send it to Cleo Clay.').waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), address);
  const cancel = page.getByRole('button', { name: 'Cancel registration of Cleo Clay' });
  const checkIn = page.getByRole('button', { name: 'Check in Cleo Clay' });
  assert.match((await cancel.getAttribute('class')) ?? '', /\bdanger\b/);
  assert.doesNotMatch((await checkIn.getAttribute('class')) ?? '', /\bdanger\b/);
  const colours = await cancel.evaluate((element) => getComputedStyle(element).color);
  assert.equal(colours, 'rgb(163, 0, 27)', 'the danger colour');
  await checkScreen(page, 'registration-link');

  await page.goto(address);
  await page.getByText('Confirmed: they have a seat.').waitFor();
  await checkScreen(page, 'registration');
  await page.getByRole('button', { name: 'Cancel this registration' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel registration' }).click();
  await page.getByText('The registration of Cleo Clay is cancelled.').first().waitFor();
  const roster = (await (await journey.api('GET', `/events/${id}/registrations`, journey.keys.organizer)).json()) as { total: number };
  assert.equal(roster.total, 0);
  assertClean(browsing);
  await page.close();
});

test('the edit form says at once, before saving, that someone else changed the event, and what; a registration is no conflict', { skip, timeout: TIMEOUT_MS }, async () => {
  const id = await journey.createEvent({ title: 'Debate night', start_time: '2027-05-04T12:00:00Z', end_time: '2027-05-04T13:00:00Z' });
  const page = await organizerTab();
  await page.goto(`${journey.url}/console/#/events/${id}/edit`);
  await page.getByLabel('Title').waitFor();
  await page.getByText('Live updates: on.').waitFor();
  // A registration elsewhere only moves the seat count: the form looks, finds nothing of its own changed, and says nothing.
  const looked = page.waitForResponse((response) => response.url().endsWith(`/events/${id}`) && response.request().method() === 'GET');
  assert.equal((await journey.api('POST', `/events/${id}/registrations`, journey.keys.reader, { name: 'Dora', email: 'dora@campus.edu' })).status, 201);
  await looked;
  assert.equal(await page.locator('section.conflict').count(), 0, 'no conflict screen for a registration');
  await page.getByLabel('Capacity (seats)').fill('45');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('heading', { level: 1, name: 'Debate night' }).waitFor();
  await page.getByText('1 of 45 taken').waitFor();
  await page.goto(`${journey.url}/console/#/events/${id}/edit`);
  await page.getByLabel('Title').waitFor();
  await page.getByLabel('Capacity (seats)').fill('50');
  assert.equal((await journey.api('PUT', `/events/${id}`, journey.keys.organizer, { title: 'Debate night (moved)', location: 'Hall B' })).status, 200);
  const conflict = page.locator('section.conflict');
  await conflict.getByRole('heading', { name: 'Someone else changed this event' }).waitFor();
  assert.deepEqual(await conflict.locator('tbody th').allTextContents(), ['Title', 'Location'], 'the fields they changed, named');
  await conflict.getByRole('cell', { name: 'Debate night (moved)' }).waitFor();
  await checkScreen(page, 'edit-conflict-live');
  assertClean(browsing);
  await page.close();
});
