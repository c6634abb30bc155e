// Read scenarios: GET /events/{id} (log at info and at warn) against bare same bytes, GET /events?limit=100 against bare JSON.stringify, a filtered page.
import fs from 'node:fs';
import { alternate, alternateAll, type BenchContext, planFor, repeat, startOurs } from './bench-context.js';
import type { LoadRow } from './bench-results.js';
import { fetchSample, startBareServer } from './baselines.js';
import type { BenchData } from './data-generator.js';

export const LIST_100 = '/events?limit=100';
/** The date-filtered page: a category and a window of three months, page 3 (its `total` counts the whole window). */
export const FILTERED = '/events?category=academic&start_date=2026-07-01&end_date=2026-09-30&limit=20&page=3';
export const READ_CLIENTS = 10;

/**
 * The read scenarios on `data`; with `baselines` the single read runs ours with the request log at info, ours at warn
 * (no request lines) and the bare server in turn, and the list page alternates with bare stringify; else ours runs alone.
 */
export async function readScenarios(context: BenchContext, data: BenchData, baselines: boolean): Promise<LoadRow[]> {
  const suffix = baselines ? '' : `-${data.events >= 1_000_000 ? '1m' : data.events}`;
  const authorization = `Bearer ${data.secret}`;
  const singlePaths = data.sampleIds.map((id) => `/events/${id}`);
  const common = { concurrency: READ_CLIENTS, authorization };
  const row = (key: string, scenario: string): LoadRow => ({ key: `${key}${suffix}`, scenario, events: data.events, clients: READ_CLIENTS, oursLabel: 'ours', ours: [], notes: [] });
  const single = row('single-read', 'GET /events/{id}');
  const singleWarn = { ...row('single-read-warn', 'GET /events/{id}'), oursLabel: 'ours log warn' };
  const list = row('list-100', `GET ${LIST_100}`);
  const filtered = row('filtered', 'GET /events?category&start_date&end_date&limit=20&page=3');

  // One writer per folder: the server with the log at warn runs on a copy, taken before either holds its LOCK.
  const quietData = { ...data, dir: `${data.dir}-log-warn` };
  if (baselines) fs.cpSync(data.dir, quietData.dir, { recursive: true });
  const ours = await startOurs(context, data, { name: 'ours' });
  try {
    const singlePlan = planFor(context, ours.url, { ...common, paths: singlePaths });
    const listPlan = planFor(context, ours.url, { ...common, paths: [LIST_100] });
    if (baselines) {
      const one = await fetchSample(ours.url, singlePaths[0]!, authorization);
      const page = await fetchSample(ours.url, LIST_100, authorization);
      single.notes.push(`${singlePaths.length} ids in turn; body ${Buffer.byteLength(one.body)} B, ${Object.keys(one.headers).length} headers`);
      list.notes.push(`body ${Buffer.byteLength(page.body)} B`);
      const bytes = await startBareServer('bytes', one, { workDir: context.workDir, cpus: context.serverCpus });
      const stringify = await startBareServer('stringify', page, { workDir: context.workDir, cpus: context.serverCpus });
      const quiet = await startOurs(context, quietData, { name: 'ours log warn', logLevel: 'warn' });
      try {
        const [info, warn, bare] = await alternateAll(context, 'GET /events/{id} ours (log info) vs ours (log warn) vs bare', [
          { plan: singlePlan, server: ours },
          { plan: { ...singlePlan, url: quiet.url }, server: quiet },
          { plan: { ...singlePlan, url: bytes.url }, server: bytes },
        ]);
        single.ours = info!;
        single.baseline = { label: bytes.name, runs: bare! };
        singleWarn.ours = warn!;
        singleWarn.baseline = single.baseline;
        const listRuns = await alternate(context, 'GET /events?limit=100 ours vs bare', { plan: listPlan, server: ours }, { plan: { ...listPlan, url: stringify.url }, server: stringify });
        list.ours = listRuns.a;
        list.baseline = { label: stringify.name, runs: listRuns.b };
      } finally {
        await quiet.stop();
        fs.rmSync(quietData.dir, { recursive: true, force: true });
        await bytes.stop();
        await stringify.stop();
      }
    } else {
      single.ours = await repeat(context, `GET /events/{id} (${data.events} events)`, { plan: singlePlan, server: ours }, context.rounds);
      list.ours = await repeat(context, `GET /events?limit=100 (${data.events} events)`, { plan: listPlan, server: ours }, context.rounds);
    }
    const filteredPlan = planFor(context, ours.url, { ...common, paths: [FILTERED] });
    filtered.ours = await repeat(context, `filtered page (${data.events} events)`, { plan: filteredPlan, server: ours }, baselines ? 1 : context.rounds);
  } finally {
    await ours.stop();
  }
  return baselines ? [single, singleWarn, list, filtered] : [single, list, filtered];
}
