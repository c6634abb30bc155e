// unreachableDatabase(): a connection that could not be made, in words, naming where it went.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect } from 'node:net';
import { unreachableDatabase, unreachableWhy } from '../../../src/store/postgres/unreachable.js';

/** The error Node gives for a connection to `host`:`port` (a real one, not a made-up object). */
function failureOf(host: string, port: number): Promise<Error> {
  return new Promise((resolve) => connect({ host, port }).on('error', resolve));
}

test('a refused connection names the address and port, an IPv6 one in brackets; an unknown host names the host', async () => {
  assert.equal(unreachableDatabase(await failureOf('127.0.0.1', 1)), "the database at 127.0.0.1:1 cannot be reached: nothing accepts connections there (ECONNREFUSED). Check the host and port in the store's URL, and that PostgreSQL runs there");
  assert.match(unreachableDatabase(await failureOf('::1', 1)) ?? '', /^the database at \[::1\]:1 cannot be reached: nothing accepts connections there \(ECONNREFUSED\)\./);
  assert.match(unreachableDatabase(await failureOf('nosuchhost.invalid', 5432)) ?? '', /^the database at nosuchhost\.invalid cannot be reached: (no such host \(ENOTFOUND\)|its name could not be looked up just now \(EAI_AGAIN\))\./);
});

test('any other error is left to its own message', () => {
  assert.equal(unreachableDatabase(Object.assign(new Error('password authentication failed for user "campus"'), { code: '28P01' })), undefined);
  assert.equal(unreachableWhy(Object.assign(new Error('open'), { code: 'ENOENT', syscall: 'open', path: '/x' })), undefined);
  assert.equal(unreachableWhy('ECONNREFUSED'), undefined);
});
