// SharedWebhooks in process on a real PostgreSQL with a fake clock: when lease renewals stop coming back, delivery here
// stops exactly 2/3 of a lease after the last renewal sent, before the lease can lapse in the database.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { skip, usePostgres } from '../helpers/postgres-fixture.js';
import { openPostgresStore } from '../../src/store/postgres/open-postgres-store.js';
import { SharedWebhooks } from '../../src/webhooks/shared-webhooks.js';
import { httpDeliveryClient } from '../../src/webhooks/delivery-client.js';
import { hostPolicy } from '../../src/webhooks/host-policy.js';
import { createLogger } from '../../src/log/logger.js';
import { mulberry32 } from '../helpers/random.js';
import { FakeClock, startReceiver } from './support.js';
import { eventId, sampleRecord } from '../store/helpers.js';

const pg = usePostgres();
const START = Date.parse('2026-11-25T12:00:00Z');

/** SharedWebhooks on `table` with a 3000 ms lease renewed every 500 ms, on `clock`; `stopped()` gives its log lines saying it stopped delivering a webhook. */
async function openShared(store: Awaited<ReturnType<typeof openPostgresStore>>, table: NonNullable<typeof store.webhookTable>, clock: FakeClock, seed: number) {
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', write: (text) => lines.push(text), schedule: () => undefined });
  const random = mulberry32(seed);
  const randomBytes = (size: number): Uint8Array => Uint8Array.from({ length: size }, () => Math.floor(random() * 256));
  const shared = await SharedWebhooks.open({ table, history: store.history, lastSeq: () => store.changes.lastSeq, client: httpDeliveryClient(hostPolicy(['127.0.0.1'])), clock, randomBytes, logger, leaseMs: 3000, tickMs: 500 });
  const stopped = (): string[] => {
    logger.flush();
    return lines.filter((line) => line.includes('stopped delivering a webhook here'));
  };
  return { shared, stopped };
}

describe('SharedWebhooks leases', { skip }, () => {
  it('with no renewal back, delivery here stops 2000 ms (of a 3000 ms lease) after the last renewal was sent, and starts again once one comes back', async () => {
    const store = await openPostgresStore({ url: await pg.database('lease_watchdog') });
    const receiver = await startReceiver();
    const clock = new FakeClock(START);
    const { shared, stopped } = await openShared(store, store.webhookTable!, clock, 7);
    try {
      const webhook = await shared.create({ url: receiver.url });
      // The open's first renewal was sent at START: the watchdog is set for START + 2000.
      clock.advanceTo(START + 1999);
      assert.deepEqual(stopped(), [], 'the renewal sent at +500 has not come back, but 2 s have not passed');
      clock.advanceTo(START + 2000);
      assert.equal(stopped().length, 1);
      assert.match(stopped()[0]!, /its lease could not be renewed in time/);
      assert.match(stopped()[0]!, new RegExp(webhook.id));
      // The renewal sent at +500 comes back: the webhook, still leased here, is delivered here again.
      await store.write(eventId(1), () => sampleRecord(1));
      await receiver.until(1);
      assert.match(receiver.received[0]!.body, new RegExp(`"type":"event.created".*"id":"${eventId(1)}"`));
    } finally {
      await shared.close();
      await store.close();
      await receiver.close();
    }
  });

  it('a wall clock set back an hour while a renewal is out changes nothing: delivery here still stops 2000 ms after it was sent', async () => {
    const store = await openPostgresStore({ url: await pg.database('lease_clock_step') });
    const receiver = await startReceiver();
    const clock = new FakeClock(START);
    // NTP steps the clock back an hour while each renewal is in the database.
    const table = store.webhookTable!;
    const lease = async (owner: string, leaseMs: number): ReturnType<typeof table.lease> => {
      const held = await table.lease(owner, leaseMs);
      clock.stepWall(-3_600_000);
      return held;
    };
    const stepping = new Proxy(table, {
      get: (target, name) => {
        if (name === 'lease') return lease;
        const value: unknown = Reflect.get(target, name, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const { shared, stopped } = await openShared(store, stepping, clock, 8);
    try {
      const webhook = await shared.create({ url: receiver.url });
      clock.advanceTo(clock.now() + 1999);
      assert.deepEqual(stopped(), [], 'not 2 s yet');
      clock.advanceTo(clock.now() + 1);
      assert.equal(stopped().length, 1, 'stopped 2 s after the renewal was sent, the step of the wall clock notwithstanding');
      assert.match(stopped()[0]!, new RegExp(webhook.id));
    } finally {
      await shared.close();
      await store.close();
      await receiver.close();
    }
  });
});
