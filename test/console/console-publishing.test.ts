/// <reference lib="dom" />
// Publishing in the console (API.md §14), under `--approval required`: an organizer submits and an admin approves from
// the queue the header counts; a rejection's note reaches the organizer, who fixes and resubmits; a cancelled event
// is marked in words in the list, the month and its page, then restored. Real Chromium against `node dist/server.js`;
// each new screen is checked with axe-core at 1280 and 360 px.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { checkScreen, openBrowser, skipWithoutChromium, type Browsing } from './browser.js';
import { assertClean, fieldMessage, signIn, signedInTab, startJourneyServer, type JourneyServer, type Role } from './journey-server.js';

const skip = skipWithoutChromium();
const TIMEOUT_MS = 180_000;

let journey: JourneyServer;
let browsing: Browsing;

before(async () => {
  if (skip !== false) return;
  journey = await startJourneyServer(['--approval', 'required']);
  browsing = await openBrowser(journey.url, { timezoneId: 'UTC' });
});

after(async () => {
  if (skip !== false) return;
  await browsing?.close();
  await journey?.stop();
});

/** A new tab signed in as `role` (no zone chosen yet, its own key); the caller closes it. */
const tab = (role: Role): Promise<Page> => signedInTab(browsing, journey, role);

/** An event as `role` sees it through the API (undefined when it is a 404 to them). */
async function read(id: string, role: Role): Promise<{ status?: string; review_note?: string; cancellation_reason?: string; location: string } | undefined> {
  const response = await journey.api('GET', `/events/${id}`, journey.keys[role]);
  if (response.status === 404) return undefined;
  assert.equal(response.status, 200);
  return (await response.json()) as { status?: string; location: string };
}

async function fillEvent(page: Page, title: string, day: string): Promise<void> {
  await page.goto(`${journey.url}/console/#/new`);
  await page.getByLabel('Title').fill(title);
  await page.getByLabel('Category').selectOption('cultural');
  await page.getByLabel('Location').fill('Main hall');
  await page.getByLabel('Starts').fill(`${day}T18:00`);
  await page.getByLabel('Ends').fill(`${day}T20:00`);
  await page.getByLabel('Capacity (seats)').fill('200');
}

const idOf = (page: Page): string => new URL(page.url()).hash.split('/')[2]!;

/** Waits for the sentence a move leaves on the screen (the status line speaks it too, out of sight). */
const outcome = (page: Page, sentence: string): Promise<void> => page.locator('#content p.done').filter({ hasText: sentence }).waitFor();

test('submit → approve: a draft submitted from My drafts waits in the queue the header counts; approved, a reader sees it', { skip, timeout: TIMEOUT_MS }, async () => {
  const organizer = await tab('organizer');
  const admin = await tab('admin');
  try {
    await fillEvent(organizer, 'Spring concert', '2027-06-10');
    await organizer.getByRole('button', { name: 'Save as draft' }).click();
    await organizer.getByRole('heading', { level: 1, name: 'Spring concert' }).waitFor();
    const id = idOf(organizer);
    await organizer.getByText('Draft. Only its organizer and administrators see this event.').waitFor();
    assert.equal(await organizer.getByRole('button', { name: 'Approve' }).count(), 0, 'an organizer is not offered Approve');
    assert.equal(await organizer.getByRole('link', { name: /Approval queue/ }).count(), 0, 'nor the queue');

    await organizer.getByRole('link', { name: 'My drafts' }).click();
    const row = organizer.getByRole('row', { name: /Spring concert/ });
    await row.getByText('Draft', { exact: true }).waitFor();
    await checkScreen(organizer, 'my-drafts');
    await row.getByRole('button', { name: 'Submit for approval Spring concert' }).click();
    await outcome(organizer, '“Spring concert” is submitted for approval: an administrator reviews it before others see it.');
    assert.equal((await read(id, 'organizer'))?.status, 'pending');
    assert.equal(await read(id, 'reader'), undefined, 'a reader cannot see it yet');

    // The admin's header counts it; the queue is one click (or Enter) away.
    await admin.goto(`${journey.url}/console/#/events`);
    const queue = admin.getByRole('link', { name: 'Approval queue 1 waiting' });
    await queue.waitFor();
    await queue.click();
    await admin.getByRole('heading', { level: 1, name: 'Approval queue' }).waitFor();
    const waiting = admin.getByRole('row', { name: /Spring concert/ });
    await waiting.getByText('Olivia Organizer (olivia@campus.edu)').waitFor();
    await checkScreen(admin, 'approval-queue');
    await waiting.getByRole('button', { name: 'Approve Spring concert' }).click();
    await outcome(admin, '“Spring concert” is approved: everyone can see it now.');
    await admin.getByText('Nothing waits for approval.').waitFor();
    await admin.getByRole('link', { name: 'Approval queue 0 waiting' }).waitFor();

    const reader = await tab('reader');
    try {
      await reader.getByRole('link', { name: 'Spring concert' }).waitFor();
      assert.equal(await reader.getByRole('link', { name: 'My drafts' }).count(), 0, 'a reader has no drafts to see');
    } finally {
      await reader.close();
    }
    assert.equal((await read(id, 'reader'))?.status, undefined, 'published: the field is left out');
    assertClean(browsing);
  } finally {
    await organizer.close();
    await admin.close();
  }
});

test('submit → reject → fix → resubmit: the reason is required, and the reviewer\'s note reaches the organizer', { skip, timeout: TIMEOUT_MS }, async () => {
  const organizer = await tab('organizer');
  const admin = await tab('admin');
  try {
    await fillEvent(organizer, 'Bake sale', '2027-06-12');
    // Under approval, the form's main button submits at once.
    await organizer.getByRole('button', { name: 'Submit for approval' }).click();
    await organizer.getByRole('heading', { level: 1, name: 'Bake sale' }).waitFor();
    const id = idOf(organizer);
    await organizer.getByText('Pending approval.', { exact: false }).waitFor();
    assert.equal(await organizer.getByRole('button', { name: 'Withdraw' }).count(), 1, 'its organizer may withdraw it');
    assert.equal(await organizer.getByRole('button', { name: 'Reject' }).count(), 0);

    await admin.goto(`${journey.url}/console/#/queue`);
    const rejections: string[] = [];
    admin.on('request', (request) => {
      if (request.url().endsWith('/reject')) rejections.push(request.method());
    });
    await admin.getByRole('button', { name: 'Reject Bake sale' }).click();
    const dialog = admin.getByRole('dialog');
    await dialog.waitFor();
    assert.equal(await admin.evaluate(() => document.activeElement?.tagName), 'INPUT', 'the focus is in the reason, a line of text (a line break is refused by the API)');
    // No reason: refused in the dialog, in the API's words under the field, and not sent. By keyboard: Tab past "Keep it" to Reject.
    await admin.keyboard.press('Tab');
    await admin.keyboard.press('Tab');
    assert.equal(await admin.evaluate(() => document.activeElement?.textContent), 'Reject');
    await admin.keyboard.press('Enter');
    await dialog.getByText('Nothing was changed: see the message under the reason.').waitFor();
    assert.notEqual(await fieldMessage(admin, 'Reason'), '', 'the problem is shown next to the reason');
    assert.equal(await admin.getByLabel('Reason', { exact: true }).getAttribute('aria-invalid'), 'true');
    assert.equal(await fieldMessage(admin, 'Reason'), 'Reason cannot be empty or only spaces.');
    assert.equal((await read(id, 'admin'))?.status, 'pending', 'nothing was written');
    assert.deepEqual(rejections, [], 'an empty reason is not sent');
    await checkScreen(admin, 'reject-dialog');
    // Enter in the reason sends it, as in any one-line field.
    await admin.getByLabel('Reason', { exact: true }).fill('Say which room of the main hall.');
    await admin.getByLabel('Reason', { exact: true }).press('Enter');
    await outcome(admin, '“Bake sale” is sent back to its organizer with your note.');
    assert.deepEqual(rejections, ['POST']);
    // The focus is on what was done, as after an approval: a keyboard goes on from there, not from the top.
    await admin.waitForFunction(() => document.activeElement?.classList.contains('done') === true, undefined, { timeout: 5_000 });

    await organizer.goto(`${journey.url}/console/#/drafts`);
    const row = organizer.getByRole('row', { name: /Bake sale/ });
    await row.getByText('Returned for changes').waitFor();
    await row.getByText("Reviewer's note: Say which room of the main hall.").waitFor();
    await row.getByRole('link', { name: 'Bake sale' }).click();
    await organizer.getByText('Say which room of the main hall.').waitFor();
    await checkScreen(organizer, 'event-returned');
    await organizer.getByRole('link', { name: 'Edit event' }).click();
    // The reviewer's note stays in sight while the draft is changed as it asks.
    await organizer.locator('form .status-notice').getByText('Say which room of the main hall.').waitFor();
    await organizer.getByLabel('Location').fill('Main hall, room 2');
    await organizer.getByRole('button', { name: 'Save changes' }).click();
    await organizer.getByRole('link', { name: 'Edit event' }).waitFor();
    await organizer.getByText('Draft. Only its organizer and administrators see this event.').waitFor();
    assert.equal((await read(id, 'organizer'))?.review_note, undefined, 'the note is gone with the next change');
    await organizer.getByRole('button', { name: 'Submit for approval' }).click();
    await outcome(organizer, '“Bake sale” is submitted for approval: an administrator reviews it before others see it.');
    assert.deepEqual(await read(id, 'organizer').then((event) => [event?.status, event?.location]), ['pending', 'Main hall, room 2']);
    assertClean(browsing);
  } finally {
    await organizer.close();
    await admin.close();
  }
});

test('a returned draft is fixed and sent back in one step: "Save and submit for approval" saves the edit and submits it with one request', { skip, timeout: TIMEOUT_MS }, async () => {
  const organizer = await tab('organizer');
  try {
    await fillEvent(organizer, 'Poetry night', '2027-06-14');
    await organizer.getByRole('button', { name: 'Submit for approval' }).click();
    await organizer.getByRole('heading', { level: 1, name: 'Poetry night' }).waitFor();
    const id = idOf(organizer);
    const rejected = await journey.api('POST', `/events/${id}/reject`, journey.keys.admin, { reason: 'Which room?' });
    assert.equal(rejected.status, 200);

    await organizer.goto(`${journey.url}/console/#/events/${id}/edit`);
    await organizer.locator('form .status-notice').getByText('Which room?').waitFor();
    const puts: unknown[] = [];
    organizer.on('request', (request) => {
      if (request.method() === 'PUT') puts.push(request.postDataJSON());
    });
    await organizer.getByLabel('Location').fill('Main hall, room 3');
    await organizer.getByRole('button', { name: 'Save and submit for approval' }).click();
    await outcome(organizer, 'Saved. “Poetry night” is submitted for approval: an administrator reviews it before others see it.');
    assert.deepEqual(puts, [{ location: 'Main hall, room 3', status: 'published' }], 'one request: the change and the move (the server makes it pending)');
    assert.deepEqual(await read(id, 'organizer').then((event) => [event?.status, event?.location, event?.review_note]), ['pending', 'Main hall, room 3', undefined]);
    // A pending event's form has no such button: a PUT keeps it pending.
    await organizer.goto(`${journey.url}/console/#/events/${id}/edit`);
    await organizer.getByRole('button', { name: 'Save changes' }).waitFor();
    assert.equal(await organizer.getByRole('button', { name: /^Save and/ }).count(), 0);
    assertClean(browsing);
  } finally {
    await organizer.close();
  }
});

test('"Save and submit" on a draft submitted meanwhile from another tab: the edit is saved on the pending event, not refused for a move it no longer needs', { skip, timeout: TIMEOUT_MS }, async () => {
  const organizer = await tab('organizer');
  try {
    await fillEvent(organizer, 'Open mic', '2027-06-16');
    await organizer.getByRole('button', { name: 'Save as draft' }).click();
    await organizer.getByRole('heading', { level: 1, name: 'Open mic' }).waitFor();
    const id = idOf(organizer);
    await organizer.goto(`${journey.url}/console/#/events/${id}/edit`);
    await organizer.getByRole('button', { name: 'Save and submit for approval' }).waitFor();
    // Another tab submits it: the form's ETag is now stale, and the event pending.
    const current = await journey.api('GET', `/events/${id}`, journey.keys.organizer);
    assert.equal((await journey.api('PUT', `/events/${id}`, journey.keys.organizer, { status: 'published' }, { 'If-Match': current.headers.get('etag')! })).status, 200);
    const puts: unknown[] = [];
    organizer.on('request', (request) => {
      if (request.method() === 'PUT') puts.push(request.postDataJSON());
    });
    await organizer.getByLabel('Location').fill('Main hall, stage');
    await organizer.getByRole('button', { name: 'Save and submit for approval' }).click();
    await outcome(organizer, 'Saved “Open mic”.');
    assert.deepEqual(puts, [{ location: 'Main hall, stage', status: 'published' }, { location: 'Main hall, stage' }], 'refused once (412), then sent again as a plain save');
    assert.deepEqual(await read(id, 'organizer').then((event) => [event?.status, event?.location]), ['pending', 'Main hall, stage']);
    assertClean(browsing);
  } finally {
    await organizer.close();
  }
});

test('cancel with a reason: "Cancelled" in words in the list, the month and the event page; restored through approval', { skip, timeout: TIMEOUT_MS }, async () => {
  // An admin's event is published at once, even under approval.
  const created = await journey.api('POST', '/events', journey.keys.admin, {
    title: 'Open-air cinema',
    category: 'social',
    location: 'The lawn',
    start_time: '2027-07-14T20:00:00Z',
    end_time: '2027-07-14T22:30:00Z',
    capacity: 100,
    organizer: { name: 'Olivia Organizer', email: 'olivia@campus.edu' },
  });
  assert.equal(created.status, 201);
  const { id } = (await created.json()) as { id: string };
  // Someone registered before it was called off: the page of their registration must say so.
  const registered = await journey.api('POST', `/events/${id}/registrations`, journey.keys.reader, { name: 'Pat Poet', email: 'pat@campus.edu' });
  assert.equal(registered.status, 201);
  const registrationId = ((await registered.json()) as { id: string }).id;
  const organizer = await tab('organizer');
  const reader = await tab('reader');
  try {
    await organizer.goto(`${journey.url}/console/#/events/${id}`);
    await organizer.getByRole('button', { name: 'Cancel event' }).click();
    const dialog = organizer.getByRole('dialog');
    await dialog.getByText('stays in lists and calendars, marked as cancelled').waitFor();
    await dialog.getByRole('button', { name: 'Keep it' }).click();
    assert.equal((await read(id, 'reader'))?.status, undefined, 'keeping it keeps it published');
    // Back on the button that asked (it was disabled while the question was open).
    await organizer.waitForFunction(() => document.activeElement?.textContent === 'Cancel event');
    await organizer.getByRole('button', { name: 'Cancel event' }).click();
    await dialog.getByLabel('Reason', { exact: true }).fill('Storm warning for the evening.');
    await dialog.getByRole('button', { name: 'Cancel event' }).click();
    await organizer.getByText('Cancelled. This event stays in lists and calendars').waitFor();
    await organizer.getByText('This event is cancelled: it takes no new registrations.').waitFor();
    assert.deepEqual(await read(id, 'reader').then((event) => [event?.status, event?.cancellation_reason]), ['cancelled', 'Storm warning for the evening.']);

    await reader.goto(`${journey.url}/console/#/events`);
    const row = reader.getByRole('row', { name: /Open-air cinema/ });
    await row.getByText('Cancelled', { exact: true }).waitFor();
    await row.getByText('Reason: Storm warning for the evening.').waitFor();
    await checkScreen(reader, 'events-cancelled');
    await reader.goto(`${journey.url}/console/#/month?month=2027-07`);
    const day = reader.locator('li', { has: reader.getByRole('link', { name: /Open-air cinema/ }) });
    await day.getByText('Cancelled', { exact: true }).waitFor();
    await checkScreen(reader, 'month-cancelled');
    await day.getByRole('link').click();
    await reader.getByText('Reason: Storm warning for the evening.').waitFor();
    await reader.getByText('Cancelled.', { exact: true }).waitFor();
    for (const name of ['Restore', 'Restore and submit for approval', 'Cancel event', 'Submit for approval', 'Approve', 'Register']) {
      assert.equal(await reader.getByRole('button', { name, exact: true }).count(), 0, `a reader is not offered ${name}`);
    }
    await checkScreen(reader, 'event-cancelled');
    await reader.goto(`${journey.url}/console/#/events/${id}/registrations/${registrationId}`);
    await reader.getByText('Confirmed: they have a seat.').waitFor();
    await reader.getByText('Cancelled.', { exact: true }).waitFor();
    await reader.getByText('Reason: Storm warning for the evening.').waitFor();
    await reader.getByRole('definition').filter({ hasText: 'Open-air cinema' }).getByText('Cancelled', { exact: true }).waitFor();
    // An event that has ended offers no registration form either: it says why, as the API's 409 would.
    const over = await journey.api('POST', '/events', journey.keys.admin, { title: 'Last year\'s fair', category: 'social', location: 'The lawn', start_time: '2025-06-01T10:00:00Z', end_time: '2025-06-01T16:00:00Z', capacity: 50 });
    assert.equal(over.status, 201);
    await reader.goto(`${journey.url}/console/#/events/${((await over.json()) as { id: string }).id}`);
    await reader.getByText('This event has ended: it takes no more registrations.').waitFor();
    assert.equal(await reader.getByRole('button', { name: 'Register', exact: true }).count(), 0, 'no Register button on an event that has ended');

    // Restoring, an organizer's event goes through approval again: the button says so, and the console what came back.
    await organizer.getByRole('button', { name: 'Restore and submit for approval', exact: true }).click();
    await outcome(organizer, '“Open-air cinema” is submitted for approval: an administrator reviews it before others see it.');
    await organizer.getByText('Pending approval.', { exact: false }).waitFor();
    assert.equal((await read(id, 'organizer'))?.status, 'pending');
    assert.equal((await read(id, 'organizer'))?.cancellation_reason, undefined, 'restoring clears the reason');
    // A draft that has ended will never take registrations, published or not: the page does not promise them.
    const overDraft = await journey.api('POST', '/events', journey.keys.organizer, { title: 'Forgotten fair', category: 'social', location: 'The lawn', start_time: '2025-06-01T10:00:00Z', end_time: '2025-06-01T16:00:00Z', capacity: 50, status: 'draft' });
    assert.equal(overDraft.status, 201);
    await organizer.goto(`${journey.url}/console/#/events/${((await overDraft.json()) as { id: string }).id}`);
    await organizer.getByText('This event has ended: it takes no more registrations.').waitFor();
    assert.equal(await organizer.getByText('Registrations open once the event is published.').count(), 0);
    assertClean(browsing);
  } finally {
    await organizer.close();
    await reader.close();
  }
});

test('a cancellation made elsewhere while the list is open: the row stays, marked cancelled with its reason, as a reload shows it', { skip, timeout: TIMEOUT_MS }, async () => {
  const created = await journey.api('POST', '/events', journey.keys.admin, {
    title: 'Chess night',
    category: 'social',
    location: 'Games room',
    start_time: '2027-08-02T18:00:00Z',
    end_time: '2027-08-02T21:00:00Z',
    capacity: 40,
    organizer: { name: 'Olivia Organizer', email: 'olivia@campus.edu' },
  });
  assert.equal(created.status, 201);
  const { id } = (await created.json()) as { id: string };
  for (const role of ['reader', 'organizer', 'admin'] as const) {
    const page = await tab(role);
    try {
      await page.goto(`${journey.url}/console/#/events`);
      const row = page.getByRole('row', { name: /Chess night/ });
      await row.waitFor();
      await page.locator('#live[data-state="live"]').waitFor();
      assert.equal(await row.getByText('Cancelled', { exact: true }).count(), 0, `${role}: published at first`);
      // Another client (a second program, or the organizer elsewhere) cancels it through the API.
      const cancelled = await journey.api('PUT', `/events/${id}`, journey.keys.organizer, { status: 'cancelled', cancellation_reason: `No room (${role}).` });
      assert.equal(cancelled.status, 200, await cancelled.text());
      await page.getByText('The list now shows a change made elsewhere.').waitFor();
      await row.getByText('Cancelled', { exact: true }).waitFor();
      await row.getByText(`Reason: No room (${role}).`).waitFor();
      const live = await page.locator('#content table').innerText();
      await page.reload();
      await row.getByText('Cancelled', { exact: true }).waitFor();
      assert.equal(await page.locator('#content table').innerText(), live, `${role}: the live update shows what a reload does`);
      // Back to published for the next role: an admin restores directly, even under approval.
      const restored = await journey.api('PUT', `/events/${id}`, journey.keys.admin, { status: 'published' });
      assert.equal(restored.status, 200, await restored.text());
    } finally {
      await page.close();
    }
  }
  assertClean(browsing);
});

test('the approval queue reads itself again each minute: a submission made elsewhere appears without a reload', { skip, timeout: TIMEOUT_MS }, async () => {
  const page = await browsing.context.newPage();
  // The page's timers run on a clock the test moves: a minute passes at once, and only when the test says so.
  await page.clock.install();
  await signIn(page, journey.url, journey.keys.admin);
  await page.goto(`${journey.url}/console/#/queue`);
  await page.getByRole('heading', { level: 1, name: 'Approval queue' }).waitFor();
  const title = 'Submitted while the queue is open';
  await page.getByRole('heading', { name: 'Events waiting' }).waitFor();
  assert.equal(await page.getByRole('link', { name: title }).count(), 0);
  // An organizer's new event waits for approval (API.md §14); it never reaches the change feed.
  const made = await journey.api('POST', '/events', journey.keys.organizer, {
    title, description: '', category: 'social', location: 'Quad', capacity: 10, start_time: '2027-06-01T18:00:00Z', end_time: '2027-06-01T19:00:00Z',
  });
  assert.equal(made.status, 201);
  await page.clock.runFor(59_000);
  await page.waitForTimeout(300);
  assert.equal(await page.getByRole('link', { name: title }).count(), 0, 'not before the minute');
  await page.clock.runFor(2_000);
  await page.getByRole('link', { name: title }).waitFor();
  assertClean(browsing);
  await page.close();
});

test("the header's link to the screen already shown reads it again: an admin on the queue sees a new submission at once", { skip, timeout: TIMEOUT_MS }, async () => {
  const page = await browsing.context.newPage();
  // The minute's timer never fires here: only the click can bring the new row.
  await page.clock.install();
  await signIn(page, journey.url, journey.keys.admin);
  await page.goto(`${journey.url}/console/#/queue`);
  await page.getByRole('heading', { name: 'Events waiting' }).waitFor();
  const title = 'Submitted while the admin looks at the queue';
  const made = await journey.api('POST', '/events', journey.keys.organizer, {
    title, description: '', category: 'social', location: 'Quad', capacity: 10, start_time: '2027-06-03T18:00:00Z', end_time: '2027-06-03T19:00:00Z',
  });
  assert.equal(made.status, 201);
  assert.equal(await page.getByRole('link', { name: title }).count(), 0);
  await page.getByRole('link', { name: /^Approval queue/ }).click();
  await page.getByRole('link', { name: title }).waitFor({ timeout: 5_000 });
  await page.getByRole('link', { name: /^Approval queue \d+ waiting$/ }).filter({ hasText: /[1-9]/ }).waitFor({ timeout: 5_000 });
  assertClean(browsing);
  await page.close();
});

test('an occurrence edited on its own and left a draft when its series was approved: its series page lists it, in words, and says why', { skip, timeout: TIMEOUT_MS }, async () => {
  const title = 'Film club (edited alone)';
  const made = await journey.api('POST', '/series', journey.keys.organizer, {
    title, description: '', category: 'social', location: 'Room 5', capacity: 12, time_zone: 'UTC', status: 'draft',
    start_time: '2027-08-02T18:00:00Z', end_time: '2027-08-02T20:00:00Z', recurrence: 'FREQ=DAILY;COUNT=3',
  });
  assert.equal(made.status, 201);
  const series = (await made.json()) as { id: string };
  const listed = await journey.api('GET', `/events?series_id=${series.id}&status=draft`, journey.keys.organizer);
  const [first] = ((await listed.json()) as { events: { id: string }[] }).events;
  // One occurrence edited on its own, then the series submitted and approved: the edited one stays a draft (API.md §14).
  assert.equal((await journey.api('PUT', `/events/${first!.id}`, journey.keys.organizer, { location: 'Room 6' })).status, 200);
  assert.equal((await journey.api('PUT', `/series/${series.id}`, journey.keys.organizer, { status: 'published' })).status, 200);
  assert.equal((await journey.api('POST', `/series/${series.id}/approve`, journey.keys.admin)).status, 200);
  assert.equal((await read(first!.id, 'organizer'))?.status, 'draft');

  const organizer = await tab('organizer');
  try {
    await organizer.goto(`${journey.url}/console/#/series/${series.id}`);
    await organizer.getByText('3 occurrences.').waitFor();
    const items = organizer.locator('.occurrence-list li');
    assert.equal(await items.count(), 3);
    assert.equal(await items.filter({ hasText: 'Draft' }).count(), 1, 'the draft occurrence is listed, marked in words');
    await organizer.getByText("The occurrences marked as a draft or pending approval were edited on their own, so the series' moves passed them by").waitFor();
    assertClean(browsing);
  } finally {
    await organizer.close();
  }
  // A reader sees the two public ones, and no such sentence.
  const reader = await tab('reader');
  try {
    await reader.goto(`${journey.url}/console/#/series/${series.id}`);
    await reader.getByText('2 occurrences.').waitFor();
    assert.equal(await reader.getByText('were edited on their own').count(), 0);
  } finally {
    await reader.close();
  }
});

test("the queue's buttons tell a series from its occurrences, and each occurrence from the others, by name", { skip, timeout: TIMEOUT_MS }, async () => {
  const title = 'Chess club (queue names)';
  const made = await journey.api('POST', '/series', journey.keys.organizer, {
    title, description: '', category: 'social', location: 'Room 4', capacity: 12, time_zone: 'UTC',
    start_time: '2027-07-05T18:00:00Z', end_time: '2027-07-05T20:00:00Z', recurrence: 'FREQ=DAILY;COUNT=3',
  });
  assert.equal(made.status, 201);
  const page = await tab('admin');
  try {
    await page.goto(`${journey.url}/console/#/queue`);
    await page.getByRole('heading', { name: 'Events waiting' }).waitFor();
    const approve = page.getByRole('button', { name: new RegExp(`^Approve (series )?${title.replace(/[()]/g, '\\$&')}`) });
    await approve.nth(3).waitFor();
    const names = await approve.evaluateAll((buttons) => buttons.map((button) => button.getAttribute('aria-label') ?? ''));
    assert.equal(names.length, 4, names.join(' | '));
    assert.equal(new Set(names).size, 4, `four different names: ${names.join(' | ')}`);
    assert.equal(names.filter((name) => name === `Approve series ${title}`).length, 1, names.join(' | '));
    // Approved as a series, the sentence does not promise what the series' move passes by.
    await page.getByRole('button', { name: `Approve series ${title}` }).click();
    await outcome(page, `“${title}” is approved: everyone can see its occurrences now, except any edited on its own, which waits for its own approval.`);
    assertClean(browsing);
  } finally {
    await page.close();
  }
});

/** An organizer's event, pending under approval (made through the API), and an admin's tab on the queue showing it. */
async function queuedAndShown(title: string, day: string): Promise<{ id: string; page: Page }> {
  const made = await journey.api('POST', '/events', journey.keys.organizer, {
    title, description: '', category: 'social', location: 'Quad', capacity: 10, start_time: `${day}T18:00:00Z`, end_time: `${day}T19:00:00Z`,
  });
  assert.equal(made.status, 201);
  const { id } = (await made.json()) as { id: string };
  const page = await tab('admin');
  await page.goto(`${journey.url}/console/#/queue`);
  await page.getByRole('link', { name: title }).waitFor();
  return { id, page };
}

test('approving from a queue that is out of date: the refusal names the event, and the queue is read again without its row', { skip, timeout: TIMEOUT_MS }, async () => {
  const title = 'Withdrawn while the queue is open';
  const { id, page } = await queuedAndShown(title, '2027-06-02');
  try {
    // The organizer takes it back meanwhile: it is a draft, which the queue does not show once read again.
    assert.equal((await journey.api('PUT', `/events/${id}`, journey.keys.organizer, { status: 'draft' })).status, 200);
    await page.getByRole('button', { name: `Approve ${title}` }).click();
    await page.getByRole('alert').filter({ hasText: `“${title}”: ` }).filter({ hasText: '"draft"' }).waitFor();
    await page.getByRole('link', { name: title }).waitFor({ state: 'detached' });
    assert.equal((await read(id, 'organizer'))?.status, 'draft', 'nothing was approved');
    assertClean(browsing);
  } finally {
    await page.close();
  }
});

test('approving from a queue whose row its organizer edited since: refused, nothing approved, the queue read again shows the edit; approved then', { skip, timeout: TIMEOUT_MS }, async () => {
  const title = 'Edited while the queue is open';
  const { id, page } = await queuedAndShown(title, '2027-06-03');
  try {
    // Pending events are in no change feed: the row still shows the old text when the admin approves.
    assert.equal((await journey.api('PUT', `/events/${id}`, journey.keys.organizer, { location: 'Rooftop bar, bring cash' })).status, 200);
    await page.getByRole('button', { name: `Approve ${title}` }).click();
    await page.getByRole('alert').filter({ hasText: `“${title}”: it changed since this list showed it, so nothing was done` }).waitFor();
    assert.equal((await read(id, 'organizer'))?.status, 'pending', 'nothing was approved');
    await page.getByRole('button', { name: `Approve ${title}` }).click();
    await outcome(page, `“${title}” is approved: everyone can see it now.`);
    const approved = await read(id, 'organizer');
    assert.equal(approved?.status ?? 'published', 'published', 'a published event is read without a status');
    assert.equal(approved?.location, 'Rooftop bar, bring cash', 'approved as the queue showed it the second time');
    assertClean(browsing);
  } finally {
    await page.close();
  }
});

test('an event created for approval and approved elsewhere while its page is open: the sentence the person came with goes', { skip, timeout: TIMEOUT_MS }, async () => {
  const page = await tab('organizer');
  try {
    await fillEvent(page, 'Brought and approved', '2027-06-04');
    await page.getByRole('button', { name: 'Submit for approval' }).click();
    await page.getByRole('heading', { level: 1, name: 'Brought and approved' }).waitFor();
    const brought = page.locator('#content > p.brought');
    assert.match(await brought.innerText(), /“Brought and approved” is submitted for approval/);
    assert.equal((await journey.api('POST', `/events/${idOf(page)}/approve`, journey.keys.admin, {})).status, 200);
    // The change feed carries it once published: the page reads it again, and the sentence of the submission goes.
    await page.getByRole('button', { name: 'Cancel event' }).waitFor();
    await brought.waitFor({ state: 'detached' });
    assertClean(browsing);
  } finally {
    await page.close();
  }
});

test('a submission approved elsewhere while its page is open: the page shows it published, and the "submitted" sentence goes', { skip, timeout: TIMEOUT_MS }, async () => {
  const title = 'Approved while its page is open';
  const made = await journey.api('POST', '/events', journey.keys.organizer, {
    title, description: '', category: 'social', location: 'Quad', capacity: 10, status: 'draft', start_time: '2027-06-03T18:00:00Z', end_time: '2027-06-03T19:00:00Z',
  });
  assert.equal(made.status, 201);
  const { id } = (await made.json()) as { id: string };
  const page = await tab('organizer');
  try {
    await page.goto(`${journey.url}/console/#/events/${id}`);
    await page.getByRole('button', { name: 'Submit for approval' }).click();
    const submitted = page.locator('#content p.done').filter({ hasText: `“${title}” is submitted for approval` });
    await submitted.waitFor();
    assert.equal((await journey.api('POST', `/events/${id}/approve`, journey.keys.admin, {})).status, 200);
    // The change feed carries it once published: the page reads it again, and the sentence about the submission goes.
    await page.getByRole('button', { name: 'Cancel event' }).waitFor();
    await submitted.waitFor({ state: 'hidden' });
    assertClean(browsing);
  } finally {
    await page.close();
  }
});

test('a submission rejected elsewhere while its page is open (no change feed carries it): the page reads it again each minute and shows the note', { skip, timeout: TIMEOUT_MS }, async () => {
  const title = 'Rejected while its page is open';
  const made = await journey.api('POST', '/events', journey.keys.organizer, {
    title, description: '', category: 'social', location: 'Quad', capacity: 10, start_time: '2027-06-04T18:00:00Z', end_time: '2027-06-04T19:00:00Z',
  });
  assert.equal(made.status, 201);
  const { id } = (await made.json()) as { id: string };
  const page = await browsing.context.newPage();
  // The page's timers run on a clock the test moves: a minute passes at once, and only when the test says so.
  await page.clock.install();
  await signIn(page, journey.url, journey.keys.organizer);
  try {
    await page.goto(`${journey.url}/console/#/events/${id}`);
    await page.getByRole('heading', { level: 1, name: title }).waitFor();
    await page.getByText('Pending approval').first().waitFor();
    assert.equal((await journey.api('POST', `/events/${id}/reject`, journey.keys.admin, { reason: 'Which room of the Quad?' })).status, 200);
    await page.clock.runFor(59_000);
    await page.waitForTimeout(300);
    assert.equal(await page.getByText('Which room of the Quad?').count(), 0, 'not before the minute');
    await page.clock.runFor(2_000);
    await page.getByText('Which room of the Quad?').waitFor();
    assertClean(browsing);
  } finally {
    await page.close();
  }
});

test('a series submission rejected elsewhere while its page is open: the series page reads it again each minute and shows the note', { skip, timeout: TIMEOUT_MS }, async () => {
  const title = 'Weekly reading group';
  const made = await journey.api('POST', '/series', journey.keys.organizer, {
    title, description: '', category: 'academic', location: 'Library', capacity: 12,
    time_zone: 'UTC', recurrence: 'FREQ=WEEKLY;COUNT=3', start_time: '2027-06-08T17:00:00Z', end_time: '2027-06-08T18:00:00Z',
  });
  assert.equal(made.status, 201, await made.clone().text());
  const { id } = (await made.json()) as { id: string };
  const page = await browsing.context.newPage();
  await page.clock.install();
  await signIn(page, journey.url, journey.keys.organizer);
  try {
    await page.goto(`${journey.url}/console/#/series/${id}`);
    await page.getByRole('heading', { level: 1, name: title }).waitFor();
    await page.getByText('Pending approval').first().waitFor();
    assert.equal((await journey.api('POST', `/series/${id}/reject`, journey.keys.admin, { reason: 'Which floor of the library?' })).status, 200);
    await page.clock.runFor(59_000);
    await page.waitForTimeout(300);
    assert.equal(await page.getByText('Which floor of the library?').count(), 0, 'not before the minute');
    await page.clock.runFor(2_000);
    await page.getByText('Which floor of the library?').waitFor();
    assertClean(browsing);
  } finally {
    await page.close();
  }
});

/** A pending event made by the organizer through the API; its id. */
async function pendingEvent(title: string, day: string): Promise<string> {
  const made = await journey.api('POST', '/events', journey.keys.organizer, {
    title, description: '', category: 'social', location: 'Quad', capacity: 10, start_time: `${day}T18:00:00Z`, end_time: `${day}T19:00:00Z`,
  });
  assert.equal(made.status, 201);
  return ((await made.json()) as { id: string }).id;
}

test('approving on a page read before another admin rejected it: refused, and the alert says it is now a draft, not that someone edited it', { skip, timeout: TIMEOUT_MS }, async () => {
  const id = await pendingEvent('Rejected by the other reviewer', '2027-06-05');
  const page = await tab('admin');
  try {
    await page.goto(`${journey.url}/console/#/events/${id}`);
    const approve = page.getByRole('button', { name: 'Approve' });
    await approve.waitFor();
    assert.equal((await journey.api('POST', `/events/${id}/reject`, journey.keys.admin, { reason: 'Not this week.' })).status, 200);
    await approve.click();
    await page
      .locator('#content .alert[role="alert"]')
      .filter({ hasText: 'Someone else moved this event after this page showed it: it is now a draft, so it was not approved. It is shown again as it is now.' })
      .waitFor();
    await page.getByText('Not this week.').waitFor();
    assert.equal((await read(id, 'admin'))?.status, 'draft', 'nothing approved on the old tag');
    assertClean(browsing);
  } finally {
    await page.close();
  }
});

test('rejecting on a page read before its organizer withdrew it: the dialog closes on the refusal, and the alert says it is now a draft', { skip, timeout: TIMEOUT_MS }, async () => {
  const id = await pendingEvent('Withdrawn while under review', '2027-06-06');
  const page = await tab('admin');
  try {
    await page.goto(`${journey.url}/console/#/events/${id}`);
    const reject = page.getByRole('button', { name: 'Reject' });
    await reject.waitFor();
    assert.equal((await journey.api('PUT', `/events/${id}`, journey.keys.organizer, { status: 'draft' })).status, 200);
    await reject.click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Reason').fill('The room is booked.');
    await dialog.getByRole('button', { name: 'Reject' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page
      .locator('#content .alert[role="alert"]')
      .filter({ hasText: 'Someone else moved this event after this page showed it: it is now a draft, so it was not sent back. It is shown again as it is now.' })
      .waitFor();
    const stored = await read(id, 'admin');
    assert.deepEqual([stored?.status, stored?.review_note], ['draft', undefined], 'withdrawn, and no note from a rejection on the old tag');
    assertClean(browsing);
  } finally {
    await page.close();
  }
});

test('rejecting from a queue another admin already emptied of it: a reason of spaces is refused in the dialog; then the refusal (409) closes the dialog, names the event and the queue is read again without its row', { skip, timeout: TIMEOUT_MS }, async () => {
  const title = 'Rejected twice';
  const { id, page } = await queuedAndShown(title, '2027-06-07');
  try {
    assert.equal((await journey.api('POST', `/events/${id}/reject`, journey.keys.admin, { reason: 'Book a bigger room.' })).status, 200);
    await page.getByRole('button', { name: `Reject ${title}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Reason').fill('   ');
    await dialog.getByRole('button', { name: 'Reject' }).click();
    await dialog.getByText('Reason cannot be empty or only spaces.').waitFor();
    await dialog.getByLabel('Reason').fill('The date clashes with finals.');
    await dialog.getByRole('button', { name: 'Reject' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('alert').filter({ hasText: `“${title}”: ` }).filter({ hasText: '"draft"' }).waitFor();
    await page.getByRole('link', { name: title }).waitFor({ state: 'detached' });
    assert.equal((await read(id, 'admin'))?.review_note, 'Book a bigger room.', 'the first reviewer\'s note stands');
    assertClean(browsing);
  } finally {
    await page.close();
  }
});
