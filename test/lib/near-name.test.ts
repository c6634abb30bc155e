// nearName() and unknownFlagMessage(): the flag a newcomer meant (issue 33.7), and none when nothing is close.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nearName, unknownCommandMessage, unknownFlagMessage } from '../../src/lib/near-name.js';

const SERVER_FLAGS = ['--port', '--host', '--data-dir', '--rate-limit', '--rate-window', '--cors-origin', '--log-level', '--console', '--compact-min-bytes', '--time-zone', '--store', '--webhook-hosts', '--help', '--version'];

test('unknownFlagMessage() names the near flag for --data, in the words of API.md §1 (issue 33.7)', () => {
  assert.equal(unknownFlagMessage('--data', SERVER_FLAGS), 'unknown flag --data; did you mean --data-dir?');
  assert.equal(unknownFlagMessage('--verbose', SERVER_FLAGS), 'unknown flag --verbose; see --help');
  assert.equal(unknownFlagMessage('--nmae', ['--name', '--email'], 'campus-events-cli --help'), 'unknown flag --nmae; did you mean --name?');
  assert.equal(unknownFlagMessage('--frobnicate', ['--name'], 'campus-events-cli --help'), 'unknown flag --frobnicate; see campus-events-cli --help');
});

test('nearName() finds a flag cut short, run on, mistyped, swapped, in another case or with one dash', () => {
  const cases: [string, string][] = [
    ['--data', '--data-dir'],
    ['--datadir', '--data-dir'],
    ['--data_dir', '--data-dir'],
    ['--data-directory', '--data-dir'],
    ['--prot', '--port'],
    ['--Port', '--port'],
    ['-port', '--port'],
    ['--timezone', '--time-zone'],
    ['--time_zone', '--time-zone'],
    ['--webhook-host', '--webhook-hosts'],
    ['--cors-origins', '--cors-origin'],
    ['--rate-limt', '--rate-limit'],
    ['--rate', '--rate-limit'],
    ['--versoin', '--version'],
    ['--hepl', '--help'],
    ['--compact', '--compact-min-bytes'],
  ];
  for (const [given, meant] of cases) assert.equal(nearName(given, SERVER_FLAGS), meant, given);
  assert.equal(nearName('--output', ['--out', '--json']), '--out');
});

test('nearName() suggests nothing when no flag is close', () => {
  for (const given of ['--verbose', '--daemon', '--x', '-p', '--db', '--config', '--listen', '--']) assert.equal(nearName(given, SERVER_FLAGS), undefined, given);
});

test('unknownCommandMessage() names the near command, keeping the words after the mistyped one', () => {
  const commands = ['keys create', 'keys list', 'keys revoke', 'verify', 'backup', 'migrate'];
  assert.deepEqual(unknownCommandMessage(['kyes', 'revoke', 'key_1'], commands), { message: 'unknown command "kyes revoke"; did you mean keys revoke?', complete: true });
  assert.deepEqual(unknownCommandMessage(['bakup'], commands), { message: 'unknown command "bakup"; did you mean backup?', complete: true });
  assert.deepEqual(unknownCommandMessage(['keys', 'craete'], commands), { message: 'unknown command "keys craete"; did you mean keys create?', complete: true });
  assert.equal(unknownCommandMessage(['serve'], commands).complete, false, 'nothing near: see --help');
  assert.equal(unknownCommandMessage(['backup', 'x'], commands).message, 'backup takes no arguments, got "x"');
});

test('unknownFlagMessage() for a known flag given a value it does not take says so, rather than suggesting the flag itself', () => {
  assert.equal(unknownFlagMessage('--json', ['--json', '--name'], 'campus-events-cli --help'), '--json takes no value; see campus-events-cli --help');
});
