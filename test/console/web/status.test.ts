// statusOf(), statusLabel(), statusSentence(), submitLabel(), outcomeSentence(), clip(): a status is always told in words (API.md §14).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clip, isReturned, outcomeSentence, statusLabel, statusOf, statusSentence, submitLabel } from '../../../src/console/web/status.js';

test('statusOf() reads an absent status as published, as the API leaves it out then', () => {
  assert.equal(statusOf({}), 'published');
  assert.equal(statusOf({ status: 'cancelled' }), 'cancelled');
});

test('statusLabel() names every status but published in words; a draft with a reviewer\'s note is "Returned for changes"', () => {
  assert.deepEqual(
    [{ status: 'draft' as const }, { status: 'draft' as const, review_note: 'Add a room.' }, { status: 'pending' as const }, { status: 'cancelled' as const }, {}].map(statusLabel),
    ['Draft', 'Returned for changes', 'Pending approval', 'Cancelled', undefined],
  );
  assert.equal(isReturned({ status: 'pending', review_note: 'stale' }), false, 'only a draft is returned');
});

test('statusSentence() says who sees it, for an event and a series', () => {
  assert.match(statusSentence({ status: 'draft' }, 'event'), /^Only its organizer and administrators see this event\.$/);
  assert.match(statusSentence({ status: 'draft', review_note: 'x' }, 'event'), /sent this event back.*submit it again/);
  assert.match(statusSentence({ status: 'pending' }, 'series'), /reviews this series before others see it/);
  assert.match(statusSentence({ status: 'cancelled' }, 'event'), /^This event stays in lists and calendars, marked as called off/);
  assert.equal(statusSentence({}, 'event'), 'Everyone can see this event.');
});

test('submitLabel() is "Publish" for an admin or with approval off, else "Submit for approval" (approval unknown included)', () => {
  assert.deepEqual(
    (['off', 'required', 'unknown'] as const).map((approval) => [submitLabel('admin', approval), submitLabel('organizer', approval)]),
    [
      ['Publish', 'Publish'],
      ['Publish', 'Submit for approval'],
      ['Publish', 'Submit for approval'],
    ],
  );
});

test('outcomeSentence() tells what the server did from the status it answered with (a submit may publish or wait)', () => {
  assert.equal(outcomeSentence('Concert', 'published'), '“Concert” is published: everyone can see it now.');
  assert.equal(outcomeSentence('Concert', 'pending'), '“Concert” is submitted for approval: an administrator reviews it before others see it.');
  assert.match(outcomeSentence('Concert', 'draft'), /is a draft/);
  assert.match(outcomeSentence('Concert', 'cancelled'), /is cancelled/);
});

test('clip() keeps a short text, and cuts a long one to the limit in code points, ellipsis included', () => {
  assert.equal(clip('Storm warning'), 'Storm warning');
  const long = `${'é'.repeat(50)} ${'😀'.repeat(100)}`;
  const cut = clip(long, 60);
  assert.equal([...cut].length, 60);
  assert.ok(cut.endsWith('…'));
  assert.equal(clip('abc', 3), 'abc');
});
