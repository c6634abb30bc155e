// No client input may produce a 500: odd targets, query strings, methods, headers and bodies, through the pure core.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventBody, startHarness, type Harness, type TestResponse } from '../helpers/harness.js';
import { createEvent } from './support.js';

function assertNoServerError(response: TestResponse, what: string): void {
  assert.ok(response.status < 500, `${what}: ${response.status} ${response.text}`);
  if (response.status >= 400 && response.text !== null) {
    assert.equal(typeof response.json.error, 'string', what);
    assert.equal(typeof response.json.message, 'string', what);
  }
}

describe('no client input produces a 500', () => {
  let h: Harness;
  let id: string;
  before(async () => {
    h = await startHarness();
    id = (await createEvent(h, h.keys.organizer)).id;
  });
  after(() => h.close());

  it('odd targets', async () => {
    const targets = [
      '/events/%00', `/events/${'a'.repeat(10_000)}`, '/events?%zz=1', '/events?limit=99999999999999999999', '/events?page=9007199254740991',
      '/events?page=99999999999999999', '/events?limit=100&page=9007199254740991', '/events?start_date=0000-01-01', '/events?start_date=9999-12-31&end_date=9999-12-31',
      '/events?category', '/events?=', '/events?&&&', '/events?limit=%31%30', '/events#fragment', '/v1/', '/events/..%2f..', '/events/__proto__',
      '/events/constructor', '/events/toString', '/__proto__', '/events?__proto__=1', '/events?constructor=1', '/events?category=academic%00',
      `/events?${'x'.repeat(10_000)}=1`, '/events/%E0%A4%A', '/events?start_date=2026-02-29', '/\\events', '/events;x=1', '/events//x',
    ];
    for (const target of targets) {
      for (const method of ['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']) {
        const response = await h.request(method, target, { key: h.keys.admin, body: method === 'PUT' ? {} : undefined });
        assertNoServerError(response, `${method} ${target}`);
      }
    }
  });

  it('odd methods', async () => {
    for (const method of ['get', 'CONNECT', 'TRACE', 'PROPFIND', 'PATCH', 'M-SEARCH', '']) {
      for (const target of ['/events', `/events/${id}`, '/health', '/nowhere']) {
        assertNoServerError(await h.request(method, target, { key: h.keys.admin }), `${method} ${target}`);
      }
    }
  });

  it('odd headers', async () => {
    const headerSets: Record<string, string>[] = [
      { 'If-Match': 'x'.repeat(10_000) },
      { 'If-Match': '' },
      { 'If-None-Match': ',,,' },
      { 'If-None-Match': 'W/' },
      { Authorization: `Bearer ${'x'.repeat(10_000)}` },
      { Authorization: 'Bearer cek_' + '\u00e9'.repeat(39) },
      { 'X-Request-Id': 'x'.repeat(10_000) },
      { Origin: 'null' },
      { 'Content-Type': '' },
      { 'Content-Type': ';;;' },
      { 'Content-Type': 'application/json; charset' },
      { 'Content-Type': 'application/json; =utf-8' },
    ];
    for (const headers of headerSets) {
      for (const [method, target] of [['GET', `/events/${id}`], ['PUT', `/events/${id}`], ['POST', '/events'], ['DELETE', '/events/evt_nopeNopeNopeNope']]) {
        const withKey = headers['Authorization'] === undefined ? { key: h.keys.admin } : {};
        const body = method === 'PUT' || method === 'POST' ? JSON.stringify(eventBody()) : undefined;
        const response = await h.request(method!, target!, { ...withKey, headers: { 'content-type': 'application/json', ...headers }, body });
        assertNoServerError(response, `${method} ${target} ${JSON.stringify(headers).slice(0, 80)}`);
      }
    }
  });

  it('odd bodies', async () => {
    const bodies = [
      '{"__proto__":{"title":"x"}}', '{"constructor":{}}', '{"organizer":{"__proto__":{}}}', '{"organizer":{"name":"a","email":"a@b.co","x":1}}',
      '{"organizer":null}', '{"organizer":[]}', '{"organizer":{"name":{"a":1},"email":["x"]}}', '{"title":"\\u0000"}', '{"title":"\\ud800"}',
      '{"start_time":"+275760-09-13T00:00:00Z"}', '{"start_time":"2026-09-01T17:00:00.99999999999999999999Z"}', '{"start_time":"2026-09-01T24:00:00Z"}',
      '{"start_time":"2026-09-01T17:00:00+99:99"}', '{"start_time":"1969-12-31T23:59:59Z"}', '{"end_time":"9999-12-31T23:59:59.999Z"}',
      '{"capacity":1e400}', '{"capacity":-0}', '{"capacity":1e5}', '{"capacity":100000.0000000000001}', '{"title":"a","title":"b"}',
      `{${Array.from({ length: 3000 }, (_, i) => `"f${i}":${i}`).join(',')}}`, `{"title":"${'t'.repeat(60_000)}"}`, `{"${'k'.repeat(60_000)}":1}`,
      '{"description":"\\r\\n\\t ok"}', '{"category":{"toString":"academic"}}', '{"registered_count":null,"id":null,"created_at":null}',
      '{"id":"' + id + '"}', '{}', ' {} ', '\ufeff{}', '{"a":1}garbage', '{"a":1,}', "{'a':1}", '{"a":NaN}', '\u0000',
    ];
    for (const body of bodies) {
      for (const [method, target, key] of [['POST', '/events', h.keys.admin], ['POST', '/events', h.keys.organizer], ['PUT', `/events/${id}`, h.keys.admin], ['PUT', `/events/${id}`, h.keys.organizer]]) {
        const response = await h.request(method!, target!, { key, body, headers: { 'content-type': 'application/json' } });
        assertNoServerError(response, `${method} ${target} ${body.slice(0, 60)}`);
      }
    }
  });
});
