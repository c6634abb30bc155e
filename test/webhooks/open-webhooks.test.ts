// openWebhooks at start: a webhook kept from before whose host --webhook-hosts does not allow is named in a warning.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApp } from '../../src/app.js';
import { createLogger } from '../../src/log/logger.js';
import { call, tempDir } from '../helpers/harness.js';

test('a start whose --webhook-hosts does not allow a kept webhook\'s host warns, naming the webhook and the host; one it allows is not named', async (t) => {
  const { dir, remove } = tempDir();
  t.after(remove);
  const first = await createApp({ dataDir: dir, keyPollMs: 0, webhookHosts: ['hooks.campus.edu', 'signage.campus.edu'] });
  const made = await call(first, 'POST', '/webhooks', { key: first.initialAdminKey!, body: { url: 'https://hooks.campus.edu/in' } });
  const kept = await call(first, 'POST', '/webhooks', { key: first.initialAdminKey!, body: { url: 'https://signage.campus.edu/in' } });
  assert.deepEqual([made.status, kept.status], [201, 201]);
  await first.close();
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', write: (text) => lines.push(text), schedule: () => undefined });
  const again = await createApp({ dataDir: dir, keyPollMs: 0, webhookHosts: ['signage.campus.edu'], logger });
  await again.close();
  logger.flush();
  const warnings = lines.flatMap((text) => text.split('\n')).filter((line) => line !== '').map((line) => JSON.parse(line) as { level: string; msg: string; webhook?: string }).filter((line) => line.webhook !== undefined);
  assert.deepEqual(warnings.map(({ level, webhook }) => [level, webhook]), [['warn', made.json.id]]);
  assert.equal(warnings[0]!.msg, `webhook ${made.json.id} sends to hooks.campus.edu, which --webhook-hosts does not allow: each attempt fails and its messages wait for their retries until the flag allows it (allowed: signage.campus.edu)`);
});
