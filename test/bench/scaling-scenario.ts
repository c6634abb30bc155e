// `make bench-full`: what a durable POST, a date-filtered page and start-up cost at 10k, 100k and 1M events (issue 15).
import path from 'node:path';
import { type BenchContext, planFor, repeat, startOurs } from './bench-context.js';
import type { ScalingRow, StartupFigure } from './bench-results.js';
import { copyData, CREATE_BODY, type BenchData } from './data-generator.js';
import { median, type LoadResult } from './load-plan.js';
import { FILTERED } from './read-scenarios.js';

/** Clients of the scaling POST run (the figure is at 50). */
export const SCALING_POST_CLIENTS = 50;

/**
 * Durable POST at 50 clients (on a copy of `data`: the run adds events) and the date-filtered page at one client,
 * each `context.rounds` times through `node dist/server.js`, with the start-up figure of the same folder.
 */
export async function scalingRow(context: BenchContext, data: BenchData, startup: StartupFigure): Promise<ScalingRow> {
  const authorization = `Bearer ${data.secret}`;
  const reader = await startOurs(context, data, { name: `scaling read ${data.events}` });
  let filtered: LoadResult[];
  try {
    const plan = planFor(context, reader.url, { paths: [FILTERED], concurrency: 1, authorization });
    filtered = await repeat(context, `date-filtered page, 1 client (${data.events} events)`, { plan, server: reader }, context.rounds);
  } finally {
    await reader.stop();
  }
  const writer = await startOurs(context, copyData(data, path.join(context.workDir, `scaling-post-${data.events}`)), { name: `scaling post ${data.events}` });
  let post: LoadResult[];
  try {
    const plan = planFor(context, writer.url, { paths: ['/events'], concurrency: SCALING_POST_CLIENTS, authorization, post: { path: '/events', body: CREATE_BODY, every: 1 } });
    post = await repeat(context, `durable POST, ${SCALING_POST_CLIENTS} clients (${data.events} events)`, { plan, server: writer }, context.rounds);
  } finally {
    await writer.stop();
  }
  const rate = (runs: LoadResult[]): number => median(runs.map((run) => run.requestsPerSecond));
  const cpu = (runs: LoadResult[]): number => median(runs.map((run) => run.serverCpuMicros ?? NaN));
  return {
    events: data.events,
    postRequestsPerSecond: rate(post),
    postCpuMicros: cpu(post),
    filteredRequestsPerSecond: rate(filtered),
    filteredCpuMicros: cpu(filtered),
    startupMs: startup.startupMs,
    startupCpuMs: startup.startupCpuMs ?? NaN,
    rssMiB: startup.rssMiB,
    failures: [...post, ...filtered].reduce((sum, run) => sum + run.non2xx + run.socketErrors, 0),
  };
}
