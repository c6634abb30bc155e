/// <reference lib="dom" />
// The console never loses an organizer's work (issue "round three", points 1, 5 and part of 6): two people editing one
// event reach both sets of edits through the conflict screen, a refused save stops there, messages stay with the
// screen that made them, a cancelled registration keeps its row, a registration's result is in view and read out, and
// what the console can check itself is never sent to be refused. Real Chromium against `node dist/server.js`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { checkScreen, openBrowser, skipWithoutChromium, type Browsing } from './browser.js';
import { assertClean, fieldMessage, signIn, startJourneyServer, type JourneyServer } from './journey-server.js';

const skip = skipWithoutChromium();
const TIMEOUT_MS = 120_000;
const CAMPUS = 'America/Los_Angeles';
const BROWSER = 'Europe/Berlin';

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

async function stored(id: string): Promise<Record<string, unknown>> {
  return (await (await journey.api('GET', `/events/${id}`, journey.keys.organizer)).json()) as Record<string, unknown>;
}

/**
 * A tab signed in as the organizer, with every answer of 400 or more it receives, and every write it sends, counted.
 * A `deaf` tab hears nothing from the change feed (its stream ends at once, again and again), from before it signs in.
 */
async function organizerTab(deaf = false): Promise<{ page: Page; failed: string[]; writes: string[] }> {
  const page = await browsing.context.newPage();
  if (deaf) {
    await page.route(
      (url) => url.pathname === '/changes',
      (route) => (route.request().headers()['accept'] === 'text/event-stream' ? route.fulfill({ status: 200, contentType: 'text/event-stream', body: '' }) : route.continue()),
    );
  }
  const failed: string[] = [];
  const writes: string[] = [];
  page.on('response', (response) => {
    if (response.status() >= 400) failed.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
  page.on('request', (request) => {
    if (request.method() !== 'GET') writes.push(`${request.method()} ${new URL(request.url()).pathname}`);
  });
  await signIn(page, journey.url, journey.keys.organizer);
  return { page, failed, writes };
}

/** An edit form for `id`, loaded and following the change feed. */
async function openEditor(page: Page, id: string, live = true): Promise<void> {
  await page.goto(`${journey.url}/console/#/events/${id}/edit`);
  await page.getByLabel('Title').waitFor();
  await page.getByText(live ? 'Live updates: on.' : 'Live updates: reconnecting… The server ended the stream.').waitFor();
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Every axe-core violation on the page, of any impact (browser.ts's check stops at serious and critical). */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    type Violation = { id: string; impact: string | null; nodes: { target: string[] }[] };
    const axe = (globalThis as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<{ violations: Violation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((violation) => `${violation.impact} ${violation.id} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
  });
}

test('two pages edit one event: "Use their version" asks first, "Keep my changes" saves mine on theirs, nothing of either is lost', { skip, timeout: TIMEOUT_MS }, async () => {
  const id = await journey.createEvent({ title: 'Film night', start_time: '2027-03-04T03:00:00Z', end_time: '2027-03-04T05:00:00Z' });
  const [theirs, mine] = [await organizerTab(), await organizerTab()];
  await openEditor(theirs.page, id);
  await openEditor(mine.page, id);
  await theirs.page.getByLabel('Title').fill('Film night: Metropolis');
  await theirs.page.getByLabel('Location').fill('Cinema 2');
  await mine.page.getByLabel('Title').fill('Film night (with snacks)');
  await mine.page.getByLabel('Capacity (seats)').fill('60');
  await theirs.page.getByRole('button', { name: 'Save changes' }).click();
  await theirs.page.getByRole('heading', { level: 1, name: 'Film night: Metropolis', exact: true }).waitFor();

  // Seen live on the other page, before saving: their value beside mine, field by field.
  const conflict = mine.page.locator('section.conflict');
  await conflict.getByRole('heading', { level: 2, name: 'Someone else changed this event' }).waitFor();
  const rows = await conflict.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((cell) => cell.textContent)));
  assert.deepEqual(rows, [
    ['Title', 'Film night: Metropolis', 'Film night (with snacks)'],
    ['Location', 'Cinema 2', 'You did not change it: theirs is kept.'],
  ]);
  assert.deepEqual(await axeViolations(mine.page), [], 'axe finds nothing of any impact on the conflict screen');
  // The README's picture of it (copied from test/console/output/conflict-1280.png), and a check that it fits 360 px.
  await checkScreen(mine.page, 'conflict');

  await conflict.getByRole('button', { name: 'Use their version' }).click();
  const ask = mine.page.getByRole('dialog');
  assert.match((await ask.textContent()) ?? '', /Discard what you typed in Title and Capacity \(seats\)/);
  await ask.getByRole('button', { name: 'Keep editing' }).click();
  // A closed <dialog> is hidden at once but leaves the page a moment later; its question names Title too.
  await mine.page.locator('dialog').waitFor({ state: 'detached' });
  assert.equal(await mine.page.getByLabel('Title').inputValue(), 'Film night (with snacks)', 'declining keeps what was typed');
  assert.equal(await mine.page.getByLabel('Capacity (seats)').inputValue(), '60');

  // Saving before choosing is refused in words, and sends nothing; the choice then takes that sentence away.
  await mine.page.getByRole('button', { name: 'Save changes' }).click();
  await mine.page.getByText('Not saved: choose first how to go on from their change, below.').waitFor();
  await conflict.getByRole('button', { name: 'Keep my changes' }).click();
  await mine.page.locator('form .done').getByText('Your changes are kept on top of their version.').waitFor();
  assert.equal(await mine.page.getByText('Not saved: choose first how to go on from their change, below.').isVisible(), false, 'the refusal is gone once chosen');
  assert.equal(await mine.page.getByLabel('Location').inputValue(), 'Cinema 2', 'a field only they changed takes their value');
  assert.equal(await mine.page.getByLabel('Title').inputValue(), 'Film night (with snacks)');
  await mine.page.getByRole('button', { name: 'Save changes' }).click();
  await mine.page.getByRole('heading', { level: 1, name: 'Film night (with snacks)', exact: true }).waitFor();
  const saved = await stored(id);
  assert.deepEqual([saved['title'], saved['location'], saved['capacity']], ['Film night (with snacks)', 'Cinema 2', 60], 'mine on top of theirs');
  assert.deepEqual([...theirs.failed, ...mine.failed], [], 'no request failed: a conflict seen live sends no stale save');
  assertClean(browsing);
  await theirs.page.close();
  await mine.page.close();
});

test('"Use their version" discards what was typed only once confirmed, and the form then holds theirs', { skip, timeout: TIMEOUT_MS }, async () => {
  const id = await journey.createEvent({ title: 'Book club', start_time: '2027-03-05T03:00:00Z', end_time: '2027-03-05T04:00:00Z', capacity: 12 });
  const { page, failed } = await organizerTab();
  await openEditor(page, id);
  await page.getByLabel('Capacity (seats)').fill('20');
  assert.equal((await journey.api('PUT', `/events/${id}`, journey.keys.organizer, { title: 'Book club: Dune', end_time: '2027-03-05T04:30:00Z' })).status, 200);
  const conflict = page.locator('section.conflict');
  await conflict.getByRole('cell', { name: 'Book club: Dune' }).waitFor();
  // A time they changed reads as the form's times do, in the campus zone.
  await conflict.getByRole('cell', { name: '4 Mar 2027, 20:30' }).waitFor();
  await conflict.getByRole('button', { name: 'Use their version' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Discard my changes' }).click();
  await page.locator('dialog').waitFor({ state: 'detached' });
  await page.locator('form .done').getByText('The form now shows their version').waitFor();
  assert.deepEqual([await page.getByLabel('Title').inputValue(), await page.getByLabel('Ends').inputValue(), await page.getByLabel('Capacity (seats)').inputValue()], ['Book club: Dune', '2027-03-04T20:30', '12']);
  assert.equal(await conflict.count(), 0);
  assert.deepEqual(failed, []);
  assertClean(browsing);
  await page.close();
});

test('a refused save (412) stops at the conflict screen: saving again sends nothing; "Keep my changes" saves with the new ETag', { skip, timeout: TIMEOUT_MS }, async () => {
  const id = await journey.createEvent({ title: 'Robotics demo', start_time: '2027-03-06T18:00:00Z', end_time: '2027-03-06T20:00:00Z', description: 'Bring a laptop.' });
  // This tab hears nothing from the change feed: only the 412 tells.
  const { page, failed, writes } = await organizerTab(true);
  await openEditor(page, id, false);
  await page.getByLabel('Title').fill('Robotics demo and workshop');
  await page.getByLabel('Location').fill('Lab 3');
  assert.equal((await journey.api('PUT', `/events/${id}`, journey.keys.organizer, { description: 'Bring a laptop and a charger.', location: 'Lab 4' })).status, 200);
  await page.getByRole('button', { name: 'Save changes' }).click();
  const conflict = page.locator('section.conflict');
  await conflict.getByText('Your changes were not saved').waitFor();
  await page.waitForFunction(() => document.activeElement?.classList.contains('conflict') === true);
  assert.deepEqual(writes, [`PUT /events/${id}`]);

  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText('Not saved: choose first').waitFor();
  assert.deepEqual(writes, [`PUT /events/${id}`], 'a known conflict is not sent again');
  assert.deepEqual(await axeViolations(page), [], 'axe finds nothing of any impact on the conflict screen after a refusal');

  await conflict.getByRole('button', { name: 'Keep my changes' }).click();
  await page.getByRole('heading', { level: 1, name: 'Robotics demo and workshop', exact: true }).waitFor();
  const saved = await stored(id);
  assert.deepEqual([saved['title'], saved['location'], saved['description']], ['Robotics demo and workshop', 'Lab 3', 'Bring a laptop and a charger.']);
  assert.deepEqual(failed.map((line) => line.slice(0, 7)), ['412 PUT'], 'the one refusal, and no other');
  assertClean(browsing);
  await page.close();
});

test('the series form: a refused save (412) shows the conflict screen too, and "Keep my changes" sends mine on theirs', { skip, timeout: TIMEOUT_MS }, async () => {
  const created = await journey.api('POST', '/series', journey.keys.organizer, {
    title: 'Weekly seminar', description: '', category: 'academic', location: 'Room 1', capacity: 20,
    time_zone: CAMPUS, recurrence: 'FREQ=WEEKLY;COUNT=3', start_time: '2027-04-06T17:00:00Z', end_time: '2027-04-06T18:00:00Z',
  });
  assert.equal(created.status, 201, await created.clone().text());
  const { id } = (await created.json()) as { id: string };
  const { page, failed } = await organizerTab();
  await page.goto(`${journey.url}/console/#/series/${id}/edit`);
  await page.getByLabel('Title').fill('Weekly seminar on compilers');
  assert.equal((await journey.api('PUT', `/series/${id}`, journey.keys.organizer, { location: 'Room 2' })).status, 200);
  await page.getByRole('button', { name: 'Save all future occurrences' }).click();
  const conflict = page.locator('section.conflict');
  await conflict.getByRole('heading', { level: 2, name: 'Someone else changed this series' }).waitFor();
  await conflict.getByRole('cell', { name: 'Room 2' }).waitFor();
  await conflict.getByRole('button', { name: 'Keep my changes' }).click();
  await page.getByRole('heading', { level: 1, name: 'Weekly seminar on compilers', exact: true }).waitFor();
  const saved = (await (await journey.api('GET', `/series/${id}`, journey.keys.organizer)).json()) as Record<string, unknown>;
  assert.deepEqual([saved['title'], saved['location']], ['Weekly seminar on compilers', 'Room 2']);
  assert.deepEqual(failed.map((line) => line.slice(0, 7)), ['412 PUT']);
  assertClean(browsing);
  await page.close();
});

test('the series form: the conflict screen compares the repeat rule too, and "Keep my changes" keeps theirs or mine as for any field', { skip, timeout: TIMEOUT_MS }, async () => {
  const created = await journey.api('POST', '/series', journey.keys.organizer, {
    title: 'Reading circle', description: '', category: 'cultural', location: 'Library', capacity: 12,
    time_zone: CAMPUS, recurrence: 'FREQ=WEEKLY;BYDAY=TU;COUNT=3', start_time: '2027-04-13T17:00:00Z', end_time: '2027-04-13T18:00:00Z',
  });
  assert.equal(created.status, 201, await created.clone().text());
  const { id } = (await created.json()) as { id: string };
  const rule = async (): Promise<string> => ((await (await journey.api('GET', `/series/${id}`, journey.keys.organizer)).json()) as { recurrence: string }).recurrence;
  const { page, failed } = await organizerTab();
  const conflict = page.locator('section.conflict');
  const repeatsRow = conflict.getByRole('row', { name: /^Repeats/ });

  // They make it five meetings; I rename it: their schedule is shown, and kept.
  await page.goto(`${journey.url}/console/#/series/${id}/edit`);
  await page.getByLabel('Title').fill('Reading circle: poetry');
  assert.equal((await journey.api('PUT', `/series/${id}`, journey.keys.organizer, { recurrence: 'FREQ=WEEKLY;BYDAY=TU;COUNT=5' })).status, 200);
  await page.getByRole('button', { name: 'Save all future occurrences' }).click();
  await conflict.getByRole('heading', { level: 2, name: 'Someone else changed this series' }).waitFor();
  await repeatsRow.getByRole('cell', { name: 'Every week on Tuesday, 5 times' }).waitFor();
  await repeatsRow.getByRole('cell', { name: 'You did not change it: theirs is kept.' }).waitFor();
  await checkScreen(page, 'series-conflict-repeats');
  await conflict.getByRole('button', { name: 'Keep my changes' }).click();
  await page.getByRole('heading', { level: 1, name: 'Reading circle: poetry', exact: true }).waitFor();
  assert.equal(await rule(), 'FREQ=WEEKLY;BYDAY=TU;COUNT=5', 'their schedule kept');

  // They make it six; I make it four: both shown, and mine saved on theirs.
  await page.getByRole('link', { name: 'Edit all future occurrences' }).click();
  await page.getByLabel('Number of occurrences').fill('4');
  await page.getByText('4 occurrences, the last on').waitFor();
  assert.equal((await journey.api('PUT', `/series/${id}`, journey.keys.organizer, { recurrence: 'FREQ=WEEKLY;BYDAY=TU;COUNT=6' })).status, 200);
  await page.getByRole('button', { name: 'Save all future occurrences' }).click();
  await repeatsRow.getByRole('cell', { name: 'Every week on Tuesday, 6 times' }).waitFor();
  await repeatsRow.getByRole('cell', { name: 'Every week on Tuesday, 4 times' }).waitFor();
  await conflict.getByRole('button', { name: 'Keep my changes' }).click();
  await page.getByText('4 occurrences.').waitFor();
  assert.equal(await rule(), 'FREQ=WEEKLY;BYDAY=TU;COUNT=4', 'my schedule on theirs');
  assert.deepEqual(failed.map((line) => line.slice(0, 7)), ['412 PUT', '412 PUT']);
  assertClean(browsing);
  await page.close();
});

test('a message belongs to its screen: "Saved" goes with the person to the event, and is gone on the next event', { skip, timeout: TIMEOUT_MS }, async () => {
  const first = await journey.createEvent({ title: 'Chess club', start_time: '2027-03-07T18:00:00Z', end_time: '2027-03-07T20:00:00Z' });
  const second = await journey.createEvent({ title: 'Go club', start_time: '2027-03-08T18:00:00Z', end_time: '2027-03-08T20:00:00Z' });
  const { page, failed } = await organizerTab();
  await openEditor(page, first);
  await page.getByLabel('Location').fill('Hall B');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('heading', { level: 1, name: 'Chess club', exact: true }).waitFor();
  const status = page.locator('#status');
  assert.equal(await status.textContent(), 'Saved “Chess club”.', 'the save is said on the page it led to');
  await page.goto(`${journey.url}/console/#/events/${second}`);
  await page.getByRole('heading', { level: 1, name: 'Go club', exact: true }).waitFor();
  assert.doesNotMatch((await page.locator('main, footer').allTextContents()).join(' '), /Saved/);
  assert.equal(await status.textContent(), '');
  assert.deepEqual(failed, []);
  await page.close();
});

test('a registration cancelled from the page stays in its row, marked cancelled, until the page is left', { skip, timeout: TIMEOUT_MS }, async () => {
  const id = await journey.createEvent({ title: 'Pottery', start_time: '2027-03-09T18:00:00Z', end_time: '2027-03-09T20:00:00Z', capacity: 1 });
  for (const [name, email] of [['Ann', 'ann@campus.edu'], ['Ben', 'ben@campus.edu']]) {
    assert.equal((await journey.api('POST', `/events/${id}/registrations`, journey.keys.reader, { name, email })).status, 201);
  }
  const { page, failed } = await organizerTab();
  await page.goto(`${journey.url}/console/#/events/${id}`);
  const rows = page.locator('.registrations tbody tr');
  await rows.filter({ hasText: 'Ben' }).filter({ hasText: 'waitlisted' }).waitFor();
  await page.getByRole('button', { name: 'Cancel registration of Ann' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel registration' }).click();
  await rows.filter({ hasText: 'Ben' }).filter({ hasText: 'confirmed' }).waitFor();
  assert.deepEqual(await rows.evaluateAll((trs) => trs.map((tr) => tr.querySelector('td')?.textContent)), ['Ann', 'Ben'], 'Ann keeps her row, in order');
  assert.match((await rows.first().textContent()) ?? '', /cancelled \(was confirmed/);
  await page.getByText('Cancelled from this page: 1').waitFor();
  await page.goto(`${journey.url}/console/#/events`);
  await page.goto(`${journey.url}/console/#/events/${id}`);
  await rows.filter({ hasText: 'Ben' }).waitFor();
  assert.equal(await rows.count(), 1, 'gone once the page was left: the API forgets cancelled registrations');
  assert.deepEqual(failed, []);
  assertClean(browsing);
  await page.close();
});

test('a registration cancelled from the page keeps its row when the event is cancelled elsewhere, and restored, while the page is open', { skip, timeout: TIMEOUT_MS }, async () => {
  const id = await journey.createEvent({ title: 'Weaving', start_time: '2027-03-11T18:00:00Z', end_time: '2027-03-11T20:00:00Z', capacity: 1 });
  for (const [name, email] of [['Ann', 'ann@campus.edu'], ['Ben', 'ben@campus.edu']]) {
    assert.equal((await journey.api('POST', `/events/${id}/registrations`, journey.keys.reader, { name, email })).status, 201);
  }
  const { page, failed } = await organizerTab();
  await page.goto(`${journey.url}/console/#/events/${id}`);
  await page.locator('#live[data-state="live"]').waitFor();
  const rows = page.locator('.registrations tbody tr');
  await rows.filter({ hasText: 'Ben' }).filter({ hasText: 'waitlisted' }).waitFor();
  await page.getByRole('button', { name: 'Cancel registration of Ann' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel registration' }).click();
  await rows.filter({ hasText: 'Ben' }).filter({ hasText: 'confirmed' }).waitFor();
  await page.getByText('Cancelled from this page: 1').waitFor();
  // Someone else (an admin, another program) calls the event off, then restores it: the page follows both live.
  const cancelled = await journey.api('PUT', `/events/${id}`, journey.keys.admin, { status: 'cancelled', cancellation_reason: 'The loom broke.' });
  assert.equal(cancelled.status, 200, await cancelled.text());
  await page.getByText('This event is cancelled: it takes no new registrations.').waitFor();
  await rows.filter({ hasText: 'Ben' }).filter({ hasText: 'confirmed' }).waitFor();
  assert.deepEqual(await rows.evaluateAll((trs) => trs.map((tr) => tr.querySelector('td')?.textContent)), ['Ann', 'Ben'], 'Ann keeps her row after the status changed');
  assert.match((await rows.first().textContent()) ?? '', /cancelled \(was confirmed/);
  await page.getByText('Cancelled from this page: 1').waitFor();
  const restored = await journey.api('PUT', `/events/${id}`, journey.keys.admin, { status: 'published' });
  assert.equal(restored.status, 200, await restored.text());
  await page.getByRole('button', { name: 'Register' }).waitFor();
  await rows.filter({ hasText: 'Ben' }).waitFor();
  assert.deepEqual(await rows.evaluateAll((trs) => trs.map((tr) => tr.querySelector('td')?.textContent)), ['Ann', 'Ben'], 'and after it changed back');
  await page.getByText('Cancelled from this page: 1').waitFor();
  await checkScreen(page, 'attendees-after-cancel');
  assert.deepEqual(failed, []);
  assertClean(browsing);
  await page.close();
});

test('the result of registering someone is in view under the button, and in a live region, on a long attendee list', { skip, timeout: TIMEOUT_MS }, async () => {
  const id = await journey.createEvent({ title: 'Open lecture', start_time: '2027-03-10T18:00:00Z', end_time: '2027-03-10T20:00:00Z', capacity: 100 });
  for (let index = 0; index < 30; index++) {
    assert.equal((await journey.api('POST', `/events/${id}/registrations`, journey.keys.reader, { name: `Student ${index}`, email: `student${index}@campus.edu` })).status, 201);
  }
  const { page, failed } = await organizerTab();
  await page.goto(`${journey.url}/console/#/events/${id}`);
  await page.getByText('30 registrations.').waitFor();
  const live = page.locator('.registrations form [role="status"]');
  assert.equal(await live.count(), 1, 'the live region is there before anything is said in it');
  await page.getByLabel('Name', { exact: true }).fill('Zoe Late');
  await page.getByLabel('E-mail', { exact: true }).fill('zoe@campus.edu');
  await page.getByRole('button', { name: 'Register', exact: true }).click();
  await live.getByText('Zoe Late is registered: confirmed, with a seat.').waitFor();
  await page.getByText('31 registrations.').waitFor();
  // The list grew above the form; the result (its sentence, down to the link's copy button) is still in the window.
  const copy = page.getByRole('button', { name: 'Copy link' });
  await copy.waitFor();
  const inView = async (): Promise<boolean> => {
    const [top, bottom] = [await live.boundingBox(), await copy.boundingBox()];
    return top !== null && bottom !== null && top.y >= 0 && bottom.y + bottom.height <= page.viewportSize()!.height + 1; // scrollIntoView aligns to fractional pixels (800.06 of 800)
  };
  for (let tries = 0; !(await inView()) && tries < 20; tries++) await page.evaluate(() => new Promise(requestAnimationFrame));
  assert.ok(await inView(), `the result is in the window (sentence at ${(await live.boundingBox())?.y} px, copy button at ${(await copy.boundingBox())?.y} px of ${page.viewportSize()!.height})`);
  assert.deepEqual(failed, []);
  assertClean(browsing);
  await page.close();
});

test('the console checks what it can before sending: no create or save with the end before the start goes out', { skip, timeout: TIMEOUT_MS }, async () => {
  const { page, failed, writes } = await organizerTab();
  await page.goto(`${journey.url}/console/#/new`);
  await page.getByLabel('Title').fill('Late talk');
  await page.getByLabel('Category').selectOption('academic');
  await page.getByLabel('Location').fill('Room 9');
  await page.getByLabel('Starts').fill('2027-03-11T18:00');
  await page.getByLabel('Ends').fill('2027-03-11T17:00');
  await page.getByLabel('Capacity (seats)').fill('0');
  await page.getByRole('button', { name: 'Create event' }).click();
  await page.getByText('Some fields need attention').waitFor();
  assert.equal(await fieldMessage(page, 'Ends'), 'Ends must be after Starts (18:00).', 'the sentence the server\'s 400 would bring');
  assert.equal(await fieldMessage(page, 'Capacity (seats)'), 'Capacity (seats) must be from 1 to 100000, not 0.');
  assert.deepEqual(writes, [], 'nothing was sent');
  await page.getByLabel('Ends').fill('2027-03-11T19:00');
  await page.getByLabel('Capacity (seats)').fill('25');
  await page.getByRole('button', { name: 'Create event' }).click();
  await page.getByRole('heading', { level: 1, name: 'Late talk', exact: true }).waitFor();
  const id = new URL(page.url()).hash.split('/')[2]!;

  await openEditor(page, id);
  await page.getByLabel('Starts').fill('2027-03-11T20:00');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText('Some fields need attention').waitFor();
  // An edit sends only what changed (the start here), so the field named is the one the person changed, as the server would.
  assert.equal(await fieldMessage(page, 'Starts'), 'Starts must be before Ends (19:00).');
  assert.deepEqual(writes, ['POST /events'], 'only the good create went out');
  assert.deepEqual(failed, [], 'no request failed');
  assertClean(browsing);
  await page.close();
});
