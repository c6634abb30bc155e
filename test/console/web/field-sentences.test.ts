// The console's sentence table, rule by rule: each rule of API.md §4 and §8 is provoked through the real app, and the
// problem it answers with is told in the form's words (labels, times as typed); every rule of the table is exercised.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, eventBody, type Harness } from '../../helpers/harness.js';
import { conflictProblem, conflictSentence, fieldSentence, SENTENCE_RULES, sentenceRule, type FormWords } from '../../../src/console/web/field-sentences.js';
import type { FieldProblem } from '../../../src/console/web/problem.js';

let harness: Harness;
before(async () => {
  harness = await startHarness();
});
after(async () => {
  await harness.close();
});

const LABELS: Record<string, string> = {
  title: 'Title', description: 'Description', category: 'Category', location: 'Location', start_time: 'Starts', end_time: 'Ends',
  capacity: 'Capacity (seats)', 'organizer.name': 'Organizer name', 'organizer.email': 'Organizer e-mail', name: 'Name', email: 'E-mail',
};
/** A form's words: its labels, and what the person sees in its fields. */
function words(shown: Record<string, string> = {}): FormWords {
  return { label: (field) => LABELS[field], shown: (field) => shown[field], time: (iso) => `<${iso}>` };
}

const covered = new Set<string>();

/** Asserts that `problem` is known to rule `rule` and told as `sentence`. */
function assertSentence(problem: FieldProblem | undefined, rule: string, sentence: string, shown: Record<string, string> = {}): void {
  assert.ok(problem !== undefined, `the API reported a problem for rule ${rule}`);
  assert.equal(sentenceRule(problem)?.entry.rule, rule, problem.message);
  assert.equal(fieldSentence(problem, words(shown)), sentence);
  covered.add(rule);
}

/** The API's problem about `field` when `body` is sent. */
async function problemOf(method: string, target: string, body: unknown, field: string, key = harness.keys.organizer): Promise<FieldProblem | undefined> {
  const response = await harness.request(method, target, { key, body });
  assert.equal(response.status, 400, JSON.stringify(response.json));
  return (response.json.details as FieldProblem[]).find((problem) => problem.field === field);
}
const create = (overrides: Record<string, unknown>, field: string, key?: string): Promise<FieldProblem | undefined> => problemOf('POST', '/events', eventBody(overrides), field, key);

test('a missing field, an empty one and one too long are named by their labels', async () => {
  const body = eventBody();
  delete body['title'];
  assertSentence(await problemOf('POST', '/events', body, 'title'), 'required', 'Title is required.');
  assertSentence(await create({ title: '   ' }, 'title'), 'length', 'Title cannot be empty or only spaces.');
  assertSentence(await create({ title: 'x'.repeat(201) }, 'title'), 'length', 'Title is too long: 201 characters, at most 200.');
  assertSentence(await create({ description: 'x'.repeat(5001) }, 'description'), 'length', 'Description is too long: 5001 characters, at most 5000.');
});

test('text of the wrong type, with control characters or a broken character', async () => {
  assertSentence(await create({ location: 5 }, 'location'), 'text', 'Location must be text.');
  assertSentence(await create({ title: 'a\u0007b' }, 'title'), 'control characters', 'Title cannot contain control characters such as tabs or line breaks; remove them (they often come with pasted text).');
  assertSentence(await create({ description: 'a\u0000b' }, 'description'), 'control characters', 'Description cannot contain control characters other than tabs and line breaks; remove them (they often come with pasted text).');
  assertSentence(await create({ title: 'a\ud800b' }, 'title'), 'unicode', 'Title holds a broken character (a lone surrogate); type it again.');
});

test('a category, a capacity and a time out of their rules', async () => {
  assertSentence(await create({ category: 'party' }, 'category'), 'one of', 'Category must be one of academic, social, athletic or cultural.');
  assertSentence(await create({ capacity: 1.5 }, 'capacity'), 'integer', 'Capacity (seats) must be a whole number from 1 to 100000.');
  assertSentence(await create({ capacity: 0 }, 'capacity'), 'range', 'Capacity (seats) must be from 1 to 100000, not 0.');
  assertSentence(await create({ start_time: '2026-09-01T17:00' }, 'start_time'), 'date-time', 'Starts needs a date and a time, between the years 1970 and 9999.');
});

test('ending before starting quotes the other time as the person typed it, not the API\'s UTC', async () => {
  const problem = await create({ start_time: '2027-01-03T23:00:00Z', end_time: '2027-01-03T22:00:00Z' }, 'end_time');
  assert.match(problem!.message, /2027-01-03T23:00:00.000Z/, 'the API speaks UTC');
  assertSentence(problem, 'end after start', 'Ends must be after Starts (6:00 PM).', { start_time: '6:00 PM', end_time: '5:00 PM' });
  const created = await harness.request('POST', '/events', { key: harness.keys.organizer, body: eventBody() });
  const moved = await problemOf('PUT', `/events/${created.json.id}`, { start_time: '2026-09-01T20:00:00Z' }, 'start_time');
  assertSentence(moved, 'start before end', 'Starts must be before Ends (7:00 PM).', { end_time: '7:00 PM' });
});

test('the organizer: an e-mail address, its shape, and who may set it', async () => {
  assertSentence(await create({ organizer: { name: 'Oscar', email: 'nope' } }, 'organizer.email', harness.keys.admin), 'e-mail', '“nope” is not an e-mail address such as ada@campus.edu: one @, no spaces, a domain with a dot.', { 'organizer.email': 'nope' });
  assertSentence(await create({ organizer: 'Oscar' }, 'organizer', harness.keys.admin), 'person', 'The organizer needs a name and an e-mail address, and nothing else.');
  assertSentence(await create({ organizer: { name: 'O', email: 'o@campus.edu', phone: '1' } }, 'organizer.phone', harness.keys.admin), 'person', 'The organizer needs a name and an e-mail address, and nothing else.');
  assertSentence(await create({ organizer: { name: 'O', email: 'o@campus.edu' } }, 'organizer'), 'admin only', 'Only an administrator can choose the organizer; you are the organizer of what you create.');
});

test('read-only and unknown fields', async () => {
  assertSentence(await create({ id: 'evt_0000000000000000' }, 'id'), 'read-only', 'id is set by the server and cannot be changed here.');
  const created = await harness.request('POST', '/events', { key: harness.keys.organizer, body: eventBody() });
  assertSentence(await problemOf('PUT', `/events/${created.json.id}`, { registered_count: 7 }, 'registered_count'), 'read-only', 'registered count is set by the server and cannot be changed here.');
  assertSentence(await create({ colour: 'red' }, 'colour'), 'unknown field', 'This form sent a field the server does not take (colour); reload the page to get the current console.');
});

test('a registration: name and e-mail rules, unknown fields', async () => {
  const created = await harness.request('POST', '/events', { key: harness.keys.organizer, body: eventBody({ start_time: '2030-01-01T10:00:00Z', end_time: '2030-01-01T12:00:00Z' }) });
  const target = `/events/${created.json.id}/registrations`;
  assertSentence(await problemOf('POST', target, { email: 'ann@campus.edu' }, 'name'), 'required', 'Name is required.');
  assertSentence(await problemOf('POST', target, { name: '', email: 'ann@campus.edu' }, 'name'), 'length', 'Name cannot be empty or only spaces.');
  assertSentence(await problemOf('POST', target, { name: 'Ann', email: 'ann at campus' }, 'email'), 'e-mail', '“ann at campus” is not an e-mail address such as ada@campus.edu: one @, no spaces, a domain with a dot.', { email: 'ann at campus' });
  assertSentence(await problemOf('POST', target, { name: 'Ann', email: 'ann@campus.edu', phone: '1' }, 'phone'), 'unknown field', 'This form sent a field the server does not take (phone); reload the page to get the current console.');
});

test('409s about one field are placed on it: capacity below registrations, an e-mail already registered', async () => {
  const created = await harness.request('POST', '/events', { key: harness.keys.organizer, body: eventBody({ capacity: 5, start_time: '2030-01-01T10:00:00Z', end_time: '2030-01-01T12:00:00Z' }) });
  const target = `/events/${created.json.id}/registrations`;
  for (const email of ['a@campus.edu', 'b@campus.edu']) assert.equal((await harness.request('POST', target, { key: harness.keys.reader, body: { name: 'A', email } })).status, 201);
  const lower = await harness.request('PUT', `/events/${created.json.id}`, { key: harness.keys.organizer, body: { capacity: 1 } });
  assert.equal(lower.status, 409);
  assertSentence(conflictProblem(lower.json.message), 'capacity below registrations', 'Capacity (seats) cannot be lower than the 2 people already registered; keep at least 2 seats, or cancel registrations first.');
  const twice = await harness.request('POST', target, { key: harness.keys.reader, body: { name: 'A', email: 'A@campus.edu' } });
  assert.equal(twice.status, 409);
  assertSentence(conflictProblem(twice.json.message), 'e-mail taken', 'A@campus.edu is already registered for this event. Cancel that registration first to register this address again.');
  assert.equal(conflictProblem('Event "evt_x" ended at 2020-01-01T00:00:00.000Z; it takes no more registrations.'), undefined, 'a conflict of the whole form is no field\'s');
});

test('409s about the whole registration form are sentences too; an unknown message falls back to the API\'s', async () => {
  const past = await harness.request('POST', '/events', { key: harness.keys.organizer, body: eventBody({ start_time: '2020-01-01T10:00:00Z', end_time: '2020-01-01T12:00:00Z' }) });
  const ended = await harness.request('POST', `/events/${past.json.id}/registrations`, { key: harness.keys.reader, body: { name: 'A', email: 'a@campus.edu' } });
  assert.equal(ended.status, 409);
  assert.equal(conflictSentence(ended.json.message, words()), 'This event has ended (<2020-01-01T12:00:00.000Z>); it takes no more registrations.');
  assert.equal(conflictSentence('Event "evt_x" is full and its waitlist holds its maximum of 1000; no more registrations are taken.', words()), 'This event is full, and so is its waitlist (1000 people); it takes no more registrations.');
  assert.equal(fieldSentence({ field: 'title', message: 'title is haunted' }, words()), 'title is haunted');
});

test('409s of a series (API.md §11): capacity below an occurrence\'s registrations, a schedule that would drop a held occurrence', async () => {
  const made = await harness.request('POST', '/series', { key: harness.keys.organizer, body: eventBody({ start_time: '2030-01-07T09:00:00Z', end_time: '2030-01-07T10:00:00Z', capacity: 5, recurrence: 'FREQ=WEEKLY;COUNT=3' }) });
  assert.equal(made.status, 201, JSON.stringify(made.json));
  const occurrences = await harness.request('GET', `/events?series_id=${made.json.id}`, { key: harness.keys.organizer });
  const second = occurrences.json.events[1] as { id: string; start_time: string };
  for (const email of ['a@campus.edu', 'b@campus.edu']) {
    assert.equal((await harness.request('POST', `/events/${second.id}/registrations`, { key: harness.keys.reader, body: { name: 'A', email } })).status, 201);
  }
  const lower = await harness.request('PUT', `/series/${made.json.id}`, { key: harness.keys.organizer, body: { capacity: 1 } });
  assert.equal(lower.status, 409, JSON.stringify(lower.json));
  assertSentence(conflictProblem(lower.json.message), 'capacity below an occurrence\'s registrations', `Capacity (seats) cannot be lower than the 2 people already registered for the occurrence of <${second.start_time}>; keep at least 2 seats, or cancel registrations first.`);
  const shorter = await harness.request('PUT', `/series/${made.json.id}`, { key: harness.keys.organizer, body: { recurrence: 'FREQ=WEEKLY;COUNT=1' } });
  assert.equal(shorter.status, 409, JSON.stringify(shorter.json));
  assert.equal(conflictSentence(shorter.json.message, words()), `The new schedule would drop the occurrence of <${second.start_time}>, which holds 2 registrations: cancel them first, or keep that date.`);
});

test('every rule of the table was exercised above', () => {
  assert.deepEqual(SENTENCE_RULES.map((entry) => entry.rule).filter((rule) => !covered.has(rule)), []);
});
