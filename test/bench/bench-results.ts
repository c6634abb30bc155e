// The shape of one bench run's results: what the scenarios fill in, what the report prints and saves as JSON.
import type { LoadResult } from './load-plan.js';

/** One load scenario: our server's runs and, where there is one, the baseline's runs alternated with them. */
export interface LoadRow {
  /** A stable name the targets look rows up by, e.g. `single-read` or `filtered-1m`. */
  key: string;
  scenario: string;
  events: number;
  clients: number;
  /** What ran as "ours", e.g. `ours`, `ours durable`, `ours auth+limits`. */
  oursLabel: string;
  ours: LoadResult[];
  baseline?: { label: string; runs: LoadResult[] };
  /** POST rows: log lines written per fdatasync call, when strace counted them. */
  requestsPerSync?: number;
  notes: string[];
}

/** Start-up of `node dist/server.js` on a folder of `events` events. */
export interface StartupFigure {
  events: number;
  /** Median of the runs, spawn to the `listening on` line. */
  startupMs: number;
  /** Median CPU time (user + system) of the server at the listening line: what a busy machine does not inflate. */
  startupCpuMs?: number;
  /** Median VmRSS at the listening line. */
  rssMiB: number;
  /** Heap (and array buffers) the opened store holds per event, measured in a separate process. */
  heapBytesPerEvent: number;
  /** Time to write the folder (not a target; shown so a slow run can be explained). */
  generateMs: number;
  runs: number;
}

/** Limiter memory, measured in process on src/limits. */
export interface LimiterFigures {
  activeKeys: number;
  activeKeysMiB: number;
  badKeys: number;
  badKeysAddressesHeld: number;
  badKeysMiB: number;
  badKeysMicrosEach: number;
}

/** One function of a CPU profile by self time. */
export interface ProfileEntry {
  functionName: string;
  /** `src/…ts:line` for our code (through the source maps), else the script URL. */
  location: string;
  selfMs: number;
  percent: number;
}

/** `make bench-full`: the costs that must not grow with the data (issue 15), at one data size. */
export interface ScalingRow {
  events: number;
  /** Durable POST /events at SCALING_POST_CLIENTS clients, medians of the rounds. */
  postRequestsPerSecond: number;
  postCpuMicros: number;
  /** The date-filtered page (category, start_date, end_date, page 3) at one client. */
  filteredRequestsPerSecond: number;
  filteredCpuMicros: number;
  startupMs: number;
  /** CPU time of the server at its listening line (start-up without the waits a busy machine adds). */
  startupCpuMs: number;
  rssMiB: number;
  /** Non-2xx responses and socket errors over the runs of the row. */
  failures: number;
}

export interface BenchResults {
  date: string;
  machine: { nproc: number; cpu: string; node: string; platform: string };
  generator: 'wrk' | 'node';
  generatorVersion: string;
  pinning: { server: string; generator: string } | null;
  warmupMs: number;
  durationMs: number;
  rounds: number;
  full: boolean;
  /** 1-minute load average at the start and at the end: other work on the machine skews every figure. */
  loadAverage: { start: number; end: number };
  rows: LoadRow[];
  startup: StartupFigure[];
  limiter: LimiterFigures | undefined;
  /** `make bench-full` only: the same costs at 10k, 100k and 1M events. */
  scaling?: ScalingRow[];
  profile: ProfileEntry[] | undefined;
  elapsedSeconds: number;
}
