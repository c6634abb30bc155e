// Webhooks to https: URLs (node:https, as a receiver on the internet has them), through the built server as an operator
// runs it: delivered and signed as over http: when the receiver's certificate is trusted (here its own, added with
// NODE_EXTRA_CA_CERTS as a campus CA would be), and never sent, with the reason in the delivery log, when it is not.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createKey } from '../../src/auth/key-registry.js';
import { spawnServer } from '../helpers/spawn.js';
import { EVENT_FIELDS, startReceiver } from './support.js';

/** Self-signed certificates for IP 127.0.0.1, valid until 2126: one the server is told to trust, one it is not. */
const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const tlsOf = (name: string): { key: string; cert: string } => ({ key: fs.readFileSync(path.join(FIXTURES, `${name}-key.pem`), 'utf8'), cert: fs.readFileSync(path.join(FIXTURES, `${name}-cert.pem`), 'utf8') });

test('webhooks over https: a trusted receiver gets every message signed and in order; an untrusted certificate is refused and logged', { timeout: 60_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'campus-webhooks-https-'));
  const admin = (await createKey(dir, { name: 'Admin', email: 'admin@campus.edu', role: 'admin' }, { randomBytes, now: Date.now })).secret;
  const trusted = await startReceiver({ tls: tlsOf('trusted') });
  const untrusted = await startReceiver({ tls: tlsOf('untrusted') });
  const server = await spawnServer(['--port', '0', '--data-dir', dir, '--webhook-hosts', '127.0.0.1', '--log-level', 'warn'], { NODE_EXTRA_CA_CERTS: path.join(FIXTURES, 'trusted-cert.pem') });
  interface Answer {
    status: number;
    json: { id: string; secret: string; deliveries: { status: string; error: string | null; response_status: number | null }[] };
  }
  const call = async (method: string, target: string, body?: unknown): Promise<Answer> => {
    const answer = await fetch(`${server.url}${target}`, { method, headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: answer.status, json: (await answer.json()) as Answer['json'] };
  };
  try {
    assert.match(trusted.url, /^https:\/\/127\.0\.0\.1:\d+\/hook$/);
    const good = await call('POST', '/webhooks', { url: trusted.url, events: ['event.created'] });
    const bad = await call('POST', '/webhooks', { url: untrusted.url, events: ['event.created'] });
    assert.deepEqual([good.status, bad.status], [201, 201]);
    trusted.secret = good.json.secret;
    const created: string[] = [];
    for (const title of ['First over TLS', 'Second over TLS']) {
      const answer = await call('POST', '/events', { ...EVENT_FIELDS, title });
      assert.equal(answer.status, 201);
      created.push(answer.json.id);
    }
    await trusted.until(2);
    // Verified with the standardwebhooks package against the webhook's secret, in write order.
    assert.deepEqual(trusted.received.map((each) => [each.message?.type, each.message?.data['id']]), created.map((id) => ['event.created', id]));
    let log: Answer['json']['deliveries'] = [];
    for (let tries = 0; log.length === 0 && tries < 200; tries++) {
      log = (await call('GET', `/webhooks/${bad.json.id}/deliveries`)).json.deliveries;
      if (log.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(log[0]?.status, 'failed', JSON.stringify(log));
    assert.equal(log[0]?.response_status, null);
    assert.match(log[0]?.error ?? '', /^request failed \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE)\)$/);
    assert.equal(untrusted.received.length, 0, 'nothing reached a receiver whose certificate is not trusted');
  } finally {
    await server.stop();
    await trusted.close();
    await untrusted.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
