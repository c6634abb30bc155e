// The cost of authentication and rate limiting: GET /events/{id} with both on, against the same launcher with unsafeNoAuth.
import path from 'node:path';
import { alternate, type BenchContext, planFor, startOurs } from './bench-context.js';
import type { LoadRow } from './bench-results.js';
import { copyData, type BenchData } from './data-generator.js';
import { READ_CLIENTS } from './read-scenarios.js';

/** GET /events/{id} with authentication and rate limiting on, against the same launcher with `unsafeNoAuth`. */
export async function authOverheadScenario(context: BenchContext, data: BenchData): Promise<LoadRow> {
  const row: LoadRow = { key: 'auth', scenario: 'GET /events/{id}', events: data.events, clients: READ_CLIENTS, oursLabel: 'ours auth+limits', ours: [], notes: [] };
  const withAuth = await startOurs(context, copyData(data, path.join(context.workDir, 'auth-on')), { name: 'ours auth+limits', launcher: true });
  const noAuth = await startOurs(context, copyData(data, path.join(context.workDir, 'auth-off')), { name: 'ours unsafeNoAuth', noAuth: true });
  try {
    const plan = planFor(context, withAuth.url, { paths: data.sampleIds.map((id) => `/events/${id}`), concurrency: READ_CLIENTS, authorization: `Bearer ${data.secret}` });
    const runs = await alternate(context, 'auth+limits vs unsafeNoAuth', { plan, server: withAuth }, { plan: { ...plan, url: noAuth.url }, server: noAuth });
    row.ours = runs.a;
    row.baseline = { label: 'ours unsafeNoAuth', runs: runs.b };
  } finally {
    await withAuth.stop();
    await noAuth.stop();
  }
  return row;
}
