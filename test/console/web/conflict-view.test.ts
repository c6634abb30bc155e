// compareVersions(): the three versions of an edited form (as read, as typed, as stored now) give the conflict screen
// its rows, and "Keep my changes" its merge: a field the person changed keeps what they typed, any other the stored value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareVersions, formValuesOf } from '../../../src/console/web/conflict-view.js';

const NAMES = ['title', 'location', 'capacity', 'description'];
const BASE = { title: 'Film night', location: 'Hall A', capacity: '30', description: '' };

test('compareVersions() shows a row for each field they changed to a value other than what the form holds', () => {
  const mine = { ...BASE, title: 'Film night (with snacks)', capacity: '60' };
  const theirs = { ...BASE, title: 'Film night: Metropolis', location: 'Cinema 2' };
  const comparison = compareVersions(NAMES, BASE, mine, theirs);
  assert.deepEqual(comparison.rows, ['title', 'location']);
  assert.deepEqual(comparison.typed, ['title', 'capacity']);
  assert.deepEqual(comparison.wouldLose, ['title', 'capacity']);
  assert.deepEqual(comparison.merged, { title: 'Film night (with snacks)', location: 'Cinema 2', capacity: '60', description: '' });
});

test('compareVersions() has no row when both typed the same value, or when they changed nothing on the form', () => {
  const same = compareVersions(NAMES, BASE, { ...BASE, title: 'New' }, { ...BASE, title: 'New' });
  assert.deepEqual([same.rows, same.wouldLose], [[], []]);
  const untouched = compareVersions(NAMES, BASE, { ...BASE, capacity: '31' }, BASE);
  assert.deepEqual(untouched.rows, []);
  assert.deepEqual(untouched.merged, { ...BASE, capacity: '31' });
});

test('compareVersions() counts a field typed back to its old value as untouched: theirs is kept', () => {
  const comparison = compareVersions(NAMES, BASE, BASE, { ...BASE, location: 'Cinema 2' });
  assert.deepEqual([comparison.rows, comparison.typed], [['location'], []]);
  assert.equal(comparison.merged['location'], 'Cinema 2');
});

test('formValuesOf() gives times as the form holds them, in the zone it is typed in', () => {
  const values = formValuesOf({ title: 'T', description: '', category: 'academic', location: 'L', start_time: '2027-03-10T23:30:00.000Z', end_time: '2027-03-11T01:00:00.000Z', capacity: 5, organizer: { name: 'O', email: 'o@campus.edu' } }, 'Asia/Kolkata');
  assert.equal(values['start_time'], '2027-03-11T05:00');
  assert.equal(values['end_time'], '2027-03-11T06:30');
  assert.equal(values['capacity'], '5');
});
