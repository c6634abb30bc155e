// freshOnNotFound(): a 404 waits for the store to catch up with other instances once, then the route runs again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freshOnNotFound } from '../../src/http/fresh-on-not-found.js';
import { ApiError } from '../../src/http/errors.js';
import { StoreUnavailable } from '../../src/store/store-errors.js';
import type { RequestContext, Route } from '../../src/http/route.js';

/** A request for an id of the shape instances make: one another instance may have written a moment ago. */
const context = { params: { id: 'evt_4kQ9zW2mR7tY1uP3sX8vB0' } } as unknown as RequestContext;

/** A route that answers 404 until `known` is true. */
function routeOver(state: { known: boolean; runs: number }, async = false): Route {
  return {
    name: 'test',
    auth: true,
    body: false,
    handle: () => {
      state.runs++;
      if (!state.known) throw new ApiError('not_found', 'No event has id "evt_x".');
      return async ? Promise.resolve({ status: 200, body: 'found' }) : { status: 200, body: 'found' };
    },
  };
}

test('freshOnNotFound() runs the route again after a catch-up that brought something new, and then finds it', async () => {
  const state = { known: false, runs: 0 };
  const route = freshOnNotFound(routeOver(state), { catchUpBeforeDenying: () => Promise.resolve((state.known = true)) });
  assert.deepEqual(await route.handle(context), { status: 200, body: 'found' });
  assert.equal(state.runs, 2);
});

test('freshOnNotFound() answers the 404 when the catch-up confirmed there is nothing new', async () => {
  const state = { known: false, runs: 0 };
  const route = freshOnNotFound(routeOver(state), { catchUpBeforeDenying: () => Promise.resolve(false) });
  await assert.rejects(Promise.resolve(route.handle(context)), (error) => error instanceof ApiError && error.code === 'not_found');
  assert.equal(state.runs, 1);
});

test('freshOnNotFound() answers the 503 the store gives when it cannot tell (the database is away), never a 404 or 410 from memory alone', async () => {
  const away = new StoreUnavailable('The database cannot be reached (ECONNREFUSED), so this instance cannot tell whether another one has written it; this request changed nothing. Retry in a moment.', { retryAfterSeconds: 1 });
  for (const code of ['not_found', 'gone'] as const) {
    const state = { runs: 0 };
    const route = freshOnNotFound({ name: 't', auth: true, body: false, handle: () => { state.runs++; throw new ApiError(code, 'no'); } }, { catchUpBeforeDenying: () => Promise.reject(away) });
    await assert.rejects(Promise.resolve(route.handle(context)), (error) => error === away);
    assert.equal(state.runs, 1);
  }
});

test('freshOnNotFound() answers the 404 of an id no instance could have made at once, asking nothing of the store (away or not)', async () => {
  for (const params of [{ id: 'nope' }, { id: 'evt_short' }, { id: 'evt_4kQ9zW2mR7tY1uP3sX8vB0', registration: 'reg_!' }]) {
    const state = { known: false, runs: 0 };
    let asked = 0;
    const route = freshOnNotFound(routeOver(state), { catchUpBeforeDenying: () => Promise.reject(new StoreUnavailable(`asked ${++asked}`)) });
    await assert.rejects(Promise.resolve(route.handle({ params } as unknown as RequestContext)), (error) => error instanceof ApiError && error.code === 'not_found', JSON.stringify(params));
    assert.deepEqual([asked, state.runs], [0, 1], JSON.stringify(params));
  }
});

test('freshOnNotFound() keeps a synchronous answer synchronous and never asks the store when the id is known', () => {
  const state = { known: true, runs: 0 };
  let asked = 0;
  const route = freshOnNotFound(routeOver(state), { catchUpBeforeDenying: () => Promise.resolve(asked++ > 0) });
  assert.deepEqual(route.handle(context), { status: 200, body: 'found' });
  assert.equal(asked, 0);
});

test('freshOnNotFound() passes other errors through untouched', async () => {
  const route = freshOnNotFound({ name: 't', auth: true, body: false, handle: () => Promise.reject(new ApiError('forbidden', 'no')) }, { catchUpBeforeDenying: () => Promise.resolve(true) });
  await assert.rejects(Promise.resolve(route.handle(context)), (error) => error instanceof ApiError && error.code === 'forbidden');
});

test('freshOnNotFound() runs the route again after a catch-up on a 410 too: a /changes position another instance gave, ahead of this one', async () => {
  let applied = 2;
  const changes: Route = {
    name: 'listChanges',
    auth: true,
    body: false,
    handle: () => {
      if (5 > applied) throw new ApiError('gone', `since 5 is newer than the last change (${applied}).`);
      return { status: 200, body: 'page' };
    },
  };
  const route = freshOnNotFound(changes, { catchUpBeforeDenying: () => Promise.resolve((applied = 7) > 0) });
  assert.deepEqual(await route.handle(context), { status: 200, body: 'page' });
  // Still ahead after the catch-up (the log was restored from an older copy): the 410 stands.
  applied = 2;
  const behind = freshOnNotFound(changes, { catchUpBeforeDenying: () => Promise.resolve(false) });
  await assert.rejects(Promise.resolve(behind.handle(context)), (error) => error instanceof ApiError && error.code === 'gone');
});
