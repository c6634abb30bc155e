// hostPolicy: --webhook-hosts before resolution (the URL's host) and after (the address it resolved to).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostPolicy } from '../../src/webhooks/host-policy.js';

test('hostPolicy allows nothing by default, listed names and *.suffixes, any host for *', () => {
  assert.equal(hostPolicy([]).allowsHost('hooks.campus.edu'), false);
  const policy = hostPolicy(['Hooks.Campus.edu', '*.signage.campus.edu']);
  assert.equal(policy.allowsHost('hooks.campus.edu'), true);
  assert.equal(policy.allowsHost('hall.signage.campus.edu'), true);
  assert.equal(policy.allowsHost('signage.campus.edu.evil.com'), false);
  assert.equal(policy.allowsHost('campus.edu'), false);
  assert.equal(policy.allowsHost('Hall.Signage.campus.edu.'), true, 'case and a trailing dot are the same name');
  for (const empty of ['.signage.campus.edu', 'a..signage.campus.edu', '..signage.campus.edu', 'signage.campus.edu']) assert.equal(policy.allowsHost(empty), false, empty);
  assert.equal(hostPolicy(['*']).allowsHost('anything.example'), true);
});

test('hostPolicy refuses a listed name that resolves to loopback, link-local or metadata addresses, unless the address is listed', () => {
  const policy = hostPolicy(['hooks.campus.edu', 'localhost', '10.0.0.7']);
  assert.equal(policy.allowsAddress('hooks.campus.edu', '10.1.2.3'), true, 'a campus network address');
  assert.equal(policy.allowsAddress('hooks.campus.edu', '127.0.0.1'), false);
  assert.equal(policy.allowsAddress('hooks.campus.edu', '169.254.169.254'), false);
  assert.equal(policy.allowsAddress('hooks.campus.edu', '::ffff:127.0.0.1'), false);
  assert.equal(policy.allowsAddress('hooks.campus.edu', 'fe80::1'), false);
  assert.equal(policy.allowsAddress('localhost', '127.0.0.1'), true);
  assert.equal(policy.allowsAddress('localhost', '::1'), true);
  assert.equal(policy.allowsAddress('other.campus.edu', '10.0.0.7'), true, 'a listed address');
  assert.equal(policy.allowsAddress('other.campus.edu', '10.0.0.8'), false, 'an unlisted name');
  assert.equal(hostPolicy(['*']).allowsAddress('x', '127.0.0.1'), true);
});
