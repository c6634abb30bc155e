// Runs a LoadPlan with wrk: a small Lua script adds the Authorization header and POST bodies; --latency output is parsed.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { LoadPlan, LoadResult } from './load-plan.js';

export interface WrkOptions {
  wrk: string;
  /** A folder for the Lua scripts. */
  scriptDir: string;
  /** wrk threads (at most the connections). */
  threads: number;
  /** A taskset CPU list for wrk, e.g. `1`; undefined runs it unpinned. */
  cpus: string | undefined;
}

/** Runs a warm-up run, then the measured run; returns the measured run's figures with the warm-up's count and failures. */
export async function runWrk(plan: LoadPlan, options: WrkOptions, onMeasuring?: () => void): Promise<LoadResult> {
  const script = path.join(options.scriptDir, `plan-${process.pid}-${Date.now()}.lua`);
  try {
    const warmup = plan.warmupMs > 0 ? parseWrkOutput(await wrk(plan, options, script, plan.warmupMs)) : undefined;
    onMeasuring?.();
    const measured = parseWrkOutput(await wrk(plan, options, script, plan.durationMs));
    // Failures during the warm-up count too: a run with any is flagged.
    return {
      ...measured,
      warmupRequests: warmup?.requests ?? 0,
      non2xx: measured.non2xx + (warmup?.non2xx ?? 0),
      socketErrors: measured.socketErrors + (warmup?.socketErrors ?? 0),
    };
  } finally {
    fs.rmSync(script, { force: true });
  }
}

/** wrk invocations of this process so far: part of every `{{n}}`, so no two invocations send the same body. */
let invocations = 0;

function wrk(plan: LoadPlan, options: WrkOptions, script: string, ms: number): Promise<string> {
  fs.writeFileSync(script, luaScript(plan, `${process.pid}-${++invocations}`));
  const threads = Math.max(1, Math.min(options.threads, plan.concurrency));
  const seconds = Math.max(1, Math.round(ms / 1000));
  const args = ['-t', String(threads), '-c', String(plan.concurrency), '-d', `${seconds}s`, '--timeout', '10s', '--latency', '-s', script, plan.url];
  const [command, argv] = options.cpus === undefined ? [options.wrk, args] : ['taskset', ['-c', options.cpus, options.wrk, ...args]];
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`wrk exited with ${code}: ${err.trim() || out.trim()}`))));
  });
}

/** A Lua string literal for printable ASCII text (JSON's escapes for `"` and `\` are Lua's too). */
function lua(text: string): string {
  if (!/^[\x20-\x7e]*$/.test(text)) throw new TypeError(`wrk scripts here take printable ASCII only, got ${JSON.stringify(text.slice(0, 60))}`);
  return JSON.stringify(text);
}

/**
 * The request() of a plan: paths in turn, each `every`-th one the POST (to `post.paths` in turn when given). Both header
 * tables carry the key. `{{n}}` in the POST body becomes `NONCE-THREAD-COUNT`, new for every request of this process.
 */
function luaScript(plan: LoadPlan, nonce: string): string {
  const auth = plan.authorization === undefined ? '' : `["Authorization"] = ${lua(plan.authorization)}, `;
  const postPaths = plan.post?.paths ?? [plan.post?.path ?? '/'];
  const body = plan.post?.body ?? '';
  const unique = body.includes('{{n}}');
  const lines = [
    // setup() runs once per thread in wrk's main state: each thread gets its own number.
    'local threads = 0',
    'setup = function(thread)',
    '  threads = threads + 1',
    '  thread:set("thread_number", threads)',
    'end',
    `local paths = { ${plan.paths.map(lua).join(', ')} }`,
    'local count = #paths',
    'local sent = 0',
    `local every = ${plan.post?.every ?? 0}`,
    `local post_paths = { ${postPaths.map(lua).join(', ')} }`,
    'local post_count = #post_paths',
    'local posted = 0',
    `local post_parts = { ${body.split('{{n}}').map(lua).join(', ')} }`,
    `local prefix = ${lua(`${nonce}-`)}`,
    `local get_headers = { ${auth}}`,
    `local post_headers = { ${auth}["Content-Type"] = "application/json" }`,
    'request = function()',
    '  sent = sent + 1',
    '  if every > 0 and sent % every == 0 then',
    '    posted = posted + 1',
    '    local target = post_paths[(posted % post_count) + 1]',
    unique
      ? '    return wrk.format("POST", target, post_headers, table.concat(post_parts, prefix .. tostring(thread_number) .. "-" .. tostring(posted)))'
      : '    return wrk.format("POST", target, post_headers, post_parts[1])',
    '  end',
    '  return wrk.format("GET", paths[(sent % count) + 1], get_headers, nil)',
    'end',
    '',
  ];
  return lines.join('\n');
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Reads requests, rate, p50/p99, non-2xx and socket errors from wrk's --latency report. */
export function parseWrkOutput(text: string): Omit<LoadResult, 'warmupRequests'> {
  const total = /(\d+) requests in ([\d.]+)(us|ms|s|m|h)/.exec(text);
  const rate = /Requests\/sec:\s+([\d.]+)/.exec(text);
  if (total === null || rate === null) throw new Error(`cannot read wrk's report:\n${text}`);
  const percentile = (label: string): number => {
    const match = new RegExp(`^\\s+${label}%\\s+([\\d.]+)(us|ms|s|m|h)`, 'm').exec(text);
    return match === null ? NaN : Number(match[1]) * UNIT_MS[match[2]!]!;
  };
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(text);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  const socketErrors = socket === null ? 0 : socket.slice(1).reduce((sum, value) => sum + Number(value), 0);
  return {
    generator: 'wrk',
    requests: Number(total[1]),
    seconds: (Number(total[2]) * UNIT_MS[total[3]!]!) / 1000,
    requestsPerSecond: Number(rate[1]),
    p50Ms: percentile('50'),
    p99Ms: percentile('99'),
    non2xx: non2xx === null ? 0 : Number(non2xx[1]),
    socketErrors,
  };
}
