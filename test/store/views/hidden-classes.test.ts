// Objects the service keeps by the thousand or reads on every request share one V8 hidden class. On Node 20,
// `{ ...object, newField }` gave each registration a class of its own: about 300 bytes more per registration kept,
// and every read of one megamorphic (registrations 15 % dearer in CPU). The probe runs in a child with natives syntax.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const PROBE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'hidden-class-probe.ts');

test('registrations, records read back from a view, local times and replayed remembered answers each share one hidden class', () => {
  const output = execFileSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', PROBE], { encoding: 'utf8' });
  assert.deepEqual(JSON.parse(output), { registrations: true, records: true, localTimes: true, remembered: true });
});
