// errorCode and shownFailure: an error's code read safely, and what a client may hear of a failure.
import assert from 'node:assert/strict';
import test from 'node:test';
import { errorCode, shownFailure } from '../../src/lib/error-code.js';

test('errorCode: a string code of whatever was thrown; nothing for an empty, non-string or missing one', () => {
  assert.equal(errorCode(Object.assign(new Error('no such file'), { code: 'ENOENT' })), 'ENOENT');
  assert.equal(errorCode({ code: '57P01' }), '57P01');
  assert.equal(errorCode({ code: '' }), undefined);
  assert.equal(errorCode({ code: 5 }), undefined);
  assert.equal(errorCode(new Error('plain')), undefined);
  assert.equal(errorCode(null), undefined);
  assert.equal(errorCode('ENOENT'), undefined);
});

test('shownFailure: the code, never the message (it can name a host), or "no answer"', () => {
  assert.equal(shownFailure(Object.assign(new Error('connect ECONNREFUSED db.campus.internal:5432'), { code: 'ECONNREFUSED' })), 'ECONNREFUSED');
  assert.equal(shownFailure(new Error('timeout talking to db.campus.internal')), 'no answer');
});
