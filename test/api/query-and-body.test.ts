// Query parameters and bodies on routes that take none (API.md §3: unknown query parameter → 400; a body not declared JSON → 415).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../helpers/harness.js';
import { createEvent } from './support.js';

describe('routes that take no query or body', () => {
  let h: Harness;
  before(async () => (h = await startHarness()));
  after(() => h.close());

  it('answer 400 naming the query when one is sent', async () => {
    const { id } = await createEvent(h, h.keys.organizer);
    for (const [method, target] of [['GET', `/events/${id}?foo=1`], ['DELETE', `/events/${id}?force=true`], ['GET', '/health?x=1'], ['GET', '/openapi.json?v=2']] as const) {
      const response = await h.request(method, target, { key: h.keys.organizer });
      assert.equal(response.status, 400, `${method} ${target}`);
      assert.equal(response.json.error, 'bad_request');
      assert.match(response.json.message, /query/);
    }
    assert.equal((await h.request('GET', `/events/${id}`, { key: h.keys.organizer })).status, 200, 'the event is still there');
  });

  it('answer 415 to a body that is not declared JSON, and leave the event alone', async () => {
    const { id } = await createEvent(h, h.keys.organizer);
    const response = await h.request('DELETE', `/events/${id}`, { key: h.keys.organizer, body: 'hello', headers: { 'content-type': 'text/plain' } });
    assert.equal(response.status, 415);
    assert.equal(response.json.error, 'unsupported_media_type');
    assert.equal((await h.request('GET', `/events/${id}`, { key: h.keys.organizer })).status, 200);
    const withJson = await h.request('DELETE', `/events/${id}`, { key: h.keys.organizer, body: {} });
    assert.equal(withJson.status, 204, 'a JSON body on DELETE is ignored');
  });

  it('name the time field the client sent when start_time lands after the stored end_time', async () => {
    const { id } = await createEvent(h, h.keys.organizer);
    const response = await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { start_time: '2030-01-01T00:00:00Z' } });
    assert.equal(response.status, 400);
    assert.deepEqual(response.json.details.map((d: { field: string }) => d.field), ['start_time']);
  });
});
