// Write scenarios: durable POST /events against the same server with syncing off (counting fdatasync calls), and a 90/10 mix.
import path from 'node:path';
import { alternate, type BenchContext, planFor, repeat, startOurs } from './bench-context.js';
import type { LoadRow } from './bench-results.js';
import { copyData, CREATE_BODY, logLines, type BenchData } from './data-generator.js';
import { fdatasyncCalls } from './server-process.js';

export const WRITE_CLIENTS = 64;

/** Durable POST vs `unsafeNoSync`, both through the bench launcher, each on its own copy of `data`. */
export async function postScenario(context: BenchContext, data: BenchData): Promise<LoadRow> {
  const row: LoadRow = { key: 'post', scenario: 'POST /events', events: data.events, clients: WRITE_CLIENTS, oursLabel: 'ours durable', ours: [], notes: [] };
  const durableData = copyData(data, path.join(context.workDir, 'post-durable'));
  const noSyncData = copyData(data, path.join(context.workDir, 'post-no-sync'));
  const straceFile = context.strace ? path.join(context.workDir, 'post-durable.strace') : undefined;
  // The no-sync side runs under strace too, so the two differ only in the switch.
  const noSyncStrace = context.strace ? path.join(context.workDir, 'post-no-sync.strace') : undefined;
  const durable = await startOurs(context, durableData, { name: 'ours durable', launcher: true, straceFile });
  const noSync = await startOurs(context, noSyncData, { name: 'ours unsafeNoSync', noSync: true, straceFile: noSyncStrace });
  try {
    const plan = planFor(context, durable.url, { paths: ['/events'], concurrency: WRITE_CLIENTS, authorization: `Bearer ${data.secret}`, post: { path: '/events', body: CREATE_BODY, every: 1 } });
    const runs = await alternate(context, 'POST /events durable vs no sync', { plan, server: durable }, { plan: { ...plan, url: noSync.url }, server: noSync });
    row.ours = runs.a;
    row.baseline = { label: 'ours unsafeNoSync', runs: runs.b };
  } finally {
    await durable.stop();
    await noSync.stop();
  }
  // Lines added to the log = creates made durable (the log stays far below the compaction threshold here).
  const written = logLines(durableData.dir) - data.events;
  if (straceFile !== undefined) {
    const syncs = fdatasyncCalls(straceFile);
    if (syncs > 0) row.requestsPerSync = written / syncs;
    row.notes.push(`${written} events written with ${syncs} fdatasync calls (strace; warm-ups included); no-sync side: ${fdatasyncCalls(noSyncStrace!)} calls`);
  } else {
    row.notes.push('strace not found: fdatasync calls not counted (the store exposes no sync count)');
  }
  return row;
}

/** 90 % single reads, 10 % creates, on a copy of `data`, through `node dist/server.js`. */
export async function mixedScenario(context: BenchContext, data: BenchData): Promise<LoadRow> {
  const row: LoadRow = { key: 'mixed', scenario: 'mixed 90% GET /events/{id}, 10% POST', events: data.events, clients: WRITE_CLIENTS, oursLabel: 'ours', ours: [], notes: [] };
  const ours = await startOurs(context, copyData(data, path.join(context.workDir, 'mixed')), { name: 'ours mixed' });
  try {
    const plan = planFor(context, ours.url, {
      paths: data.sampleIds.map((id) => `/events/${id}`),
      concurrency: WRITE_CLIENTS,
      authorization: `Bearer ${data.secret}`,
      post: { path: '/events', body: CREATE_BODY, every: 10 },
    });
    row.ours = await repeat(context, 'mixed 90/10', { plan, server: ours }, 1);
  } finally {
    await ours.stop();
  }
  return row;
}
