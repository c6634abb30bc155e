// clientRequestId: which X-Request-Id a client sends is answered with (API.md §5).
import assert from 'node:assert/strict';
import test from 'node:test';
import { clientRequestId } from '../../src/http/request-id.js';

test('clientRequestId: 1–128 characters of [A-Za-z0-9._~:/+=-] are the client\'s id; anything else is not', () => {
  assert.equal(clientRequestId('req-7:a/b+c=d~e.f_g'), 'req-7:a/b+c=d~e.f_g');
  assert.equal(clientRequestId('x'.repeat(128)), 'x'.repeat(128));
  assert.equal(clientRequestId('x'.repeat(129)), undefined);
  assert.equal(clientRequestId(''), undefined);
  assert.equal(clientRequestId('has space'), undefined);
  assert.equal(clientRequestId(['a', 'b']), undefined);
  assert.equal(clientRequestId(undefined), undefined);
});
