// Where a request's key is (Bearer, ?key=) and the 401 of a request without a good one (API.md §2, §3).
import assert from 'node:assert/strict';
import test from 'node:test';
import { bearerSecret, queryKey, unauthorized } from '../../src/auth/credentials.js';
import { ApiError } from '../../src/http/errors.js';
import type { PlainRequest } from '../../src/http/types.js';

const request = (headers: PlainRequest['headers'], target = '/events'): PlainRequest => ({ method: 'GET', target, headers, body: null, bodyTooLarge: false, remoteAddress: '127.0.0.1' });

test('bearerSecret: the key after "Bearer " in any case, trimmed; nothing for another scheme or an empty one', () => {
  assert.equal(bearerSecret(request({ authorization: 'Bearer cek_abc' })), 'cek_abc');
  assert.equal(bearerSecret(request({ authorization: 'bEaReR  cek_abc ' })), 'cek_abc');
  assert.equal(bearerSecret(request({ authorization: 'Basic dXNlcjpwYXNz' })), undefined);
  assert.equal(bearerSecret(request({ authorization: 'Bearer ' })), undefined);
  assert.equal(bearerSecret(request({})), undefined);
});

test('queryKey: ?key= once and alone; twice, or beside an Authorization header, is a 400', () => {
  assert.equal(queryKey(request({}), 'key=cek_feed&x=1'), 'cek_feed');
  assert.equal(queryKey(request({}), 'x=1'), undefined);
  assert.throws(() => queryKey(request({}), 'key=a&key=b'), (error: unknown) => error instanceof ApiError && error.status === 400);
  assert.throws(() => queryKey(request({ authorization: 'Bearer cek_x' }), 'key=a'), (error: unknown) => error instanceof ApiError && /exactly one/.test(error.message));
});

test('unauthorized: a 401 whose challenge says invalid_token only when a key was sent, one message for every refused ?key=', () => {
  const none = unauthorized(request({}), undefined, false);
  assert.equal(none.status, 401);
  assert.equal(none.headers?.['WWW-Authenticate'], 'Bearer realm="campus-events"');
  const bad = unauthorized(request({}), 'cek_nope', false);
  assert.equal(bad.headers?.['WWW-Authenticate'], 'Bearer realm="campus-events", error="invalid_token"');
  assert.equal(unauthorized(request({}, '/events.ics?key=a'), 'a', true).message, unauthorized(request({}, '/events.ics?key=b'), 'b', true).message);
});
