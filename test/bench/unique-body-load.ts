// A Node load generator whose POST bodies differ per request: `{{n}}` in the body becomes a number never sent before (registrations need distinct e-mails).
import http from 'node:http';
import { LatencyHistogram } from './latency-histogram.js';
import type { LoadPlan, LoadResult } from './load-plan.js';

const REQUEST_TIMEOUT_MS = 10_000;
/** Runs of this process so far: part of every `{{n}}`, so no two runs send the same body. */
let runs = 0;

/**
 * Runs `plan` as runNodeLoad does (keep-alive connections at fixed concurrency, warm-up, measured window), every request
 * a POST of `plan.post.body` with `{{n}}` replaced by a number unique to this process.
 */
export function runUniqueBodyLoad(plan: LoadPlan, onMeasuring?: () => void): Promise<LoadResult> {
  if (plan.post === undefined || plan.post.every !== 1) throw new Error('runUniqueBodyLoad sends only POSTs: give post with every: 1');
  const { path, body } = plan.post;
  const run = ++runs;
  const target = new URL(plan.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: plan.concurrency, maxFreeSockets: plan.concurrency });
  const histogram = new LatencyHistogram();
  const measureFrom = performance.now() + plan.warmupMs;
  const stopAt = measureFrom + plan.durationMs;
  let sequence = 0;
  let warmupRequests = 0;
  let non2xx = 0;
  let socketErrors = 0;
  let running = plan.concurrency;

  return new Promise((resolve) => {
    const finish = (): void => {
      agent.destroy();
      const seconds = plan.durationMs / 1000;
      resolve({
        generator: 'node',
        requests: histogram.count,
        warmupRequests,
        seconds,
        requestsPerSecond: histogram.count / seconds,
        p50Ms: histogram.percentileMs(0.5),
        p99Ms: histogram.percentileMs(0.99),
        non2xx,
        socketErrors,
      });
    };
    const next = (): void => {
      if (performance.now() >= stopAt) {
        if (--running === 0) finish();
        return;
      }
      const payload = body.replaceAll('{{n}}', `${run}-${sequence++}`);
      const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) };
      if (plan.authorization !== undefined) headers['authorization'] = plan.authorization;
      const sentAt = performance.now();
      let settled = false;
      const settle = (): void => {
        if (settled) return;
        settled = true;
        next();
      };
      const request = http.request({ agent, hostname: target.hostname, port: target.port, method: 'POST', path, headers }, (response) => {
        response.resume();
        response.on('end', () => {
          const doneAt = performance.now();
          if (doneAt <= stopAt) {
            const status = response.statusCode ?? 0;
            if (status < 200 || status > 299) non2xx++;
            if (doneAt < measureFrom) warmupRequests++;
            else histogram.record((doneAt - sentAt) * 1000);
          }
          settle();
        });
        response.on('error', () => {
          socketErrors++;
          settle();
        });
      });
      request.setTimeout(REQUEST_TIMEOUT_MS, () => request.destroy(new Error('timed out')));
      request.on('error', () => {
        if (performance.now() <= stopAt) socketErrors++;
        settle();
      });
      request.end(payload);
    };
    if (onMeasuring !== undefined) setTimeout(onMeasuring, plan.warmupMs);
    for (let client = 0; client < plan.concurrency; client++) next();
  });
}
