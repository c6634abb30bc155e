// Whole-request tests of API.md §8 through the real app: seats, waitlist, promotion, check-in, roles, precedence, paging and CSV.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventBody, startHarness, type Harness } from '../helpers/harness.js';
import { assertError } from '../api/support.js';

/** The injected clock: every test that needs time to pass moves it. */
const clock = { ms: Date.parse('2030-01-10T09:00:00.000Z') };
const FUTURE = { start_time: '2030-02-01T17:00:00Z', end_time: '2030-02-01T19:00:00Z' };

let h: Harness;
before(async () => {
  h = await startHarness({ now: () => clock.ms, rateLimit: 100_000 });
});
after(() => h.close());

async function newEvent(overrides: Record<string, unknown> = {}, key = h.keys.organizer): Promise<string> {
  const response = await h.request('POST', '/events', { key, body: eventBody({ ...FUTURE, ...overrides }) });
  assert.equal(response.status, 201, response.text ?? '');
  return response.json.id;
}

async function register(eventId: string, email: string, options: { key?: string; name?: string; prefix?: string } = {}) {
  return h.request('POST', `${options.prefix ?? ''}/events/${eventId}/registrations`, { key: options.key ?? h.keys.reader, body: { name: options.name ?? `Person ${email}`, email } });
}

async function statuses(eventId: string): Promise<string[]> {
  const response = await h.request('GET', `/events/${eventId}/registrations?limit=100`, { key: h.keys.organizer });
  assert.equal(response.status, 200);
  return response.json.registrations.map((r: { email: string; status: string }) => `${r.email}:${r.status}`);
}

async function registeredCount(eventId: string): Promise<number> {
  return (await h.request('GET', `/events/${eventId}`, { key: h.keys.reader })).json.registered_count;
}

describe('POST /events/{id}/registrations', () => {
  it('confirms while seats are free, then waitlists, first come first served', async () => {
    const id = await newEvent({ capacity: 2 });
    const first = await register(id, 'a@campus.edu', { name: '  Ann  ' });
    assert.equal(first.status, 201);
    assert.match(first.json.id, /^reg_[0-9A-Za-z]{22,}$/);
    assert.deepEqual(first.json, {
      id: first.json.id,
      event_id: id,
      name: 'Ann',
      email: 'a@campus.edu',
      status: 'confirmed',
      created_at: '2030-01-10T09:00:00.000Z',
      checked_in_at: null,
    });
    assert.equal(first.headers['Location'], `/events/${id}/registrations/${first.json.id}`);
    assert.equal((await register(id, 'b@campus.edu')).json.status, 'confirmed');
    assert.equal((await register(id, 'c@campus.edu')).json.status, 'waitlisted');
    assert.equal(await registeredCount(id), 2);
    assert.deepEqual(await statuses(id), ['a@campus.edu:confirmed', 'b@campus.edu:confirmed', 'c@campus.edu:waitlisted']);
  });

  it('keeps the /v1 prefix in Location', async () => {
    const id = await newEvent();
    const response = await register(id, 'v1@campus.edu', { prefix: '/v1' });
    assert.equal(response.headers['Location'], `/v1/events/${id}/registrations/${response.json.id}`);
  });

  it('changes the event ETag when registered_count changes, and not when someone is waitlisted', async () => {
    const id = await newEvent({ capacity: 1 });
    const etag = async () => (await h.request('GET', `/events/${id}`, { key: h.keys.reader })).headers['ETag'];
    const before = await etag();
    await register(id, 'e1@campus.edu');
    const afterConfirmed = await etag();
    assert.notEqual(afterConfirmed, before);
    await register(id, 'e2@campus.edu');
    assert.equal(await etag(), afterConfirmed);
  });

  it('refuses the same e-mail twice on one event, ignoring case, with 409 naming it; a cancelled one may register again', async () => {
    const id = await newEvent();
    const first = await register(id, 'Dup@Campus.edu');
    const again = assertError(await register(id, 'dup@campus.EDU'), 409, 'conflict');
    assert.match(again.message, /dup@campus\.EDU/);
    assert.equal((await h.request('DELETE', `/events/${id}/registrations/${first.json.id}`, { key: h.keys.reader })).status, 204);
    assert.equal((await register(id, 'dup@campus.edu')).status, 201);
    const other = await newEvent();
    assert.equal((await register(other, 'dup@campus.edu')).status, 201, 'the same e-mail on another event is fine');
  });

  it('refuses an event that has ended (end_time <= now) with 409', async () => {
    const id = await newEvent({ start_time: '2030-01-10T07:00:00Z', end_time: '2030-01-10T09:00:00Z' });
    const refused = assertError(await register(id, 'late@campus.edu'), 409, 'conflict');
    assert.match(refused.message, /ended/);
    assert.equal(await registeredCount(id), 0);
    const running = await newEvent({ start_time: '2030-01-10T08:00:00Z', end_time: '2030-01-10T09:00:01Z' });
    assert.equal((await register(running, 'on-time@campus.edu')).status, 201, 'an event still running takes registrations');
  });

  it('holds at most max(capacity, 1000) on the waitlist; past that, 409', async () => {
    const id = await newEvent({ capacity: 1 });
    for (let i = 0; i <= 1000; i++) assert.equal((await register(id, `w${i}@campus.edu`)).status, 201);
    const full = assertError(await register(id, 'one-too-many@campus.edu'), 409, 'conflict');
    assert.match(full.message, /waitlist/);
    const page = await h.request('GET', `/events/${id}/registrations?status=waitlisted&limit=1`, { key: h.keys.organizer });
    assert.equal(page.json.total, 1000);
  });

  it('validates name and email, listing every problem, and refuses unknown fields', async () => {
    const id = await newEvent();
    const empty = assertError(await h.request('POST', `/events/${id}/registrations`, { key: h.keys.reader, body: {} }), 400, 'validation_failed');
    assert.deepEqual(empty.details.map((d: { field: string }) => d.field).sort(), ['email', 'name']);
    const bad = assertError(await h.request('POST', `/events/${id}/registrations`, { key: h.keys.reader, body: { name: ' ', email: 'ada@campus.edu x', status: 'confirmed' } }), 400, 'validation_failed');
    assert.deepEqual(bad.details.map((d: { field: string }) => d.field).sort(), ['email', 'name', 'status']);
    assertError(await h.request('POST', `/events/${id}/registrations`, { key: h.keys.reader, body: { name: 'A', email: 7 } }), 400, 'validation_failed');
    assert.equal(await registeredCount(id), 0);
  });

  it('answers 404 for an unknown event before looking at the body, naming the id', async () => {
    const missing = assertError(await h.request('POST', '/events/evt_0000000000000000nope/registrations', { key: h.keys.reader, body: { bad: true } }), 404, 'not_found');
    assert.match(missing.message, /evt_0000000000000000nope/);
  });
});

describe('DELETE /events/{id}/registrations/{reg_id}', () => {
  it('frees a confirmed seat for the oldest waitlisted registration in the same write', async () => {
    const id = await newEvent({ capacity: 2 });
    const [a] = [await register(id, 'a@x.edu'), await register(id, 'b@x.edu'), await register(id, 'c@x.edu'), await register(id, 'd@x.edu')];
    assert.equal((await h.request('DELETE', `/events/${id}/registrations/${a!.json.id}`, { key: h.keys.reader })).status, 204);
    assert.deepEqual(await statuses(id), ['b@x.edu:confirmed', 'c@x.edu:confirmed', 'd@x.edu:waitlisted']);
    assert.equal(await registeredCount(id), 2);
    assertError(await h.request('GET', `/events/${id}/registrations/${a!.json.id}`, { key: h.keys.reader }), 404, 'not_found');
  });

  it('cancelling a waitlisted registration confirms nobody and leaves the count', async () => {
    const id = await newEvent({ capacity: 1 });
    await register(id, 'a@x.edu');
    const waiting = await register(id, 'b@x.edu');
    await register(id, 'c@x.edu');
    assert.equal((await h.request('DELETE', `/events/${id}/registrations/${waiting.json.id}`, { key: h.keys.reader })).status, 204);
    assert.deepEqual(await statuses(id), ['a@x.edu:confirmed', 'c@x.edu:waitlisted']);
    assert.equal(await registeredCount(id), 1);
  });

  it('answers 404 for the unknown event first, then for the unknown registration, each naming its id', async () => {
    const id = await newEvent();
    const noEvent = assertError(await h.request('DELETE', '/events/evt_0000000000000000nope/registrations/reg_0000000000000000000000', { key: h.keys.reader }), 404, 'not_found');
    assert.match(noEvent.message, /evt_0000000000000000nope/);
    const noRegistration = assertError(await h.request('DELETE', `/events/${id}/registrations/reg_0000000000000000000000`, { key: h.keys.reader }), 404, 'not_found');
    assert.match(noRegistration.message, /reg_0000000000000000000000/);
  });

  it('a registration of another event is not found under this one', async () => {
    const one = await newEvent();
    const two = await newEvent();
    const registration = await register(one, 'x@x.edu');
    assertError(await h.request('DELETE', `/events/${two}/registrations/${registration.json.id}`, { key: h.keys.reader }), 404, 'not_found');
    assertError(await h.request('GET', `/events/${two}/registrations/${registration.json.id}`, { key: h.keys.reader }), 404, 'not_found');
  });
});

describe('capacity changes', () => {
  it('raising capacity confirms waitlisted registrations in order, up to the new capacity, in the same write', async () => {
    const id = await newEvent({ capacity: 1 });
    for (const email of ['a@x.edu', 'b@x.edu', 'c@x.edu', 'd@x.edu']) await register(id, email);
    const raised = await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { capacity: 3 } });
    assert.equal(raised.status, 200);
    assert.equal(raised.json.registered_count, 3);
    assert.deepEqual(await statuses(id), ['a@x.edu:confirmed', 'b@x.edu:confirmed', 'c@x.edu:confirmed', 'd@x.edu:waitlisted']);
  });

  it('lowering capacity below registered_count is a 409 that changes nothing; down to it is fine', async () => {
    const id = await newEvent({ capacity: 5 });
    for (const email of ['a@x.edu', 'b@x.edu', 'c@x.edu']) await register(id, email);
    assertError(await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { capacity: 2 } }), 409, 'conflict');
    assert.equal((await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { capacity: 3 } })).json.capacity, 3);
    assert.equal((await register(id, 'd@x.edu')).json.status, 'waitlisted');
  });

  it('deleting an event deletes its registrations in the same write', async () => {
    const id = await newEvent();
    const registration = await register(id, 'a@x.edu');
    assert.equal((await h.request('DELETE', `/events/${id}`, { key: h.keys.organizer })).status, 204);
    assertError(await h.request('GET', `/events/${id}/registrations/${registration.json.id}`, { key: h.keys.reader }), 404, 'not_found');
    assert.equal(h.app.store.roster(id).confirmed, 0);
  });
});

describe('POST /events/{id}/registrations/{reg_id}/check-in', () => {
  it('sets checked_in_at to now; a second check-in keeps the first time', async () => {
    const id = await newEvent();
    const registration = await register(id, 'a@x.edu');
    const target = `/events/${id}/registrations/${registration.json.id}/check-in`;
    const first = await h.request('POST', target, { key: h.keys.organizer });
    assert.equal(first.status, 200);
    assert.equal(first.json.checked_in_at, '2030-01-10T09:00:00.000Z');
    clock.ms += 60_000;
    const second = await h.request('POST', target, { key: h.keys.admin, body: {} });
    assert.equal(second.status, 200);
    assert.equal(second.json.checked_in_at, '2030-01-10T09:00:00.000Z');
    const read = await h.request('GET', `/events/${id}/registrations/${registration.json.id}`, { key: h.keys.reader });
    assert.equal(read.json.checked_in_at, '2030-01-10T09:00:00.000Z');
  });

  it('refuses a waitlisted registration with 409, and a body with fields with 400', async () => {
    const id = await newEvent({ capacity: 1 });
    const confirmed = await register(id, 'a@x.edu');
    const waiting = await register(id, 'b@x.edu');
    const refused = assertError(await h.request('POST', `/events/${id}/registrations/${waiting.json.id}/check-in`, { key: h.keys.organizer }), 409, 'conflict');
    assert.match(refused.message, /waitlisted/);
    const withField = assertError(await h.request('POST', `/events/${id}/registrations/${confirmed.json.id}/check-in`, { key: h.keys.organizer, body: { at: 'now' } }), 400, 'validation_failed');
    assert.deepEqual(withField.details.map((d: { field: string }) => d.field), ['at']);
    assert.equal((await h.request('GET', `/events/${id}/registrations/${confirmed.json.id}`, { key: h.keys.reader })).json.checked_in_at, null);
  });
});

describe('ETag and If-Match on a registration', () => {
  it('changes when it is confirmed and when it is checked in; a cancel or check-in on an older read is a 412 that changes nothing', async () => {
    const id = await newEvent({ capacity: 1 });
    const ann = await register(id, 'ann@campus.edu');
    const ben = await register(id, 'ben@campus.edu');
    assert.equal(ben.json.status, 'waitlisted');
    const path = `/events/${id}/registrations/${ben.json.id}`;
    const waitlisted = ben.headers['ETag']!;
    assert.match(waitlisted, /^"r[0-9a-z]+"$/);
    const read = await h.request('GET', path, { key: h.keys.reader });
    assert.equal(read.headers['ETag'], waitlisted, 'the read gives the ETag the create gave');
    assert.equal((await h.request('GET', path, { key: h.keys.reader, headers: { 'If-None-Match': waitlisted } })).status, 304);

    // Ann cancels: Ben is confirmed, so an If-Match of his waitlisted read no longer matches.
    assert.equal((await h.request('DELETE', `/events/${id}/registrations/${ann.json.id}`, { key: h.keys.reader })).status, 204);
    const confirmed = (await h.request('GET', path, { key: h.keys.reader })).headers['ETag']!;
    assert.notEqual(confirmed, waitlisted);
    const stale = await h.request('DELETE', path, { key: h.keys.reader, headers: { 'If-Match': waitlisted } });
    assert.match(assertError(stale, 412, 'precondition_failed').message, new RegExp(`registration "${ben.json.id}"`));
    assert.equal((await h.request('POST', `${path}/check-in`, { key: h.keys.organizer, headers: { 'If-Match': waitlisted } })).status, 412);
    // §3's order: the owner check (403) before If-Match, and If-Match (412) before the body (400).
    assert.equal((await h.request('POST', `${path}/check-in`, { key: h.keys.reader, headers: { 'If-Match': waitlisted } })).status, 403);
    assert.equal((await h.request('POST', `${path}/check-in`, { key: h.keys.organizer, body: { at: 1 }, headers: { 'If-Match': waitlisted } })).status, 412);
    assert.deepEqual(await statuses(id), ['ben@campus.edu:confirmed'], 'nothing changed by the refused requests');

    const checkedIn = await h.request('POST', `${path}/check-in`, { key: h.keys.organizer, headers: { 'If-Match': confirmed } });
    assert.equal(checkedIn.status, 200);
    assert.equal(checkedIn.headers['ETag'], (await h.request('GET', path, { key: h.keys.reader })).headers['ETag']);
    assert.equal((await h.request('DELETE', path, { key: h.keys.reader, headers: { 'If-Match': confirmed } })).status, 412, 'checked in since that read');
    assert.equal((await h.request('DELETE', path, { key: h.keys.reader, headers: { 'If-Match': checkedIn.headers['ETag']! } })).status, 204);
    assert.deepEqual(await statuses(id), []);
  });
});

describe('roles (API.md §2)', () => {
  it('readers register, read and cancel by id, but neither list attendees nor check in', async () => {
    const id = await newEvent();
    const registration = await register(id, 'r@x.edu', { key: h.keys.reader });
    assert.equal((await h.request('GET', `/events/${id}/registrations/${registration.json.id}`, { key: h.keys.reader })).status, 200);
    assertError(await h.request('GET', `/events/${id}/registrations`, { key: h.keys.reader }), 403, 'forbidden');
    assertError(await h.request('POST', `/events/${id}/registrations/${registration.json.id}/check-in`, { key: h.keys.reader }), 403, 'forbidden');
    assert.equal((await h.request('DELETE', `/events/${id}/registrations/${registration.json.id}`, { key: h.keys.reader })).status, 204);
  });

  it("the attendee list and check-in belong to the event's organizer and admins", async () => {
    const id = await newEvent();
    const registration = await register(id, 'r@x.edu');
    assert.equal((await h.request('GET', `/events/${id}/registrations`, { key: h.keys.organizer })).status, 200);
    assert.equal((await h.request('GET', `/events/${id}/registrations`, { key: h.keys.admin })).status, 200);
    const other = assertError(await h.request('GET', `/events/${id}/registrations`, { key: h.keys.other }), 403, 'forbidden');
    assert.match(other.message, new RegExp(id));
    assertError(await h.request('POST', `/events/${id}/registrations/${registration.json.id}/check-in`, { key: h.keys.other }), 403, 'forbidden');
  });

  it('an unknown event, then an unknown registration, is 404 before the owner check (API.md §3: unknown id before not the owner)', async () => {
    assertError(await h.request('GET', '/events/evt_0000000000000000nope/registrations', { key: h.keys.other }), 404, 'not_found');
    const id = await newEvent();
    const unknown = assertError(await h.request('POST', `/events/${id}/registrations/reg_0000000000000000000000/check-in`, { key: h.keys.other }), 404, 'not_found');
    assert.match(unknown.message, /reg_0000000000000000000000/);
    assertError(await h.request('POST', `/events/${id}/registrations/reg_0000000000000000000000/check-in`, { key: h.keys.organizer }), 404, 'not_found');
  });

  it("a feed key's 403 says what it may not do: register, read or cancel a registration", async () => {
    const id = await newEvent();
    const registration = await register(id, 'f@x.edu');
    const path = `/events/${id}/registrations/${registration.json.id}`;
    assert.equal(assertError(await h.request('POST', `/events/${id}/registrations`, { key: h.keys.feed, body: { name: 'F', email: 'g@x.edu' } }), 403, 'forbidden').message, 'A feed key may not register attendees.');
    assert.equal(assertError(await h.request('GET', path, { key: h.keys.feed }), 403, 'forbidden').message, 'A feed key may not read registrations.');
    assert.equal(assertError(await h.request('DELETE', path, { key: h.keys.feed }), 403, 'forbidden').message, 'A feed key may not cancel registrations.');
  });

  it('without a key: 401, whether or not the event exists', async () => {
    const id = await newEvent();
    assertError(await h.request('POST', `/events/${id}/registrations`, { body: { name: 'A', email: 'a@x.edu' } }), 401, 'unauthorized');
    assertError(await h.request('GET', '/events/evt_0000000000000000nope/registrations'), 401, 'unauthorized');
  });

  it('GET /me answers who the key belongs to', async () => {
    const me = await h.request('GET', '/me', { key: h.keys.organizer });
    assert.equal(me.status, 200);
    assert.deepEqual(Object.keys(me.json), ['key_id', 'name', 'email', 'role']);
    assert.equal(me.json.email, 'olivia@campus.edu');
    assert.equal(me.json.role, 'organizer');
    assertError(await h.request('GET', '/me'), 401, 'unauthorized');
  });
});

describe('GET /events/{id}/registrations', () => {
  let id: string;
  before(async () => {
    id = await newEvent({ capacity: 3 });
    const names = ['=HYPERLINK("http://evil.example","x")', 'Smith, "Jo"', '+1', "O'Brien, Ann", '@home'];
    for (const [i, name] of names.entries()) await register(id, `p${i}@x.edu`, { name });
  });

  it('pages in creation order with total, page and Link, and filters by status', async () => {
    const page1 = await h.request('GET', `/events/${id}/registrations?limit=2`, { key: h.keys.organizer });
    assert.equal(page1.json.total, 5);
    assert.equal(page1.json.page, 1);
    assert.deepEqual(page1.json.registrations.map((r: { email: string }) => r.email), ['p0@x.edu', 'p1@x.edu']);
    const links = (n: number, rels: string) => rels.split(' ').map((rel) => `</events/${id}/registrations?limit=2&page=${rel === 'first' ? 1 : rel === 'last' ? 3 : n}>; rel="${rel}"`).join(', ');
    assert.equal(page1.headers['Link'], links(2, 'first next last'));
    const page3 = await h.request('GET', `/events/${id}/registrations?limit=2&page=3`, { key: h.keys.organizer });
    assert.deepEqual(page3.json.registrations.map((r: { email: string }) => r.email), ['p4@x.edu']);
    assert.equal(page3.headers['Link'], links(2, 'first prev last'));
    const waitlisted = await h.request('GET', `/events/${id}/registrations?status=waitlisted`, { key: h.keys.organizer });
    assert.deepEqual(waitlisted.json.registrations.map((r: { email: string }) => r.email), ['p3@x.edu', 'p4@x.edu']);
    assert.equal(waitlisted.json.total, 2);
    assert.equal(waitlisted.headers['Link'], `</events/${id}/registrations?status=waitlisted&limit=50&page=1>; rel="first", </events/${id}/registrations?status=waitlisted&limit=50&page=1>; rel="last"`);
    const past = await h.request('GET', `/events/${id}/registrations?page=9`, { key: h.keys.organizer });
    assert.deepEqual(past.json.registrations, []);
  });

  it('refuses a bad or unknown query parameter with 400 naming it', async () => {
    for (const query of ['status=cancelled', 'limit=101', 'page=0', 'sort=name']) {
      const refused = assertError(await h.request('GET', `/events/${id}/registrations?${query}`, { key: h.keys.organizer }), 400, 'bad_request');
      assert.match(refused.message, new RegExp(query.split('=')[0]!));
    }
  });

  it('gives the same page as CSV with Accept: text/csv, guarding formulas and quoting per RFC 4180', async () => {
    const csv = await h.request('GET', `/events/${id}/registrations?limit=5`, { key: h.keys.organizer, headers: { accept: 'text/csv' } });
    assert.equal(csv.status, 200);
    assert.equal(csv.headers['Content-Type'], 'text/csv; charset=utf-8');
    const json = await h.request('GET', `/events/${id}/registrations?limit=5`, { key: h.keys.organizer });
    const rows = parseCsv(csv.text!);
    assert.deepEqual(rows[0], ['id', 'name', 'email', 'status', 'created_at', 'checked_in_at']);
    assert.deepEqual(rows.slice(1).map((row) => row[0]), json.json.registrations.map((r: { id: string }) => r.id));
    assert.deepEqual(rows.slice(1).map((row) => row[1]), ['\'=HYPERLINK("http://evil.example","x")', 'Smith, "Jo"', "'+1", "O'Brien, Ann", "'@home"]);
    assert.equal(rows[1]![5], '', 'null is an empty cell');
    assert.ok(csv.text!.endsWith('\r\n'));
  });
});

/** A small RFC 4180 reader, so the test checks the CSV by parsing it, not by its bytes. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      row.push(cell);
      cell = '';
    } else if (char === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += char;
  }
  return rows;
}
