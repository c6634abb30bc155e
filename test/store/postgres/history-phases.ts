// The phases of the history test and their faults (issue 34): load, a fault, recovery, then the final state of every
// instance read and the history checked. Shared by history.test.ts (seconds per phase) and `make soak` (minutes).
import { setTimeout as sleep } from 'node:timers/promises';
import { mulberry32 } from '../../helpers/random.js';
import { checkHistory, checkPhase, counterexamples, GOALS, isUncertain, isWrite, longestGap, recoveries, saysNothingSaved, type FollowerView, type Violation } from './history-checker.js';
import { parseState, pruneOutput, recordedCall, type Exchange, type Fault, type History, type PhaseWindow } from './history-record.js';
import { RATE_CHECKS } from './history-rate.js';
import { collectStates, startWorld, type RunSettings, type World } from './history-world.js';
import { eventBody, startClient, startPagedFollower, startProber, startPulse, startStreamFollower, type Follower, type Running } from './history-workload.js';

/** A phase: its name, its fault (none for the baseline), and the burst of simultaneous registrations sent as it strikes. */
export interface PhaseSpec {
  name: string;
  fault?: (world: World, settings: RunSettings) => Promise<Fault>;
  burst: { registrations: number; seats: number };
}

/** What a phase measured (issue 34's closing figures). */
export interface Figures {
  phase: string;
  /** Every request of the load in the phase (clients, pulses, follower, prober, burst). */
  requests: number;
  writes: number;
  acknowledged: number;
  /** Writes answered with a definite refusal (409, 412, 429, a 503 saying nothing was saved). */
  refused: number;
  /** Writes without an answer, or answered 503 "outcome unknown". */
  unknown: number;
  /** Writes answered 503 "nothing was saved" that are there all the same. */
  lying: number;
  /** Reads answered 503 or 429. */
  readsRefused: number;
  /** Per writer: ms from the fault's end to its first acknowledged write begun after (null: none). */
  recoverMs: Record<string, number | null>;
  /** The longest stretch without an acknowledged write on an instance other than the cut one, from the cut to its end. */
  othersStalledMs: number | null;
  /** The slowest answer to a write. */
  slowestWriteMs: number;
  /** How long reading the final state and checking took (what the phase costs beyond its load). */
  checkMs: number;
  statuses: Record<string, number>;
}

/** The outcome of a phase. */
export interface PhaseResult {
  window: PhaseWindow;
  /** Violations found at the end of this phase and not reported before. */
  violations: Violation[];
  figures: Figures;
  /** Figures and counterexamples, for printing. */
  report: string;
  historyFile: string;
}

const now = (world: World): number => world.recorder.now();

/**
 * The moments a fault strikes at, read from what an instance sends the database through its proxy: the worst ones
 * for the promise under test. The statements are this program's (a write batch's BEGIN takes the log's advisory
 * lock; its last round trip inserts into campus_log and COMMITs); should they change, a fault strikes after
 * STRIKE_WAIT_MS at whatever moment it is, and its description says so.
 */
const TAKES_LOG_LOCK = (chunk: Buffer): boolean => /BEGIN[\s\S]*pg_advisory_xact_lock\(\d/.test(chunk.toString('latin1'));
const COMMITS_LOG = (chunk: Buffer): boolean => {
  const text = chunk.toString('latin1');
  return text.includes('campus_log') && text.includes('COMMIT');
};
const STRIKE_WAIT_MS = 2_000;
const moment = (matched: boolean, what: string): string => (matched ? what : 'at a random moment (no such statement seen)');

/** kill -9 of instance `i` just after it sent a batch's COMMIT (its clients never get the answer), started again at once. */
export function killInstance(i: number): PhaseSpec['fault'] {
  return async (world) => {
    let at = NaN;
    const matched = await world.proxies[i]!.strike(COMMITS_LOG, () => {
      at = now(world);
      world.instances.servers[i]!.child.kill('SIGKILL');
    }, STRIKE_WAIT_MS);
    await world.instances.kill(i);
    await world.instances.restart(i);
    const healed = now(world);
    return { kind: 'kill', what: `kill -9 of instance ${i} ${moment(matched, 'just after it sent a COMMIT')}, started again`, instance: i, at, healed, cut: true, unanswering: { instance: i, from: at, to: healed } };
  };
}

/**
 * The database stopped (`pg_ctl stop -m immediate`) just after a batch's COMMIT reached it, the answer held back by
 * the proxies and then every connection reset (a COMMIT answer lost in the crash); started again after `outageMs`.
 */
export const restartDatabase: PhaseSpec['fault'] = async (world, settings) => {
  const server = world.server!;
  let at = NaN;
  const matched = await world.proxies[0]!.strike(COMMITS_LOG, () => {
    at = now(world);
    for (const proxy of world.proxies) proxy.freeze();
  }, STRIKE_WAIT_MS);
  await server.crashAsync();
  for (const proxy of world.proxies) proxy.drop({ then: 'forward' });
  await sleep(settings.outageMs);
  await server.startAsync();
  const healed = now(world);
  const what = `pg_ctl stop -m immediate ${moment(matched, 'just after a COMMIT reached the database (its answer lost)')}, ${settings.outageMs} ms down, pg_ctl start`;
  return { kind: 'db-restart', what, at, healed, cut: false, outage: { from: at, to: healed } };
};

/** Instance `i`'s link frozen (its sockets open) while its write batch holds the log's lock, for `faultMs`; then its connections dropped (RST). */
export function freezeLink(i: number): PhaseSpec['fault'] {
  return async (world, settings) => {
    const proxy = world.proxies[i]!;
    let at = NaN;
    const matched = await proxy.strike(TAKES_LOG_LOCK, () => {
      at = now(world);
      proxy.freeze();
    }, STRIKE_WAIT_MS);
    await sleep(settings.faultMs);
    proxy.drop({ then: 'refuse' });
    await sleep(500);
    proxy.thaw();
    const healed = now(world);
    return { kind: 'freeze', what: `instance ${i}'s link frozen ${moment(matched, 'while its batch held the log\'s lock')} for ${settings.faultMs} ms, then its connections dropped`, instance: i, at, healed, cut: true };
  };
}

/** SIGSTOP of instance `i` while its write batch holds the log's lock, for `faultMs`; then SIGCONT. */
export function pauseInstance(i: number): PhaseSpec['fault'] {
  return async (world, settings) => {
    let at = NaN;
    const matched = await world.proxies[i]!.strike(TAKES_LOG_LOCK, () => {
      at = now(world);
      world.instances.pause(i);
    }, STRIKE_WAIT_MS);
    await sleep(settings.faultMs);
    world.instances.resume(i);
    const healed = now(world);
    return { kind: 'sigstop', what: `SIGSTOP of instance ${i} ${moment(matched, 'while its batch held the log\'s lock')} for ${settings.faultMs} ms, then SIGCONT`, instance: i, at, healed, cut: true, unanswering: { instance: i, from: at, to: healed } };
  };
}

/** The primary killed (SIGKILL to all its processes) and the synchronous standby promoted. */
export const failover: PhaseSpec['fault'] = async (world) => {
  const pair = world.pair!;
  const at = now(world);
  pair.killPrimary();
  await pair.promote();
  const healed = now(world);
  return { kind: 'failover', what: 'the primary killed (SIGKILL) and the synchronous standby promoted', at, healed, cut: false, outage: { from: at, to: healed } };
};

/**
 * The phases on one cluster, each instance through its proxy (instances 0 and 1 write, 2 follows). The kill goes last:
 * the slots a killed instance leased ahead are never given back and count for up to 15 s and a window after it
 * (docs/postgres.md), so a phase after it would meet two faults at once, and each fault is measured on its own.
 */
export const CLUSTER_PHASES: readonly PhaseSpec[] = [
  { name: 'baseline', burst: { registrations: 500, seats: 100 } },
  { name: 'db-restart', fault: restartDatabase, burst: { registrations: 100, seats: 20 } },
  { name: 'freeze', fault: freezeLink(0), burst: { registrations: 100, seats: 20 } },
  { name: 'sigstop', fault: pauseInstance(1), burst: { registrations: 100, seats: 20 } },
  { name: 'kill', fault: killInstance(0), burst: { registrations: 100, seats: 20 } },
];

/** The phase on a primary and its standby, every instance given both hosts. */
export const FAILOVER_PHASES: readonly PhaseSpec[] = [{ name: 'failover', fault: failover, burst: { registrations: 100, seats: 20 } }];

/** A world under load: its followers and prober run from start to stop; clients and pulses run per phase. */
export interface Run {
  readonly world: World;
  phase(spec: PhaseSpec): Promise<PhaseResult>;
  stop(): Promise<void>;
}

/** Starts a world (`proxied` or `standby`) and its follower and prober. */
export async function startRun(kind: 'proxied' | 'standby', settings: RunSettings): Promise<Run> {
  pruneOutput();
  const world = await startWorld(kind, settings);
  const { target, keys, recorder } = world;
  const paged = startPagedFollower(target, keys.follower);
  const stream = startStreamFollower(target, keys.follower);
  const prober = startProber(target, keys.prober);
  const reported = new Set<string>();
  const file = `history-${kind}-${new Date().toISOString().replace(/[:.]/g, '-')}-seed${settings.seed}.jsonl`;
  const random = mulberry32(settings.seed);
  let historyFile = '';
  let checkedUpTo = 0;
  /** Every phase's final states, violations and figures: each write of the file holds all of them. */
  const reports: Record<string, unknown>[] = [];
  return {
    world,
    async phase(spec) {
      recorder.phase = spec.name;
      const start = now(world);
      const hot: string[] = [];
      for (let i = 0; i < 6; i++) hot.push(await setupEvent(world, `hot-${spec.name}-${i}-${settings.seed}`, 2 + (i % 4)));
      const burstEvent = await setupEvent(world, `burst-${spec.name}-${settings.seed}`, spec.burst.seats);
      for (const id of [...hot, burstEvent]) world.watched.add(id);
      target.hot = hot;
      const load: Running[] = [
        ...keys.clients.map((key, c) => startClient(target, c, key, settings.seed, spec.name)),
        ...target.writers.map((instance) => startPulse(target, instance, keys.pulses[instance]!, 250, `${spec.name}-${settings.seed}`)),
      ];
      let fault: Fault | undefined;
      try {
        // The baseline's burst is its load's point: it goes at once.
        if (spec.fault !== undefined) await sleep(settings.warmMs);
        const striking = spec.fault?.(world, settings);
        const burst = sendBurst(world, spec, burstEvent, settings.seed);
        fault = await striking;
        await burst;
        await untilRecovered(world, fault);
        await sleep(settings.afterMs);
      } finally {
        await Promise.all(load.map((part) => part.stop()));
      }
      target.hot = [];
      const window: PhaseWindow = { name: spec.name, start, end: now(world), ...(fault === undefined ? {} : { fault }) };
      recorder.phases.push(window);
      recorder.phase = `${spec.name}:check`;
      const history: History = { exchanges: recorder.exchanges, feeds: recorder.feeds, phases: recorder.phases, writers: target.writers, rate: settings.rate };
      let violations = checkPhase(history, window);
      let extra: Record<string, unknown>[] = [];
      try {
        const ids = recorder.exchanges.filter((exchange) => exchange.op.kind === 'create-event' && exchange.status === 201).map((exchange) => (exchange.body as { id: string }).id);
        const sample = Array.from({ length: Math.min(20, ids.length) }, () => ids[Math.floor(random() * ids.length)]!);
        const states = await collectStates(world, sample);
        const final = parseState(states[0]!);
        await caughtUp(paged, stream, final.lastSeq, final.lastEntrySeq);
        const followers: FollowerView[] = [{ name: 'paged', events: new Map(paged.events), position: paged.position }, { name: 'stream', events: new Map(stream.events), position: stream.position }];
        violations = [...checkHistory({ history, final, states, followers }), ...violations];
        extra = states.map((state) => ({ type: 'state', phase: spec.name, ...state }));
      } catch (error) {
        // The history's promises cannot be checked without the final state; the phase's goals are checked all the same.
        violations.push({ check: 'agreement', message: `${spec.name}: the final state could not be read: ${error instanceof Error ? error.message : String(error)}`, exchanges: [] });
      }
      // A rate violation is about one request: each is reported by the first phase that checks after it was made.
      const from = checkedUpTo;
      checkedUpTo = recorder.exchanges.length;
      const inPhase = (violation: Violation): boolean => !RATE_CHECKS.includes(violation.check) || violation.exchanges[0]! >= from;
      const fresh = violations.filter((violation) => inPhase(violation) && !reported.has(`${violation.check} ${violation.message}`));
      for (const violation of fresh) reported.add(`${violation.check} ${violation.message}`);
      const figures = figuresOf(history, window, fresh, now(world) - window.end);
      reports.push(...extra, ...fresh.map((violation) => ({ type: 'violation', phase: spec.name, ...violation })), { type: 'figures', ...figures });
      historyFile = recorder.write(file, reports);
      recorder.phase = 'between';
      return { window, violations: fresh, figures, report: reportOf(figures, fresh, recorder.exchanges, historyFile), historyFile };
    },
    async stop() {
      await Promise.all([paged.stop(), stream.stop(), prober.stop()]);
      historyFile = recorder.write(file, reports);
      await world.stop();
    },
  };
}

/** Creates an event the phase needs (recorded as a write like any other), trying until it is acknowledged: the same body every time, since a try whose answer was lost may have been saved under its Idempotency-Key. */
async function setupEvent(world: World, title: string, capacity: number): Promise<string> {
  const key = world.keys.check[0]!;
  for (let attempt = 0; ; attempt++) {
    const exchange = await recordedCall(world.recorder, { client: 'setup', key: key.label, instance: world.target.writers[0]!, method: 'POST', path: '/events', requestHeaders: { 'idempotency-key': title }, op: { kind: 'create-event', title, idem: title } }, { baseUrl: world.target.url(world.target.writers[0]!), secret: key.secret, timeoutMs: 10_000, body: eventBody(title, capacity, 0) });
    if (exchange.status === 201) return (exchange.body as { id: string }).id;
    if (attempt >= 20) throw new Error(`could not create the phase's event ${title}: ${exchange.status} ${JSON.stringify(exchange.body)}`);
    await sleep(500);
  }
}

/** `registrations` simultaneous registrations for the burst event, spread over the writers and the clients' keys. */
async function sendBurst(world: World, spec: PhaseSpec, eventId: string, seed: number): Promise<void> {
  const { target, keys } = world;
  await Promise.all(Array.from({ length: spec.burst.registrations }, (_, n) => {
    const key = keys.clients[n % keys.clients.length]!;
    const instance = target.writers[n % target.writers.length]!;
    const email = `burst-${spec.name}-${n}-${seed}@campus.example`;
    return recordedCall(world.recorder, { client: 'burst', key: key.label, instance, method: 'POST', path: `/events/${eventId}/registrations`, requestHeaders: {}, op: { kind: 'register', eventId, email } }, { baseUrl: target.url(instance), secret: key.secret, timeoutMs: target.timeoutMs, body: { name: `Burst ${n}`, email } });
  }));
}

/** Waits until every writer has acknowledged a write begun after the fault ended (at most the recovery goal and a bit). */
async function untilRecovered(world: World, fault: Fault | undefined): Promise<void> {
  if (fault === undefined) return;
  const deadline = performance.now() + GOALS.recoverMs + 500;
  const acked = (instance: number): boolean => world.recorder.exchanges.some((exchange) => exchange.instance === instance && isWrite(exchange) && exchange.status >= 200 && exchange.status < 300 && exchange.headers['idempotent-replayed'] !== 'true' && exchange.start >= fault.healed);
  while (performance.now() < deadline && !world.target.writers.every(acked)) await sleep(100);
}

/** Waits (at most 5 s) until both followers have reached the final state's position. */
async function caughtUp(paged: Follower, stream: Follower, lastSeq: number, lastEntrySeq: number): Promise<void> {
  const deadline = performance.now() + 5_000;
  while (performance.now() < deadline && (paged.position < lastSeq || stream.position < lastEntrySeq)) await sleep(100);
}

function figuresOf(history: History, window: PhaseWindow, violations: readonly Violation[], checkMs: number): Figures {
  const inPhase = history.exchanges.filter((exchange) => exchange.phase === window.name);
  const writes = inPhase.filter(isWrite);
  const statuses: Record<string, number> = {};
  for (const exchange of inPhase) statuses[exchange.status] = (statuses[exchange.status] ?? 0) + 1;
  const fault = window.fault;
  const recoverMs: Record<string, number | null> = {};
  for (const [writer, ms] of recoveries(history, window)) recoverMs[`instance ${writer}`] = ms === undefined ? null : Math.round(ms);
  const others = fault?.cut === true ? history.writers.filter((writer) => writer !== fault.instance) : [];
  const lyingExchanges = new Set(violations.filter((violation) => violation.check === 'lying-503').flatMap((violation) => violation.exchanges).filter((n) => saysNothingSaved(history.exchanges[n]!)));
  return {
    phase: window.name,
    requests: inPhase.length,
    writes: writes.length,
    acknowledged: writes.filter((exchange) => exchange.status >= 200 && exchange.status < 300).length,
    refused: writes.filter((exchange) => exchange.status >= 400 && !isUncertain(exchange)).length,
    unknown: writes.filter(isUncertain).length,
    lying: lyingExchanges.size,
    readsRefused: inPhase.filter((exchange) => exchange.method === 'GET' && (exchange.status === 503 || exchange.status === 429)).length,
    recoverMs,
    othersStalledMs: others.length === 0 ? null : Math.round(Math.max(...others.map((writer) => longestGap(inPhase, writer, fault!.at, fault!.healed).ms))),
    slowestWriteMs: Math.round(Math.max(0, ...writes.map((exchange) => exchange.end - exchange.start))),
    checkMs: Math.round(checkMs),
    statuses,
  };
}

function reportOf(figures: Figures, violations: readonly Violation[], exchanges: readonly Exchange[], file: string): string {
  const lines = [
    `${figures.phase}: ${figures.requests} requests, ${figures.writes} writes: ${figures.acknowledged} acknowledged, ${figures.refused} refused, ${figures.unknown} unknown, ${figures.lying} lying 503s; ${figures.readsRefused} reads refused`,
    `${figures.phase}: recovery after the fault ${JSON.stringify(figures.recoverMs)} ms; others' longest stall during the cut ${figures.othersStalledMs ?? '–'} ms; slowest write ${figures.slowestWriteMs} ms; checked in ${figures.checkMs} ms; statuses ${JSON.stringify(figures.statuses)}`,
  ];
  if (violations.length > 0) lines.push(`${figures.phase}: ${violations.length} violations; the whole history: ${file}`, counterexamples(violations, exchanges));
  return lines.join('\n');
}
