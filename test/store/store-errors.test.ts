// The store's errors: their names, messages and what they carry, which the HTTP edge maps without knowing the store.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AlreadyAnswered, StoreUnavailable, cannotWriteError, describeWriteError } from '../../src/store/store-errors.js';
import { UncertainWriteError } from '../../src/store/uncertain-write.js';

test('StoreUnavailable and AlreadyAnswered are Errors with their own names; AlreadyAnswered carries the entry and names its key and seq', () => {
  const unavailable = new StoreUnavailable('no disk');
  assert.ok(unavailable instanceof Error);
  assert.equal(unavailable.name, 'StoreUnavailable');
  assert.equal(unavailable.message, 'no disk');
  const entry = { key: 'retry "1"', keyId: 'k1', requestHash: 'h', atMs: 5, seq: 42, answer: { kind: 'event' as const, view: '{}', createdAt: '2031-01-01T00:00:00.000Z' } };
  const answered = new AlreadyAnswered(entry);
  assert.ok(answered instanceof Error);
  assert.equal(answered.name, 'AlreadyAnswered');
  assert.equal(answered.entry, entry);
  assert.equal(answered.message, 'Idempotency-Key "retry \\"1\\"" was answered at seq 42');
  assert.match(String(answered), /^AlreadyAnswered: /);
});

test('UncertainWriteError names both failures, keeps the first as its cause, and carries its code only when it is a string', () => {
  const cause = Object.assign(new Error('EIO: sync failed'), { code: 'EIO' });
  const error = new UncertainWriteError(cause, new Error('truncate failed'));
  assert.ok(error instanceof Error);
  assert.equal(error.name, 'UncertainWriteError');
  assert.equal(error.message, 'a write failed (Error: EIO: sync failed) and undoing it failed too (Error: truncate failed)');
  assert.equal(error.cause, cause);
  assert.equal(error.code, 'EIO');
  assert.equal(new UncertainWriteError(Object.assign(new Error('x'), { code: 5 }), 'undo').code, undefined);
  assert.equal(new UncertainWriteError(null, 'undo').code, undefined);
  assert.equal(new UncertainWriteError(undefined, 'undo').code, undefined);
  assert.equal(new UncertainWriteError(28, 'undo').code, undefined);
  assert.equal(new UncertainWriteError('ENOSPC', 'undo').code, undefined);
  assert.equal(new UncertainWriteError('ENOSPC', 'undo').message, 'a write failed (ENOSPC) and undoing it failed too (undo)');
});

test('describeWriteError() explains the disk errors it knows, names other codes as they are, and says nothing of anything else', () => {
  const coded = (code: unknown): unknown => Object.assign(new Error('m'), { code });
  assert.equal(describeWriteError(coded('ENOSPC')), 'ENOSPC: no space left on the disk');
  assert.equal(describeWriteError(coded('EDQUOT')), 'EDQUOT: disk quota exceeded');
  assert.equal(describeWriteError(coded('EFBIG')), 'EFBIG: the log reached the largest file size allowed');
  assert.equal(describeWriteError(coded('EIO')), 'EIO: input/output error on the disk');
  assert.equal(describeWriteError(coded('EROFS')), 'EROFS: the file system is read-only');
  assert.equal(describeWriteError(coded('EBUSY')), 'EBUSY');
  assert.equal(describeWriteError(coded('toString')), 'toString');
  assert.equal(describeWriteError(coded(28)), 'an unexpected write error');
  assert.equal(describeWriteError(coded('')), 'an unexpected write error', 'an empty code leaves no empty reason in the 503');
  assert.equal(describeWriteError(new Error('no code')), 'an unexpected write error');
  assert.equal(describeWriteError(null), 'an unexpected write error');
  assert.equal(describeWriteError('ENOSPC'), 'an unexpected write error');
  assert.equal(describeWriteError(undefined), 'an unexpected write error');
  assert.equal(describeWriteError(new UncertainWriteError(coded('EIO'), 'undo')), 'EIO: input/output error on the disk');
});

test('cannotWriteError() says nothing was saved, or, when the undo failed too, that it is uncertain', () => {
  const plain = cannotWriteError('ENOSPC: no space left on the disk');
  assert.ok(plain instanceof StoreUnavailable);
  assert.equal(plain.message, 'The store cannot write (ENOSPC: no space left on the disk); nothing of this request was saved. Writes are refused until the server is restarted.');
  assert.equal(cannotWriteError('EIO', false).message, 'The store cannot write (EIO); nothing of this request was saved. Writes are refused until the server is restarted.');
  assert.equal(cannotWriteError('EIO', true).message, 'The store cannot write (EIO), and undoing a failed write failed too: whether the last writes were saved is uncertain until the server is restarted. Writes are refused until then.');
});
