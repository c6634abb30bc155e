// Broken percent-encoding in any query parameter of any route is a 400 bad_request naming the parameter (API.md §5),
// checked once where the pipeline hands the query to a route: every parameter of every route the OpenAPI document lists.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../helpers/harness.js';
import { assertError, createEvent } from './support.js';

/** Spellings URLSearchParams reads as text (a literal %, or U+FFFD) instead of refusing. */
const BROKEN = ['alpha%', '%zz', '%E0%A4', '50%', '%C0%AF'];

describe('broken percent-encoding in a query (issue 33.6)', () => {
  let h: Harness;
  const ids: Record<string, string> = {};
  before(async () => {
    h = await startHarness({ webhookHosts: ['127.0.0.1'] });
    ids['event'] = (await createEvent(h, h.keys.organizer)).id;
    const series = await h.request('POST', '/series', { key: h.keys.organizer, body: { title: 'Seminar', category: 'academic', location: 'Room 1', capacity: 5, start_time: '2027-09-01T09:00:00Z', end_time: '2027-09-01T10:00:00Z', recurrence: 'FREQ=DAILY;COUNT=2' } });
    ids['series'] = series.json.id;
    const webhook = await h.request('POST', '/webhooks', { key: h.keys.admin, body: { url: 'http://127.0.0.1:9/hook' } });
    ids['webhook'] = webhook.json.id;
  });
  after(() => h.close());

  /** The path of an OpenAPI path template, with the ids of real resources. */
  function concrete(template: string): string {
    if (template.startsWith('/webhooks/')) return template.replace('{id}', ids['webhook']!);
    if (template.startsWith('/series/')) return template.replace('{id}', ids['series']!);
    return template.replace('{id}', ids['event']!).replace(/\{[a-z_]+\}/g, 'reg_0000000000000000000000');
  }

  async function operations(): Promise<{ path: string; query: string[] }[]> {
    const document = (await h.request('GET', '/openapi.json')).json;
    const found: { path: string; query: string[] }[] = [];
    for (const [path, methods] of Object.entries<Record<string, any>>(document.paths)) {
      const get = methods['get'];
      // Every path documents its 405s too: only a GET that answers 2xx is a route.
      if (get === undefined || !Object.keys(get.responses ?? {}).some((status) => status.startsWith('2'))) continue;
      const parameters = (get.parameters ?? []).map((each: any) => (each.$ref === undefined ? each : document.components.parameters[each.$ref.split('/').pop()]));
      found.push({ path, query: parameters.filter((each: any) => each.in === 'query').map((each: any) => each.name) });
    }
    return found;
  }

  it('every query parameter of every GET route answers 400 naming it, under / and /v1', async () => {
    const all = await operations();
    const withQuery = all.filter((each) => each.query.length > 0);
    assert.deepEqual(withQuery.map((each) => each.path).sort(), ['/changes', '/events', '/events.ics', '/events/{id}/registrations', '/series'], 'the routes that take a query');
    for (const { path, query } of withQuery) {
      for (const name of query) {
        for (const broken of BROKEN) {
          for (const prefix of ['', '/v1']) {
            // Valid companions first, so the broken one is not refused for something else.
            const target = `${prefix}${concrete(path)}?${path === '/changes' && name !== 'since' ? 'since=0&' : ''}${name}=${broken}`;
            const response = await h.request('GET', target, { key: name === 'key' ? undefined : h.keys.admin });
            const error = assertError(response, 400, 'bad_request');
            assert.match(error.message, new RegExp(`"${name}" is not valid percent-encoded UTF-8`), target);
          }
        }
      }
    }
  });

  it('a broken query on a route that takes none is a 400 too, and a valid %25 still searches for a literal %', async () => {
    for (const { path, query } of await operations()) {
      if (query.length > 0 || path.includes('openapi') || path === '/health') continue;
      assertError(await h.request('GET', `${concrete(path)}?q=%zz`, { key: h.keys.admin }), 400, 'bad_request');
    }
    const literal = await h.request('GET', '/events?q=50%25', { key: h.keys.reader });
    assert.equal(literal.status, 200);
    const spaced = await h.request('GET', '/events?q=chem+lab&category=academic,social', { key: h.keys.reader });
    assert.equal(spaced.status, 200);
  });

  it('a broken query is request-level (§3): 400 before an unknown path, a method not allowed and a missing key, on every route alike', async () => {
    // Before: /events?q=%zz without a key was a 401 while /events.ics?q=%zz was a 400, and /nope?q=%zz a 404.
    for (const target of ['/events?q=%zz', '/v1/events?q=50%', '/changes?since=0&q=%zz', `/events/${ids['event']}?x=%E0%A4`, '/events.ics?q=%zz', '/nope?q=%zz', '/v1/nope?limit=%']) {
      const error = assertError(await h.request('GET', target), 400, 'bad_request');
      assert.match(error.message, /is not valid percent-encoded UTF-8/, target);
    }
    assertError(await h.request('PATCH', '/events?q=%zz', { key: h.keys.admin }), 400, 'bad_request');
    assertError(await h.request('GET', '/events?q=%zz', { key: 'cek_not-a-key-at-all' }), 400, 'bad_request');
    const options = await h.request('OPTIONS', '/events?q=%zz');
    assertError(options, 400, 'bad_request');
  });

  it('an unknown query parameter on a route that takes none is named alone, not quoted with the rest of the query', async () => {
    const error = assertError(await h.request('GET', '/me?foo=1&bar=2', { key: h.keys.reader }), 400, 'bad_request');
    assert.match(error.message, /^Unknown query parameter "foo": GET \/me takes no query parameters\.$/);
    const named = assertError(await h.request('GET', `/events/${ids['event']}?st%61tus=x`, { key: h.keys.reader }), 400, 'bad_request');
    assert.match(named.message, /"status"/, 'the name decoded');
  });

  it('HEAD answers the same 400 without a body', async () => {
    const response = await h.request('HEAD', '/events?q=%zz', { key: h.keys.reader });
    assert.equal(response.status, 400);
  });
});
