// zonesFor(): which zone a screen shows — the month view the browser's (API.md §10), the others the campus's — until
// the person chooses one, which then holds on every screen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { zonesFor } from '../../../src/console/web/zones.js';

const CAMPUS = 'UTC';
const BROWSER = 'Pacific/Auckland';

test('zonesFor() shows a screen\'s own default when the person has not chosen: the browser\'s for the month, the campus\'s elsewhere', () => {
  assert.deepEqual(zonesFor(CAMPUS, BROWSER, 'browser', undefined), { campus: CAMPUS, browser: BROWSER, shown: BROWSER }, 'the month view');
  assert.equal(zonesFor(CAMPUS, BROWSER, 'campus', undefined).shown, CAMPUS, 'the list, an event, a form');
});

test('zonesFor() lets a choice made on any screen win over every screen\'s default', () => {
  for (const preferred of ['campus', 'browser'] as const) {
    assert.equal(zonesFor(CAMPUS, BROWSER, preferred, 'browser').shown, BROWSER, `mine, on a screen whose default is the ${preferred}'s`);
    assert.equal(zonesFor(CAMPUS, BROWSER, preferred, 'campus').shown, CAMPUS, `the campus's, on a screen whose default is the ${preferred}'s`);
  }
});
