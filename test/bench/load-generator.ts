// The Node load generator: node:http keep-alive clients at fixed concurrency, a warm-up, then a fixed measured window.
import http from 'node:http';
import { LatencyHistogram } from './latency-histogram.js';
import type { LoadPlan, LoadResult } from './load-plan.js';

const REQUEST_TIMEOUT_MS = 10_000;
/** Runs of this process so far: part of every `{{n}}`, so no two runs send the same body. */
let runs = 0;

/** Runs `plan` with `plan.concurrency` connections, each sending its next request when the last response ends. */
export function runNodeLoad(plan: LoadPlan, onMeasuring?: () => void): Promise<LoadResult> {
  const target = new URL(plan.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: plan.concurrency, maxFreeSockets: plan.concurrency });
  const getHeaders: Record<string, string> = plan.authorization === undefined ? {} : { authorization: plan.authorization };
  const postBody = plan.post === undefined ? '' : plan.post.body;
  const uniqueBodies = postBody.includes('{{n}}');
  const run = ++runs;
  const postHeaders = { ...getHeaders, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(postBody)) };
  const histogram = new LatencyHistogram();
  const startedAt = performance.now();
  const measureFrom = startedAt + plan.warmupMs;
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

    const account = (status: number, sentAt: number): void => {
      const doneAt = performance.now();
      if (doneAt > stopAt) return;
      if (status < 200 || status > 299) non2xx++;
      if (doneAt < measureFrom) warmupRequests++;
      else histogram.record((doneAt - sentAt) * 1000);
    };

    const next = (): void => {
      if (performance.now() >= stopAt) {
        if (--running === 0) finish();
        return;
      }
      const index = sequence++;
      const post = plan.post !== undefined && index % plan.post.every === 0 ? plan.post : undefined;
      const payload = post !== undefined && uniqueBodies ? postBody.replaceAll('{{n}}', `${run}-${index}`) : postBody;
      const sentAt = performance.now();
      let settled = false;
      const settle = (): void => {
        if (settled) return;
        settled = true;
        next();
      };
      const request = http.request(
        {
          agent,
          hostname: target.hostname,
          port: target.port,
          method: post === undefined ? 'GET' : 'POST',
          path: post === undefined ? plan.paths[index % plan.paths.length]! : (post.paths?.[index % post.paths.length] ?? post.path),
          headers: post === undefined ? getHeaders : uniqueBodies ? { ...postHeaders, 'content-length': String(Buffer.byteLength(payload)) } : postHeaders,
        },
        (response) => {
          response.resume();
          response.on('end', () => {
            account(response.statusCode ?? 0, sentAt);
            settle();
          });
          response.on('error', () => {
            socketErrors++;
            settle();
          });
        },
      );
      request.setTimeout(REQUEST_TIMEOUT_MS, () => request.destroy(new Error('timed out')));
      request.on('error', () => {
        if (performance.now() <= stopAt) socketErrors++;
        settle();
      });
      request.end(post === undefined ? undefined : payload);
    };

    if (onMeasuring !== undefined) setTimeout(onMeasuring, plan.warmupMs);
    for (let client = 0; client < plan.concurrency; client++) next();
  });
}
