// Builds the search index from the log in a worker thread, on the other core, while the main thread replays the log:
// the one door of search/ the file engine uses (startSearchLogBuild, SearchLogBuild); the rest of the build is inside.
import { Worker } from 'node:worker_threads';
import type { BuiltSearch } from './search-built.js';
import { FNV_OFFSET } from './search-hash.js';

/** A build under way: its result (the built index, or why there is none), and a way to stop it. */
export interface SearchLogBuild {
  readonly result: Promise<BuiltSearch | string>;
  stop(): void;
}

/** The worker's module: beside this one, as built JavaScript, or as TypeScript when this one runs from its source (tests). */
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const WORKER_URL = new URL(FROM_SOURCE ? './search-log-worker.ts' : './search-log-worker.js', import.meta.url);

/**
 * Starts reading the first `length` bytes of the log `file` (whole lines: nothing is appended before the replay
 * ends) in a worker. The result is a string for a worker that failed or was stopped: the main thread then builds
 * the index itself, as it would without the worker. `workerUrl` is for tests (a worker that fails).
 */
export function startSearchLogBuild(file: string, length: number, workerUrl: URL = WORKER_URL): SearchLogBuild {
  let worker: Worker;
  try {
    // No inherited node flags (`--import` of a loader, say): the worker needs none, and loading one costs it time.
    worker = new Worker(FROM_SOURCE ? fromSource(workerUrl) : workerUrl, { workerData: { file, length, hashStart: FNV_OFFSET }, execArgv: [] });
  } catch (error) {
    return { result: Promise.resolve(`the worker did not start: ${String(error)}`), stop() {} };
  }
  // Not unref'd: the result comes with its 'exit', which must keep the process alive until then (a store's
  // close stops the worker, so nothing waits longer than the build).
  // Resolved once the worker has exited, so its heap is given back before the main thread takes the result.
  const result = new Promise<BuiltSearch | string>((resolve) => {
    let built: BuiltSearch | undefined;
    let failure: string | undefined;
    worker.once('message', (message: BuiltSearch) => (built = message));
    worker.once('error', (error) => (failure = `the worker failed: ${String(error)}`));
    worker.once('exit', (code) => resolve(built ?? failure ?? `the worker exited (code ${code}) without a result`));
  });
  return { result, stop: () => void worker.terminate() };
}

/**
 * A worker started from TypeScript sources (under tsx, as the tests run) does not inherit the loader's hooks on
 * Node 20: a bootstrap registers tsx in the worker, then imports the module. Never taken from dist/.
 */
function fromSource(module: URL): URL {
  const tsx = import.meta.resolve('tsx/esm/api');
  const code = `const { register } = await import(${JSON.stringify(tsx)}); register(); await import(${JSON.stringify(module.href)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(code)}`);
}
