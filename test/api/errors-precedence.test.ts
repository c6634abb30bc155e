// Whole-request tests of API.md §3: each error the service produces in process, and which fault answers when a request has several.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventBody, startHarness, type Harness } from '../helpers/harness.js';
import { assertError, createEvent, detailFields, handleRaw } from './support.js';

const UNKNOWN_ID = 'evt_noSuchEventNoSuchEv';
const TOO_LARGE = 'x'.repeat(64 * 1024 + 1);

/** Confirms `count` more attendees of `id` through the store (its events have ended, so the API would refuse them). */
async function setRegistered(h: Harness, id: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const n = String(h.app.store.roster(id).confirmed).padStart(22, '0');
    await h.app.store.changeRegistrations(id, () => ({ op: 'register', registration: { id: `reg_${n}`, name: `Attendee ${n}`, email: `a${n}@campus.edu` } }));
  }
}

describe('§3 errors, one fault at a time', () => {
  let h: Harness;
  let mine: Record<string, any>;
  before(async () => {
    h = await startHarness();
    mine = await createEvent(h, h.keys.organizer);
  });
  after(() => h.close());

  it('400 bad_request for malformed JSON', async () => {
    const response = await h.request('POST', '/events', { key: h.keys.organizer, body: '{"title": ', headers: { 'content-type': 'application/json' } });
    assertError(response, 400, 'bad_request');
  });

  it('400 bad_request for a body that is not a JSON object', async () => {
    for (const body of ['[]', '[1,2]', '"text"', '42', 'null', 'true']) {
      const response = await h.request('POST', '/events', { key: h.keys.organizer, body, headers: { 'content-type': 'application/json' } });
      assertError(response, 400, 'bad_request');
    }
  });

  it('400 bad_request for an empty body and for a body that is not UTF-8', async () => {
    const empty = await h.request('POST', '/events', { key: h.keys.organizer, body: '', headers: { 'content-type': 'application/json' } });
    assertError(empty, 400, 'bad_request');
    const latin1 = await h.app.handle({
      method: 'POST',
      target: '/events',
      headers: { authorization: `Bearer ${h.keys.organizer}`, 'content-type': 'application/json' },
      body: Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x3a, 0x31, 0x7d]),
      bodyTooLarge: false,
      remoteAddress: '127.0.0.1',
    });
    assert.equal(latin1.status, 400);
    assert.equal(JSON.parse(latin1.body!).error, 'bad_request');
  });

  it('400 bad_request for a target starting with //, even on an unknown path and without a key', async () => {
    for (const target of ['//events', '//', '//nowhere/at/all', 'events', '*']) {
      assertError(await h.request('GET', target), 400, 'bad_request');
    }
  });

  it('serves a target in absolute form as its path (RFC 9112 §3.2.2), a retry of it included', async () => {
    const page = await h.request('GET', 'http://campus.example/v1/events?limit=1', { key: h.keys.reader });
    assert.equal(page.status, 200);
    assert.ok(Array.isArray(page.json.events));
    assertError(await h.request('GET', 'HTTP://campus.example//events', { key: h.keys.reader }), 400, 'bad_request');
    // User information in the target is an error (RFC 9110 §4.2.4), not a path to serve.
    assertError(await h.request('GET', 'http://ada:secret@campus.example/events', { key: h.keys.reader }), 400, 'bad_request');
    const retry = { key: h.keys.organizer, body: eventBody({ start_time: '2099-09-01T17:00:00Z', end_time: '2099-09-01T19:00:00Z' }), headers: { 'idempotency-key': 'absolute-form-retry' } };
    const first = await h.request('POST', '/v1/events', retry);
    assert.equal(first.status, 201);
    const again = await h.request('POST', 'http://campus.example/v1/events', retry);
    assert.equal(again.status, 201);
    assert.equal(again.headers['Idempotent-Replayed'], 'true');
    assert.equal(again.json.id, first.json.id);
    // A registration retried with the event's id percent-encoded is the same request: the first answer again.
    const seat = { key: h.keys.reader, body: { name: 'Ada', email: 'ada@campus.edu' }, headers: { 'idempotency-key': 'encoded-id-retry' } };
    const registered = await h.request('POST', `/events/${first.json.id}/registrations`, seat);
    assert.equal(registered.status, 201, registered.text ?? '');
    const encoded = await h.request('POST', `/events/%65${first.json.id.slice(1)}/registrations`, seat);
    assert.equal(encoded.status, 201, encoded.text ?? '');
    assert.equal(encoded.headers['Idempotent-Replayed'], 'true');
    assert.equal(encoded.json.id, registered.json.id);
  });

  it('400 bad_request for two Authorization headers (seen by the adapter as headerFault)', async () => {
    const response = await handleRaw(h.app, {
      method: 'GET',
      target: '/events',
      headers: { authorization: `Bearer ${h.keys.admin}` },
      headerFault: { error: 'bad_request', message: 'The request has more than one Authorization header; send exactly one.' },
    });
    const body = assertError(response, 400, 'bad_request');
    assert.match(body.message, /Authorization/);
  });

  it('two Idempotency-Key lines are no key: 400 on a write, and no replay of a registration whose event is gone (its 404)', async () => {
    const created = await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody({ start_time: '2099-10-01T17:00:00Z', end_time: '2099-10-01T19:00:00Z' }) });
    const target = `/events/${created.json.id}/registrations`;
    const body = Buffer.from(JSON.stringify({ name: 'Ada', email: 'ada.lines@campus.edu' }));
    const post = (headers: Record<string, string | string[]>, idempotencyKeyLines?: number) =>
      handleRaw(h.app, { method: 'POST', target, headers: { host: 'localhost', authorization: `Bearer ${h.keys.reader}`, 'content-type': 'application/json', ...headers }, body, ...(idempotencyKeyLines === undefined ? {} : { idempotencyKeyLines }) });
    // An embedding that passes the two lines as an array, and the adapter's count of them with node's joined value.
    assert.match(assertError(await post({ 'idempotency-key': ['zz', 'zz'] }), 400, 'bad_request').message, /more than one Idempotency-Key header/);
    assertError(await post({ 'idempotency-key': 'zz, zz' }, 2), 400, 'bad_request');
    assert.equal((await post({ 'idempotency-key': 'zz, zz' }, 1)).status, 201, 'one line holding a comma is one key');
    assert.equal((await h.request('DELETE', `/events/${created.json.id}`, { key: h.keys.organizer })).status, 204);
    assert.equal((await post({ 'idempotency-key': 'zz, zz' }, 1)).headers['Idempotent-Replayed'], 'true', 'the very request is still answered');
    assertError(await post({ 'idempotency-key': 'zz, zz' }, 2), 404, 'not_found');
  });

  it('400 validation_failed with details', async () => {
    const response = await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody({ category: 'party' }) });
    assertError(response, 400, 'validation_failed');
    assert.deepEqual(response.json.details.map((d: { field: string }) => d.field), ['category']);
  });

  it('401 unauthorized without a key, with a Bearer challenge', async () => {
    const response = await h.request('GET', '/events');
    assertError(response, 401, 'unauthorized');
    assert.equal(response.headers['WWW-Authenticate'], 'Bearer realm="campus-events"');
  });

  it('403 forbidden for a reader POST', async () => {
    assertError(await h.request('POST', '/events', { key: h.keys.reader, body: eventBody() }), 403, 'forbidden');
  });

  it('404 not_found for an unknown path', async () => {
    for (const target of ['/nope', '/events/a/b', '/v1', '/v2/events', '/v1/v1/events', '/Events', '/events/']) {
      assertError(await h.request('GET', target, { key: h.keys.reader }), 404, 'not_found');
    }
  });

  it('404 not_found naming the id on GET, PUT and DELETE', async () => {
    for (const [method, body] of [['GET', undefined], ['PUT', {}], ['DELETE', undefined]] as const) {
      const error = assertError(await h.request(method, `/events/${UNKNOWN_ID}`, { key: h.keys.admin, body }), 404, 'not_found');
      assert.ok(error.message.includes(UNKNOWN_ID), error.message);
    }
  });

  it('405 method_not_allowed with Allow', async () => {
    const response = await h.request('PATCH', `/events/${mine.id}`, { key: h.keys.admin, body: {} });
    assertError(response, 405, 'method_not_allowed');
    assert.equal(response.headers['Allow'], 'GET, HEAD, PUT, DELETE, OPTIONS');
  });

  it('409 conflict for capacity below registered_count, naming the id', async () => {
    const event = await createEvent(h, h.keys.organizer, { capacity: 10 });
    await setRegistered(h, event.id, 5);
    const refused = await h.request('PUT', `/events/${event.id}`, { key: h.keys.organizer, body: { capacity: 4 } });
    const body = assertError(refused, 409, 'conflict');
    assert.ok(body.message.includes(event.id));
    const equal = await h.request('PUT', `/events/${event.id}`, { key: h.keys.organizer, body: { capacity: 5 } });
    assert.equal(equal.status, 200, 'capacity equal to registered_count is fine');
    assert.equal(equal.json.registered_count, 5);
  });

  it('412 precondition_failed when If-Match does not match', async () => {
    const response = await h.request('PUT', `/events/${mine.id}`, { key: h.keys.organizer, body: {}, headers: { 'If-Match': '"stale"' } });
    assertError(response, 412, 'precondition_failed');
  });

  it('413 payload_too_large over 64 KiB, asking to close the connection', async () => {
    const response = await h.app.handle({
      method: 'POST',
      target: '/events',
      headers: { authorization: `Bearer ${h.keys.organizer}`, 'content-type': 'application/json' },
      body: Buffer.alloc(0),
      bodyTooLarge: true,
      remoteAddress: '127.0.0.1',
    });
    assert.equal(response.status, 413);
    assert.equal(JSON.parse(response.body!).error, 'payload_too_large');
    assert.equal(response.closeConnection, true);
  });

  it('accepts a body of exactly 64 KiB and refuses one byte more', async () => {
    const base = JSON.stringify(eventBody({ description: '' }));
    const exact = base.replace('"description":""', `"description":"${' '.repeat(64 * 1024 - base.length)}"`);
    assert.equal(Buffer.byteLength(exact), 64 * 1024);
    const atCap = await h.request('POST', '/events', { key: h.keys.organizer, body: exact, headers: { 'content-type': 'application/json' } });
    assertError(atCap, 400, 'validation_failed'); // description over 5000 characters, but the body was read
    const over = await h.request('POST', '/events', { key: h.keys.organizer, body: exact + ' ', headers: { 'content-type': 'application/json' } });
    assertError(over, 413, 'payload_too_large');
  });

  it('415 unsupported_media_type for a body without Content-Type: application/json', async () => {
    const body = JSON.stringify(eventBody());
    for (const type of [undefined, 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'application/jsonx']) {
      const headers: Record<string, string> = type === undefined ? {} : { 'content-type': type };
      const response = await h.request('POST', '/events', { key: h.keys.organizer, body, headers });
      assertError(response, 415, 'unsupported_media_type');
    }
    for (const type of ['application/json', 'Application/JSON', 'application/json; charset=utf-8', 'application/json;charset="UTF-8"']) {
      const response = await h.request('POST', '/events', { key: h.keys.organizer, body, headers: { 'content-type': type } });
      assert.equal(response.status, 201, `${type}: ${response.text}`);
    }
  });

  it('429 rate_limited after the failed-authentication limit (see auth-roles for the details)', async () => {
    const address = '203.0.113.99';
    for (let i = 0; i < 100; i++) assert.equal((await h.request('GET', '/events', { remoteAddress: address })).status, 401);
    assertError(await h.request('GET', '/events', { remoteAddress: address }), 429, 'rate_limited');
  });

  it('sends every error as {error, message[, details]} with the JSON content type', async () => {
    const responses = [
      await h.request('GET', '/nope'),
      await h.request('DELETE', '/events'),
      await h.request('GET', '/events', { key: 'cek_wrong' }),
    ];
    assertError(responses[0]!, 404, 'not_found');
    assertError(responses[1]!, 405, 'method_not_allowed');
    assertError(responses[2]!, 401, 'unauthorized');
  });
});

describe('§3 precedence when a request has several faults', () => {
  let h: Harness;
  let mine: Record<string, any>;
  let others: Record<string, any>;
  before(async () => {
    h = await startHarness();
    mine = await createEvent(h, h.keys.organizer, { capacity: 10 });
    others = await createEvent(h, h.keys.other);
    await setRegistered(h, mine.id, 5);
  });
  after(() => h.close());

  const badJson = { body: '{"capacity":', headers: { 'content-type': 'application/json' } };

  it('request-level 400 beats unknown path, method and key', async () => {
    assertError(await h.request('DELETE', '//nope'), 400, 'bad_request');
    const response = await handleRaw(h.app, { method: 'PATCH', target: '/nowhere', headerFault: { error: 'bad_request', message: 'The request has more than one Authorization header; send exactly one.' } });
    assertError(response, 400, 'bad_request');
  });

  it('unknown path 404 beats method and key', async () => {
    assertError(await h.request('PATCH', '/nowhere'), 404, 'not_found');
  });

  it('method 405 beats key', async () => {
    const response = await h.request('PATCH', `/events/${UNKNOWN_ID}`, badJson);
    assertError(response, 405, 'method_not_allowed');
    assert.ok(response.headers['Allow']);
    assertError(await h.request('DELETE', '/events'), 405, 'method_not_allowed');
  });

  it('unauthenticated PUT on an unknown id with bad JSON: 401', async () => {
    assertError(await h.request('PUT', `/events/${UNKNOWN_ID}`, badJson), 401, 'unauthorized');
    assertError(await h.request('PUT', `/events/${UNKNOWN_ID}`, { ...badJson, key: 'cek_notAKey' }), 401, 'unauthorized');
    assertError(await h.request('DELETE', `/events/${UNKNOWN_ID}`), 401, 'unauthorized');
    assertError(await h.request('GET', `/events/${UNKNOWN_ID}`), 401, 'unauthorized');
  });

  it('an unauthenticated request learns nothing of existence: same answer for a known and an unknown id', async () => {
    const known = await h.request('PUT', `/events/${mine.id}`, { body: { capacity: 1 } });
    const unknown = await h.request('PUT', `/events/${UNKNOWN_ID}`, { body: { capacity: 1 } });
    assertError(known, 401, 'unauthorized');
    assert.deepEqual(known.json, unknown.json);
  });

  it('reader PUT with bad JSON: 403; reader POST with wrong media type and too large: 403', async () => {
    assertError(await h.request('PUT', `/events/${UNKNOWN_ID}`, { ...badJson, key: h.keys.reader }), 403, 'forbidden');
    assertError(await h.request('DELETE', `/events/${UNKNOWN_ID}`, { key: h.keys.reader }), 403, 'forbidden');
    assertError(await h.request('POST', '/events', { key: h.keys.reader, body: TOO_LARGE, headers: { 'content-type': 'text/plain' } }), 403, 'forbidden');
  });

  it('organizer PUT with wrong content-type and too large: 415', async () => {
    assertError(await h.request('PUT', `/events/${UNKNOWN_ID}`, { key: h.keys.organizer, body: TOO_LARGE, headers: { 'content-type': 'text/plain' } }), 415, 'unsupported_media_type');
  });

  it('too large with bad JSON: 413', async () => {
    assertError(await h.request('POST', '/events', { key: h.keys.organizer, body: `{${TOO_LARGE}`, headers: { 'content-type': 'application/json' } }), 413, 'payload_too_large');
  });

  it('bad JSON on an unknown id: 400 bad_request', async () => {
    assertError(await h.request('PUT', `/events/${UNKNOWN_ID}`, { ...badJson, key: h.keys.organizer }), 400, 'bad_request');
  });

  it('unknown id with bad If-Match and invalid fields: 404', async () => {
    const response = await h.request('PUT', `/events/${UNKNOWN_ID}`, { key: h.keys.organizer, body: { capacity: -1 }, headers: { 'If-Match': '"nope"' } });
    assertError(response, 404, 'not_found');
    assertError(await h.request('DELETE', `/events/${UNKNOWN_ID}`, { key: h.keys.organizer, headers: { 'If-Match': '"nope"' } }), 404, 'not_found');
  });

  it('another\'s event with bad If-Match and invalid fields: 403', async () => {
    const response = await h.request('PUT', `/events/${others.id}`, { key: h.keys.organizer, body: { capacity: -1 }, headers: { 'If-Match': '"nope"' } });
    assertError(response, 403, 'forbidden');
    assertError(await h.request('DELETE', `/events/${others.id}`, { key: h.keys.organizer, headers: { 'If-Match': '"nope"' } }), 403, 'forbidden');
  });

  it('bad If-Match with invalid fields and a capacity conflict: 412', async () => {
    const response = await h.request('PUT', `/events/${mine.id}`, { key: h.keys.organizer, body: { capacity: 1, title: '' }, headers: { 'If-Match': '"nope"' } });
    assertError(response, 412, 'precondition_failed');
    assertError(await h.request('PUT', `/events/${mine.id}`, { key: h.keys.organizer, body: { capacity: 1 }, headers: { 'If-Match': '"nope"' } }), 412, 'precondition_failed');
  });

  it('invalid fields with a capacity conflict: 400 validation_failed', async () => {
    const response = await h.request('PUT', `/events/${mine.id}`, { key: h.keys.organizer, body: { capacity: 1, title: '' } });
    assertError(response, 400, 'validation_failed');
    assert.deepEqual(detailFields(response), ['title']);
  });

  it('only the capacity conflict: 409, and nothing changed', async () => {
    assertError(await h.request('PUT', `/events/${mine.id}`, { key: h.keys.organizer, body: { capacity: 1, title: 'Renamed' } }), 409, 'conflict');
    const read = await h.request('GET', `/events/${mine.id}`, { key: h.keys.organizer });
    assert.equal(read.json.title, mine.title);
    assert.equal(read.json.capacity, 10);
  });
});

describe('§3 rate limit in the precedence chain', () => {
  let h: Harness;
  before(async () => (h = await startHarness({ rateLimit: 1 })));
  after(() => h.close());

  it('429 beats the role 403 and the body errors; 401 beats 429', async () => {
    assert.equal((await h.request('GET', '/events', { key: h.keys.reader })).status, 200);
    assertError(await h.request('POST', '/events', { key: h.keys.reader, body: '{', headers: { 'content-type': 'application/json' } }), 429, 'rate_limited');
    assertError(await h.request('PUT', `/events/${UNKNOWN_ID}`, { key: h.keys.reader, body: '{' }), 429, 'rate_limited');
    assertError(await h.request('GET', '/events', { key: 'cek_unknown' }), 401, 'unauthorized');
  });

  it('404 and 405 beat 429', async () => {
    assert.equal((await h.request('GET', '/events', { key: h.keys.other })).status, 200);
    assertError(await h.request('GET', '/nowhere', { key: h.keys.other }), 404, 'not_found');
    assertError(await h.request('PATCH', '/events', { key: h.keys.other }), 405, 'method_not_allowed');
  });
});
