// Whole-request tests of create, read, update and delete (API.md §4, §5), through the pure core.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openApp } from '../../src/app.js';
import { call, eventBody, startHarness, type Harness } from '../helpers/harness.js';
import { assertError, CREATE_FIELDS, createEvent, detailFields, EVENT_ID, JSON_CONTENT_TYPE, VIEW_FIELDS } from './support.js';

describe('POST /events', () => {
  let h: Harness;
  before(async () => (h = await startHarness()));
  after(() => h.close());

  it('answers 201 with every field but organizer, and Location /events/{id}', async () => {
    const response = await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody() });
    assert.equal(response.status, 201);
    assert.equal(response.headers['Content-Type'], JSON_CONTENT_TYPE);
    assert.deepEqual(Object.keys(response.json), CREATE_FIELDS);
    assert.match(response.json.id, EVENT_ID);
    assert.equal(response.headers['Location'], `/events/${response.json.id}`);
    assert.equal(response.json.registered_count, 0);
    assert.equal(response.json.title, 'Intro to Distributed Systems');
    assert.equal(response.json.start_time, '2026-09-01T17:00:00.000Z');
    assert.equal(response.json.end_time, '2026-09-01T19:00:00.000Z');
    assert.match(response.json.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('keeps the /v1 prefix in Location when called under /v1', async () => {
    const response = await h.request('POST', '/v1/events', { key: h.keys.organizer, body: eventBody() });
    assert.equal(response.status, 201);
    assert.equal(response.headers['Location'], `/v1/events/${response.json.id}`);
    const read = await h.request('GET', response.headers['Location']!, { key: h.keys.reader });
    assert.equal(read.status, 200);
    assert.equal(read.json.id, response.json.id);
  });

  it('stores titles trimmed, times in UTC milliseconds, description defaulting to ""', async () => {
    const body = eventBody({ title: '  Robotics night  ', location: ' Lab 3 ', start_time: '2026-09-01T19:00:00+02:00', end_time: '2026-09-01T18:30:00.123456-00:30' });
    delete body['description'];
    const response = await h.request('POST', '/events', { key: h.keys.organizer, body });
    assert.equal(response.status, 201, response.text ?? '');
    assert.equal(response.json.title, 'Robotics night');
    assert.equal(response.json.location, 'Lab 3');
    assert.equal(response.json.description, '');
    assert.equal(response.json.start_time, '2026-09-01T17:00:00.000Z');
    assert.equal(response.json.end_time, '2026-09-01T19:00:00.123Z');
  });

  it('makes the key owner the organizer', async () => {
    const created = await createEvent(h, h.keys.organizer);
    const read = await h.request('GET', `/events/${created.id}`, { key: h.keys.reader });
    assert.deepEqual(read.json.organizer, { name: 'Olivia Organizer', email: 'olivia@campus.edu' });
  });

  it('lets an admin set the organizer explicitly', async () => {
    const organizer = { name: 'Guest Speaker', email: 'guest@campus.edu' };
    const created = await createEvent(h, h.keys.admin, { organizer });
    assert.equal(created.organizer, undefined, 'the create response carries no organizer');
    const read = await h.request('GET', `/events/${created.id}`, { key: h.keys.admin });
    assert.deepEqual(read.json.organizer, organizer);
  });

  it('refuses an organizer key setting another organizer with validation_failed naming organizer', async () => {
    const response = await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody({ organizer: { name: 'Someone', email: 'someone@campus.edu' } }) });
    assertError(response, 400, 'validation_failed');
    assert.deepEqual(detailFields(response), ['organizer']);
  });

  it('lets an organizer key send its own organizer back', async () => {
    const response = await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody({ organizer: { name: 'Olivia Organizer', email: 'olivia@campus.edu' } }) });
    assert.equal(response.status, 201, response.text ?? '');
  });

  it('reports every problem of an empty body in details, one per required field', async () => {
    const response = await h.request('POST', '/events', { key: h.keys.organizer, body: {} });
    assertError(response, 400, 'validation_failed');
    assert.deepEqual(detailFields(response).sort(), ['capacity', 'category', 'end_time', 'location', 'start_time', 'title']);
  });

  it('reports wrong types, ranges, unknown and read-only fields all at once', async () => {
    const body = eventBody({
      title: '   ',
      category: 'sports',
      capacity: '10',
      start_time: '2026-09-01T17:00:00',
      description: null,
      colour: 'red',
      id: 'evt_0000000000000000',
      registered_count: 5,
      created_at: '2026-01-01T00:00:00.000Z',
    });
    const response = await h.request('POST', '/events', { key: h.keys.organizer, body });
    assertError(response, 400, 'validation_failed');
    assert.deepEqual(detailFields(response).sort(), ['capacity', 'category', 'colour', 'created_at', 'description', 'id', 'registered_count', 'start_time', 'title']);
    for (const detail of response.json.details) assert.ok(detail.message.includes(detail.field), `"${detail.message}" names ${detail.field}`);
  });

  it('refuses an end_time that is not after start_time', async () => {
    const response = await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody({ end_time: '2026-09-01T17:00:00Z' }) });
    assertError(response, 400, 'validation_failed');
    assert.deepEqual(detailFields(response), ['end_time']);
  });

  it('refuses capacity out of range and non-integers', async () => {
    for (const capacity of [0, 100_001, 1.5, -1, null, true]) {
      const response = await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody({ capacity }) });
      assertError(response, 400, 'validation_failed');
      assert.deepEqual(detailFields(response), ['capacity'], `capacity ${JSON.stringify(capacity)}`);
    }
    const largest = await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody({ capacity: 100_000 }) });
    assert.equal(largest.status, 201);
  });

  it('answers 400, never 500, for values nested deep inside a field (regression: JSON.stringify overflowed in messages)', async () => {
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    for (const field of ['capacity', 'category', 'start_time', 'title', 'organizer']) {
      const response = await h.request('POST', '/events', { key: h.keys.admin, body: `{"${field}":${deep}}`, headers: { 'content-type': 'application/json' } });
      assertError(response, 400, 'bad_request');
    }
  });

  it('validates values nested up to 32 levels (the body cap), and refuses 33 as bad_request', async () => {
    const nested = (levels: number): string => `{"capacity":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
    const atCap = await h.request('POST', '/events', { key: h.keys.admin, body: nested(32), headers: { 'content-type': 'application/json' } });
    assertError(atCap, 400, 'validation_failed');
    const overCap = await h.request('POST', '/events', { key: h.keys.admin, body: nested(33), headers: { 'content-type': 'application/json' } });
    assertError(overCap, 400, 'bad_request');
    const inString = await h.request('POST', '/events', { key: h.keys.admin, body: eventBody({ description: '['.repeat(1000) }) });
    assert.equal(inString.status, 201, 'brackets inside strings do not count');
  });
});

describe('GET /events/{id}', () => {
  let h: Harness;
  before(async () => (h = await startHarness()));
  after(() => h.close());

  it('answers 200 with every field but created_at and a strong ETag', async () => {
    const created = await createEvent(h, h.keys.organizer);
    const response = await h.request('GET', `/events/${created.id}`, { key: h.keys.reader });
    assert.equal(response.status, 200);
    assert.equal(response.headers['Content-Type'], JSON_CONTENT_TYPE);
    assert.deepEqual(Object.keys(response.json), VIEW_FIELDS);
    assert.deepEqual(Object.keys(response.json.organizer), ['name', 'email']);
    for (const field of CREATE_FIELDS.filter((name) => name !== 'created_at')) assert.deepEqual(response.json[field], created[field], field);
    assert.match(response.headers['ETag'] ?? '', /^"[^"]+"$/);
  });

  it('answers 404 not_found naming the id', async () => {
    const id = 'evt_doesNotExist0000000';
    for (const target of [`/events/${id}`, `/v1/events/${id}`]) {
      const response = await h.request('GET', target, { key: h.keys.reader });
      const body = assertError(response, 404, 'not_found');
      assert.ok(body.message.includes(id), body.message);
    }
  });

  it('answers under /v1 exactly as without it', async () => {
    const created = await createEvent(h, h.keys.organizer);
    const plain = await h.request('GET', `/events/${created.id}`, { key: h.keys.reader });
    const versioned = await h.request('GET', `/v1/events/${created.id}`, { key: h.keys.reader });
    assert.equal(versioned.status, 200);
    assert.equal(versioned.text, plain.text);
    assert.equal(versioned.headers['ETag'], plain.headers['ETag']);
  });
});

describe('PUT /events/{id}', () => {
  let h: Harness;
  before(async () => (h = await startHarness()));
  after(() => h.close());

  it('changes only the fields sent and answers with every field but created_at', async () => {
    const created = await createEvent(h, h.keys.organizer);
    const response = await h.request('PUT', `/events/${created.id}`, { key: h.keys.organizer, body: { capacity: 80, location: ' Hall B ' } });
    assert.equal(response.status, 200, response.text ?? '');
    assert.deepEqual(Object.keys(response.json), VIEW_FIELDS);
    assert.equal(response.json.capacity, 80);
    assert.equal(response.json.location, 'Hall B');
    for (const field of ['id', 'title', 'description', 'category', 'start_time', 'end_time', 'registered_count']) assert.deepEqual(response.json[field], created[field], field);
    const read = await h.request('GET', `/events/${created.id}`, { key: h.keys.reader });
    assert.equal(read.text, response.text);
    assert.equal(read.headers['ETag'], response.headers['ETag']);
  });

  it('treats an empty object as a valid no-op', async () => {
    const created = await createEvent(h, h.keys.organizer);
    const before = await h.request('GET', `/events/${created.id}`, { key: h.keys.organizer });
    const response = await h.request('PUT', `/events/${created.id}`, { key: h.keys.organizer, body: {} });
    assert.equal(response.status, 200);
    assert.equal(response.text, before.text);
  });

  it('accepts back what a read returned, read-only fields included', async () => {
    const created = await createEvent(h, h.keys.organizer);
    const read = await h.request('GET', `/events/${created.id}`, { key: h.keys.organizer });
    const response = await h.request('PUT', `/events/${created.id}`, { key: h.keys.organizer, body: read.json });
    assert.equal(response.status, 200, response.text ?? '');
    assert.equal(response.text, read.text);
  });

  it('accepts created_at sent back with its stored value, and refuses another', async () => {
    const created = await createEvent(h, h.keys.organizer);
    const same = await h.request('PUT', `/events/${created.id}`, { key: h.keys.organizer, body: { created_at: created.created_at } });
    assert.equal(same.status, 200, same.text ?? '');
    const other = await h.request('PUT', `/events/${created.id}`, { key: h.keys.organizer, body: { created_at: '2020-01-01T00:00:00.000Z' } });
    assertError(other, 400, 'validation_failed');
    assert.deepEqual(detailFields(other), ['created_at']);
  });

  it('refuses changes to read-only fields, naming each', async () => {
    const created = await createEvent(h, h.keys.organizer);
    const response = await h.request('PUT', `/events/${created.id}`, { key: h.keys.organizer, body: { id: 'evt_0000000000000000', registered_count: 3 } });
    assertError(response, 400, 'validation_failed');
    assert.deepEqual(detailFields(response).sort(), ['id', 'registered_count']);
  });

  it('validates the result as a whole: a new end_time before the stored start_time fails', async () => {
    const created = await createEvent(h, h.keys.organizer);
    const response = await h.request('PUT', `/events/${created.id}`, { key: h.keys.organizer, body: { end_time: '2026-09-01T16:00:00Z' } });
    assertError(response, 400, 'validation_failed');
    assert.deepEqual(detailFields(response), ['end_time']);
    const read = await h.request('GET', `/events/${created.id}`, { key: h.keys.organizer });
    assert.equal(read.json.end_time, created.end_time, 'a refused update changes nothing');
  });

  it('lets an admin change the organizer, after which the new organizer owns the event', async () => {
    const created = await createEvent(h, h.keys.other);
    const refused = await h.request('PUT', `/events/${created.id}`, { key: h.keys.organizer, body: { capacity: 10 } });
    assertError(refused, 403, 'forbidden');
    const moved = await h.request('PUT', `/events/${created.id}`, { key: h.keys.admin, body: { organizer: { name: 'Olivia O.', email: 'OLIVIA@campus.edu' } } });
    assert.equal(moved.status, 200, moved.text ?? '');
    assert.deepEqual(moved.json.organizer, { name: 'Olivia O.', email: 'OLIVIA@campus.edu' });
    const allowed = await h.request('PUT', `/events/${created.id}`, { key: h.keys.organizer, body: { capacity: 10 } });
    assert.equal(allowed.status, 200, 'e-mails compare without regard to case');
  });

  it('refuses an organizer key changing the organizer', async () => {
    const created = await createEvent(h, h.keys.organizer);
    const response = await h.request('PUT', `/events/${created.id}`, { key: h.keys.organizer, body: { organizer: { name: 'Oscar Other', email: 'oscar@campus.edu' } } });
    assertError(response, 400, 'validation_failed');
    assert.deepEqual(detailFields(response), ['organizer']);
  });

  it('answers 404 naming the id for an unknown event', async () => {
    const id = 'evt_unknownUnknown000000';
    const response = await h.request('PUT', `/v1/events/${id}`, { key: h.keys.admin, body: { capacity: 5 } });
    const body = assertError(response, 404, 'not_found');
    assert.ok(body.message.includes(id));
  });
});

describe('DELETE /events/{id}', () => {
  let h: Harness;
  before(async () => (h = await startHarness()));
  after(() => h.close());

  it('answers 204 with no body, then 404 on GET, PUT and DELETE', async () => {
    const created = await createEvent(h, h.keys.organizer);
    const response = await h.request('DELETE', `/events/${created.id}`, { key: h.keys.organizer });
    assert.equal(response.status, 204);
    assert.equal(response.text, null);
    assert.equal(response.headers['Content-Type'], undefined);
    for (const [method, body] of [['GET', undefined], ['PUT', { capacity: 5 }], ['DELETE', undefined]] as const) {
      const again = await h.request(method, `/events/${created.id}`, { key: h.keys.admin, body });
      const error = assertError(again, 404, 'not_found');
      assert.ok(error.message.includes(created.id), `${method}: ${error.message}`);
    }
    const list = await h.request('GET', '/events', { key: h.keys.reader });
    assert.ok(!list.json.events.some((event: { id: string }) => event.id === created.id));
  });

  it('works under /v1 and lets an admin delete anyone\'s event', async () => {
    const created = await createEvent(h, h.keys.other);
    const response = await h.request('DELETE', `/v1/events/${created.id}`, { key: h.keys.admin });
    assert.equal(response.status, 204);
  });

  it('keeps deletes across a restart of the app on the same folder', async () => {
    const kept = await createEvent(h, h.keys.organizer);
    const removed = await createEvent(h, h.keys.organizer);
    assert.equal((await h.request('DELETE', `/events/${removed.id}`, { key: h.keys.organizer })).status, 204);
    const dataDir = h.dataDir;
    await h.app.close();
    const reopened = await openApp({ dataDir, keyPollMs: 0 }, { unsafeNoSync: true });
    try {
      assert.equal((await call(reopened, 'GET', `/events/${kept.id}`, { key: h.keys.reader })).status, 200);
      assert.equal((await call(reopened, 'GET', `/events/${removed.id}`, { key: h.keys.reader })).status, 404);
    } finally {
      await reopened.close();
    }
  });
});
