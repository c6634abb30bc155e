import fs from 'node:fs';
import { createLogger } from '../../src/log/logger.js';
import { redactKeys } from '../../src/http/redact-keys.js';
const fd = fs.openSync('/tmp/perfdev/log.out', 'w');
let pending: (() => void) | undefined;
const logger = createLogger({ level: 'info', write: (t) => void fs.writeSync(fd, t), schedule: (f) => (pending = f) });
const N = 400_000;
for (let round = 0; round < 5; round++) {
  const t0 = performance.now();
  for (let i = 0; i < N; i++) {
    const started = performance.now();
    const path = redactKeys('/events/evt_0123456789ABCDEFGHIJab');
    logger.request({ requestId: `k3j2l-${i.toString(36)}`, method: 'GET', path, status: 200, durationMs: Math.round((performance.now() - started) * 1000) / 1000, keyId: 'key_abcdef0123', client: '127.0.0.1', userAgent: undefined });
    if (i % 300 === 0 && pending) { const f = pending; pending = undefined; f(); }
  }
  logger.flush();
  console.log(`${(((performance.now() - t0) * 1000) / N).toFixed(3)} us/line`);
}
