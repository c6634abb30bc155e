// The history checker of issue 34: checks a recorded history against the final state of every instance (the safety
// promises of API.md §12), and each phase against the issue's goals; prints a counterexample for each broken one.
import type { Exchange, FeedSession, FinalState, History, InstanceState, PhaseWindow, RateSettings, Registration } from './history-record.js';
import { rateViolations } from './history-rate.js';

/** The name of a check; the first seven are the safety promises, the rest the issue's goals and sanity. */
export type CheckName =
  | 'overbooked' | 'lost-write' | 'lying-503' | 'idempotency' | 'if-match' | 'follower' | 'agreement'
  | 'cut-blocks' | 'recovery' | 'late-outcome' | 'read-refused' | 'read-unanswered' | 'rate-refused' | 'over-admitted' | 'remaining-overstated'
  | 'server-error' | 'unexpected-status';

/** One broken promise, and the requests that show it. */
export interface Violation {
  check: CheckName;
  message: string;
  /** The exchanges involved (their `n`), the first ones most telling. */
  exchanges: number[];
}

/** The goals' limits, in ms (issue 34). */
export const GOALS = {
  /** The others accept writes again within this long of a cut. */
  cutMs: 5_000,
  /** Every writer writes again within this long of the fault's end (the promotion, the database back). */
  recoverMs: 10_000,
  /** While the database restarts or fails over, a write's real outcome (or "outcome unknown") is answered within this long of its request. */
  outcomeMs: 10_000,
  /** What is allowed on top of the limits above for the answer to travel and be timed from outside. */
  slackMs: 500,
};

/** What the follower holds at the end, by way: paged (its position is /changes' next_since) or a stream (the last id). */
export interface FollowerView {
  name: 'paged' | 'stream';
  events: Map<string, Record<string, unknown>>;
  /** Where it is: the paged follower's next `since`, the stream's last id. */
  position: number;
}

/** What checkHistory reads. */
export interface CheckInput {
  history: History;
  /** The final state (read from one instance, once every instance had every write). */
  final: FinalState;
  /** Every instance's raw final state, compared byte for byte. */
  states: InstanceState[];
  followers: FollowerView[];
}

type Write = Exchange & { op: Exclude<Exchange['op'], { kind: 'read' | 'follow' | 'check' }> };

/** True for a request that writes. */
export function isWrite(exchange: Exchange): exchange is Write {
  return exchange.op.kind === 'create-event' || exchange.op.kind === 'register' || exchange.op.kind === 'cancel' || exchange.op.kind === 'update';
}

/** True for a 503 that says the write's outcome is unknown (API.md §12), rather than that nothing was saved. */
export function saysOutcomeUnknown(exchange: Exchange): boolean {
  const details = (exchange.body as { details?: { field?: string; message?: string }[] } | undefined)?.details;
  return exchange.status === 503 && Array.isArray(details) && details.some((detail) => detail.field === 'outcome' && /^unknown/.test(detail.message ?? ''));
}

/** A write whose answer says nothing of it was saved: a 503 without the unknown-outcome detail. */
export function saysNothingSaved(exchange: Exchange): boolean {
  return isWrite(exchange) && exchange.status === 503 && !saysOutcomeUnknown(exchange);
}

/** A write whose outcome the client cannot know: no answer, or the unknown-outcome 503. */
export function isUncertain(exchange: Exchange): boolean {
  return exchange.status === 0 || saysOutcomeUnknown(exchange);
}

const acknowledged = (exchange: Exchange): boolean => exchange.status >= 200 && exchange.status < 300;
const replayed = (exchange: Exchange): boolean => exchange.headers['idempotent-replayed'] === 'true';
/** The seq an ETag names (`"seq in base 36"`, the form this service gives). */
export const etagSeq = (etag: string | undefined): number => (etag === undefined ? NaN : parseInt(etag.replace(/^W\//, '').replace(/"/g, ''), 36));

/** Every safety check over the whole history against the final state. */
export function checkHistory(input: CheckInput): Violation[] {
  const { history, final } = input;
  const load = history.exchanges.filter((exchange) => exchange.op.kind !== 'check');
  return [
    ...checkSeats(load, final),
    ...checkWrites(load, final, observedDescriptions(input)),
    ...checkIfMatch(load),
    ...checkFeeds(history.feeds),
    ...checkFollowers(input.followers, final),
    ...checkAgreement(input.states),
    ...rateViolations(history.exchanges, history.rate, history.phases.flatMap((phase) => (phase.fault === undefined ? [] : [phase.fault]))),
    ...checkStatuses(load),
  ];
}

/** The goals of one phase: writes back on the others within 5 s of a cut, every writer back after the fault, reads answered. */
export function checkPhase(history: History, phase: PhaseWindow): Violation[] {
  const violations: Violation[] = [];
  const fault = phase.fault;
  const inPhase = history.exchanges.filter((exchange) => exchange.phase === phase.name && exchange.op.kind !== 'check');
  if (fault !== undefined && fault.cut) {
    for (const writer of history.writers.filter((instance) => instance !== fault.instance)) {
      const gap = longestGap(inPhase, writer, fault.at, fault.healed);
      if (gap.ms > GOALS.cutMs) {
        const stuck = inPhase.filter((exchange) => exchange.instance === writer && isWrite(exchange) && exchange.start < gap.to && exchange.end > gap.from && !acknowledged(exchange));
        violations.push({ check: 'cut-blocks', message: `${phase.name}: instance ${writer} acknowledged no write for ${Math.round(gap.ms)} ms (${Math.round(gap.from)}–${Math.round(gap.to)} ms; goal ${GOALS.cutMs} ms) of the fault that began at ${Math.round(fault.at)} ms and ended at ${Math.round(fault.healed)} ms: ${fault.what}. Its writes meanwhile: ${summarize(stuck)}`, exchanges: stuck.slice(0, 6).map((exchange) => exchange.n) });
      }
    }
  }
  if (fault !== undefined) {
    for (const [writer, ms] of recoveries(history, phase)) {
      if (ms === undefined || ms > GOALS.recoverMs) {
        const tried = inPhase.filter((exchange) => exchange.instance === writer && isWrite(exchange) && exchange.start >= fault.healed).slice(0, 6);
        violations.push({ check: 'recovery', message: `${phase.name}: instance ${writer} ${ms === undefined ? `acknowledged no write in the ${Math.round(phase.end - fault.healed)} ms after the fault ended` : `first acknowledged a write ${Math.round(ms)} ms after the fault ended`} (${fault.what}); goal ${GOALS.recoverMs} ms. Its writes after: ${summarize(tried)}`, exchanges: tried.map((exchange) => exchange.n) });
      }
    }
  }
  if (fault?.outage !== undefined) {
    const late = inPhase.filter((exchange) => isWrite(exchange) && !Number.isNaN(exchange.end) && (exchange.end - exchange.start > GOALS.outcomeMs + GOALS.slackMs || exchange.error === 'timed out'));
    if (late.length > 0) violations.push({ check: 'late-outcome', message: `${phase.name}: ${late.length} writes were not answered within ${GOALS.outcomeMs} ms of their request while the database restarted or failed over (${fault.what})`, exchanges: late.slice(0, 6).map((exchange) => exchange.n) });
  }
  for (const exchange of inPhase) {
    // Still in flight (the follower and the prober go on while a phase is checked): not unanswered yet.
    if (exchange.method !== 'GET' || exchange.status !== 0 || exchange.op.kind === 'follow' || Number.isNaN(exchange.end)) continue;
    const away = fault?.unanswering;
    if (away !== undefined && away.instance === exchange.instance && exchange.start < away.to && exchange.end > away.from) continue;
    violations.push({ check: 'read-unanswered', message: `${phase.name}: a read on instance ${exchange.instance}, which was running, got no answer (${exchange.error ?? 'none'})`, exchanges: [exchange.n] });
  }
  return violations;
}

/**
 * The longest stretch within [from, to] in which `instance` acknowledged none of its writes (ends of fresh 2xx answers).
 * Writes on the instance come from its pulse writer every few hundred ms, so a stretch is the product's, not idleness.
 */
export function longestGap(exchanges: readonly Exchange[], instance: number, from: number, to: number): { ms: number; from: number; to: number } {
  // A replayed answer (Idempotency-Key) comes from memory: only a fresh 2xx shows the instance can write.
  const acks = exchanges.filter((exchange) => exchange.instance === instance && isWrite(exchange) && acknowledged(exchange) && !replayed(exchange) && exchange.end >= from && exchange.end <= to).map((exchange) => exchange.end).sort((a, b) => a - b);
  let best = { ms: 0, from, to: from };
  let previous = from;
  for (const end of [...acks, to]) {
    if (end - previous > best.ms) best = { ms: end - previous, from: previous, to: end };
    previous = end;
  }
  return best;
}

/** For each writer: ms from the fault's end to the end of its first acknowledged write begun after it (undefined: none). */
export function recoveries(history: History, phase: PhaseWindow): Map<number, number | undefined> {
  const result = new Map<number, number | undefined>();
  const fault = phase.fault;
  if (fault === undefined) return result;
  for (const writer of history.writers) {
    const first = history.exchanges.filter((exchange) => exchange.phase === phase.name && exchange.instance === writer && isWrite(exchange) && acknowledged(exchange) && !replayed(exchange) && exchange.start >= fault.healed).sort((a, b) => a.end - b.end)[0];
    result.set(writer, first === undefined ? undefined : first.end - fault.healed);
  }
  return result;
}

/** registered_count is the confirmed count, never above capacity; seats go first, the waitlist only once full. */
function checkSeats(load: readonly Exchange[], final: FinalState): Violation[] {
  const violations: Violation[] = [];
  for (const [eventId, roster] of final.rosters) {
    const event = final.events.get(eventId);
    const involved = load.filter((exchange) => (exchange.op.kind === 'register' || exchange.op.kind === 'cancel' || exchange.op.kind === 'update') && exchange.op.eventId === eventId && acknowledged(exchange)).map((exchange) => exchange.n);
    if (event === undefined) {
      if (roster.length > 0) violations.push({ check: 'overbooked', message: `event ${eventId} is gone but lists ${roster.length} registrations`, exchanges: involved.slice(-8) });
      continue;
    }
    const capacity = event['capacity'] as number;
    const count = event['registered_count'] as number;
    const confirmed = roster.filter((registration) => registration.status === 'confirmed').length;
    const problems = [
      count !== confirmed ? `registered_count ${count} but ${confirmed} confirmed registrations` : '',
      confirmed > capacity ? `${confirmed} confirmed for ${capacity} seats` : '',
      confirmed !== Math.min(capacity, roster.length) ? `${confirmed} confirmed of ${roster.length} registrations for ${capacity} seats (seats go first)` : '',
    ].filter((problem) => problem !== '');
    if (problems.length > 0) violations.push({ check: 'overbooked', message: `event ${eventId}: ${problems.join('; ')}`, exchanges: involved.slice(-8) });
    // Bursts have no cancels and no capacity changes: what was answered confirmed is at most the seats.
    if (String(event['title']).startsWith('burst')) {
      const answeredConfirmed = load.filter((exchange) => exchange.op.kind === 'register' && exchange.op.eventId === eventId && acknowledged(exchange) && (exchange.body as Registration).status === 'confirmed');
      const ids = new Set(answeredConfirmed.map((exchange) => (exchange.body as Registration).id));
      if (ids.size > capacity) violations.push({ check: 'overbooked', message: `burst event ${eventId}: ${ids.size} registrations answered confirmed for ${capacity} seats`, exchanges: answeredConfirmed.slice(-8).map((exchange) => exchange.n) });
    }
  }
  return violations;
}

/** Every description value seen anywhere: in answers, in the follower's entries, in the final state. */
function observedDescriptions(input: CheckInput): Set<string> {
  const seen = new Set<string>();
  const add = (event: unknown): void => {
    const description = (event as { description?: unknown } | null | undefined)?.description;
    if (typeof description === 'string' && description !== '') seen.add(description);
  };
  for (const exchange of input.history.exchanges) {
    if (exchange.status !== 200 || exchange.body === undefined) continue;
    const changes = (exchange.body as { changes?: { event: unknown }[] }).changes;
    if (Array.isArray(changes)) for (const change of changes) add(change.event);
    else add(exchange.body);
  }
  for (const feed of input.history.feeds) for (const entry of feed.entries) add(entry.event);
  for (const event of input.final.events.values()) add(event);
  return seen;
}

/** Groups the attempts of one logical write: the same title, e-mail, update token, or cancelled registration. */
function groupWrites(load: readonly Exchange[]): Map<string, Write[]> {
  const groups = new Map<string, Write[]>();
  for (const exchange of load) {
    if (!isWrite(exchange)) continue;
    const op = exchange.op;
    const mark = op.kind === 'create-event' ? `create ${op.title}` : op.kind === 'register' ? `register ${op.eventId} ${op.email.toLowerCase()}` : op.kind === 'update' ? `update ${op.token}` : `cancel ${op.regId}`;
    groups.set(mark, [...(groups.get(mark) ?? []), exchange]);
  }
  return groups;
}

/** No acknowledged write lost, nothing kept that was answered "nothing saved", no Idempotency-Key written twice. */
function checkWrites(load: readonly Exchange[], final: FinalState, observed: Set<string>): Violation[] {
  const violations: Violation[] = [];
  const groups = groupWrites(load);
  const ns = (attempts: readonly Exchange[]): number[] => attempts.map((attempt) => attempt.n);
  const byTitle = new Map<string, string[]>();
  for (const [id, event] of final.events) byTitle.set(String(event['title']), [...(byTitle.get(String(event['title'])) ?? []), id]);
  const regById = new Map<string, Registration>();
  for (const roster of final.rosters.values()) for (const registration of roster) regById.set(registration.id, registration);
  const updates = [...groups.values()].flat().filter((exchange) => exchange.op.kind === 'update');
  /** Some attempt may have written: a fresh 2xx, or an outcome unknown. */
  const mayHaveWritten = (attempts: readonly Exchange[]): boolean => attempts.some((attempt) => (acknowledged(attempt) && !replayed(attempt)) || isUncertain(attempt));
  const lying = (attempts: readonly Exchange[], what: string): void => {
    const liars = attempts.filter(saysNothingSaved);
    if (liars.length > 0) violations.push({ check: 'lying-503', message: `${what}, yet ${liars.length === attempts.length ? 'every attempt was' : `${liars.length} of ${attempts.length} attempts were`} answered 503 "nothing was saved" and none of the others can have written it: ${summarize(attempts)}`, exchanges: ns(attempts) });
  };
  for (const attempts of groups.values()) {
    const op = attempts[0]!.op;
    const acked = attempts.filter(acknowledged);
    const ids = new Set(acked.map((attempt) => (attempt.body as { id?: string } | undefined)?.id));
    if (op.kind === 'create-event' || op.kind === 'register') {
      if (ids.size > 1) violations.push({ check: 'idempotency', message: `one ${op.kind === 'create-event' ? `Idempotency-Key ${op.idem}` : `registration Idempotency-Key ${op.idem}`} answered ${ids.size} different ids: written more than once: ${summarize(acked)}`, exchanges: ns(acked) });
      const firstAck = acked[0];
      const refusedLater = firstAck === undefined ? [] : attempts.filter((attempt) => attempt.start > firstAck.end && attempt.status === 409);
      if (op.idem !== undefined && refusedLater.length > 0) violations.push({ check: 'idempotency', message: `a retry of Idempotency-Key ${op.idem} after its 201 was answered 409, not replayed: ${summarize([firstAck!, ...refusedLater])}`, exchanges: ns([firstAck!, ...refusedLater]) });
    }
    if (op.kind === 'create-event') {
      const present = byTitle.get(op.title) ?? [];
      if (present.length > 1) violations.push({ check: 'idempotency', message: `${present.length} events titled ${JSON.stringify(op.title)} (${present.join(', ')}) from one logical write${op.idem === undefined ? '' : ` (Idempotency-Key ${op.idem})`}: ${summarize(attempts)}`, exchanges: ns(attempts) });
      for (const attempt of acked) {
        const id = (attempt.body as { id: string }).id;
        if (!final.events.has(id)) violations.push({ check: 'lost-write', message: `event ${id} was acknowledged (201) and is not in the final state: ${summarize([attempt])}`, exchanges: [attempt.n] });
      }
      if (present.length > 0 && !mayHaveWritten(attempts)) lying(attempts, `event ${present[0]} (${JSON.stringify(op.title)}) is in the final state`);
    } else if (op.kind === 'register') {
      const roster = final.rosters.get(op.eventId) ?? [];
      const present = roster.filter((registration) => registration.email.toLowerCase() === op.email.toLowerCase());
      for (const attempt of acked) {
        const id = (attempt.body as { id: string }).id;
        const cancels = groups.get(`cancel ${id}`) ?? [];
        const mayBeCancelled = cancels.some((cancel) => acknowledged(cancel) || isUncertain(cancel) || saysNothingSaved(cancel));
        if (!regById.has(id) && !mayBeCancelled) violations.push({ check: 'lost-write', message: `registration ${id} on ${op.eventId} was acknowledged (201) and is not in the final roster: ${summarize([attempt])}`, exchanges: [attempt.n] });
      }
      if (present.length > 0 && !mayHaveWritten(attempts)) lying(attempts, `registration ${present[0]!.id} (${op.email}) is in the final roster`);
    } else if (op.kind === 'cancel') {
      const present = regById.has(op.regId);
      const done = attempts.filter(acknowledged);
      if (present && done.length > 0) violations.push({ check: 'lost-write', message: `registration ${op.regId} was cancelled (204) and is still in the final roster: ${summarize(done)}`, exchanges: ns(done) });
      if (!present && final.rosters.has(op.eventId) && !mayHaveWritten(attempts)) lying(attempts, `registration ${op.regId} is gone from the final roster (cancelled after all, or lost)`);
    } else if (op.kind === 'update') {
      for (const attempt of acked) {
        const event = final.events.get(op.eventId);
        const description = event?.['description'];
        if (description === op.token) continue;
        const resulting = etagSeq(attempt.headers['etag']);
        const later = updates.find((other) => other.op.kind === 'update' && other.op.token === description && etagSeq(other.op.ifMatch) >= resulting);
        if (later === undefined) violations.push({ check: 'lost-write', message: `the update of ${op.eventId} to ${JSON.stringify(op.token)} was acknowledged (200, ETag ${attempt.headers['etag']}) and the final description is ${JSON.stringify(description)}, which no update based on it wrote: ${summarize([attempt])}`, exchanges: [attempt.n] });
      }
      if (observed.has(op.token) && !mayHaveWritten(attempts)) lying(attempts, `the description ${JSON.stringify(op.token)} was served`);
    }
  }
  return violations;
}

/** At most one winner per If-Match value (API.md §4, §12). */
function checkIfMatch(load: readonly Exchange[]): Violation[] {
  const winners = new Map<string, Exchange[]>();
  for (const exchange of load) {
    if (exchange.op.kind !== 'update' || !acknowledged(exchange)) continue;
    const key = `${exchange.op.eventId} ${exchange.op.ifMatch}`;
    winners.set(key, [...(winners.get(key) ?? []), exchange]);
  }
  return [...winners].filter(([, list]) => list.length > 1).map(([key, list]) => ({ check: 'if-match', message: `${list.length} updates with If-Match ${key.split(' ')[1]} on ${key.split(' ')[0]} all succeeded: ${summarize(list)}`, exchanges: list.map((exchange) => exchange.n) }));
}

/** Every follower session saw strictly increasing seqs, after the position it started from. */
function checkFeeds(feeds: readonly FeedSession[]): Violation[] {
  const violations: Violation[] = [];
  for (const feed of feeds) {
    let previous = feed.after;
    for (const entry of feed.entries) {
      if (entry.seq <= previous) {
        violations.push({ check: 'follower', message: `the follower's ${feed.kind} session on instance ${feed.instance} from ${feed.after} (${feed.phase}) got seq ${entry.seq} (${entry.id}) after ${previous}`, exchanges: [] });
        break;
      }
      previous = entry.seq;
    }
  }
  return violations;
}

/** Each follower's copy equals the final state. */
function checkFollowers(followers: readonly FollowerView[], final: FinalState): Violation[] {
  const violations: Violation[] = [];
  for (const follower of followers) {
    const missing = [...final.events.keys()].filter((id) => !follower.events.has(id));
    const extra = [...follower.events.keys()].filter((id) => !final.events.has(id));
    const differing = [...final.events].filter(([id, event]) => follower.events.has(id) && JSON.stringify(follower.events.get(id)) !== JSON.stringify(event)).map(([id]) => id);
    const expected = follower.name === 'paged' ? final.lastSeq : final.lastEntrySeq;
    if (missing.length + extra.length + differing.length > 0 || follower.position !== expected) {
      violations.push({ check: 'follower', message: `the ${follower.name} follower ends at ${follower.position} (the final state at ${expected}) with ${missing.length} events missing (${missing.slice(0, 3).join(', ')}), ${extra.length} extra (${extra.slice(0, 3).join(', ')}), ${differing.length} different (${differing.slice(0, 3).join(', ')})`, exchanges: [] });
    }
  }
  return violations;
}

/** Every instance served the same bytes. */
export function checkAgreement(states: readonly InstanceState[]): Violation[] {
  const violations: Violation[] = [];
  const [first, ...others] = states;
  if (first === undefined) return violations;
  for (const other of others) {
    const pairs: [string, string | undefined, string | undefined][] = [
      ['GET /changes?since=0', first.changesPages.join('\n'), other.changesPages.join('\n')],
      ['GET /events?limit=100 pages', first.eventPages.join('\n'), other.eventPages.join('\n')],
      ...[...new Set([...Object.keys(first.eventBodies), ...Object.keys(other.eventBodies)])].map((id): [string, string | undefined, string | undefined] => [`GET /events/${id}`, first.eventBodies[id], other.eventBodies[id]]),
      ...[...new Set([...Object.keys(first.rosterPages), ...Object.keys(other.rosterPages)])].map((id): [string, string | undefined, string | undefined] => [`GET /events/${id}/registrations`, first.rosterPages[id]?.join('\n'), other.rosterPages[id]?.join('\n')]),
    ];
    for (const [what, a, b] of pairs) {
      if (a === b) continue;
      violations.push({ check: 'agreement', message: `instances ${first.instance} and ${other.instance} differ on ${what}: ${firstDifference(a ?? '(none)', b ?? '(none)')}`, exchanges: [] });
    }
  }
  return violations;
}

function firstDifference(a: string, b: string): string {
  let at = 0;
  while (at < a.length && at < b.length && a[at] === b[at]) at++;
  return `at byte ${at}: ${JSON.stringify(a.slice(Math.max(0, at - 40), at + 80))} against ${JSON.stringify(b.slice(Math.max(0, at - 40), at + 80))}`;
}

/** A 500 is a bug; a 4xx the load should never cause says the harness or the product is wrong. */
function checkStatuses(load: readonly Exchange[]): Violation[] {
  const violations: Violation[] = [];
  const errors = load.filter((exchange) => exchange.status >= 500 && exchange.status !== 503);
  if (errors.length > 0) violations.push({ check: 'server-error', message: `${errors.length} answers of 5xx other than 503: ${summarize(errors)}`, exchanges: errors.slice(0, 6).map((exchange) => exchange.n) });
  const odd = load.filter((exchange) => [400, 401, 403, 404, 405, 413, 415, 422].includes(exchange.status));
  if (odd.length > 0) violations.push({ check: 'unexpected-status', message: `${odd.length} answers the load should never get: ${summarize(odd)}`, exchanges: odd.slice(0, 6).map((exchange) => exchange.n) });
  return violations;
}

/** A few exchanges in one line each (at most six), for a message. */
export function summarize(exchanges: readonly Exchange[]): string {
  if (exchanges.length === 0) return '(none)';
  const shown = exchanges.slice(0, 6).map((exchange) => `#${exchange.n}`).join(', ');
  return exchanges.length > 6 ? `${shown} and ${exchanges.length - 6} more` : shown;
}

/** One exchange as a line of a counterexample. */
export function formatExchange(exchange: Exchange): string {
  const headers = Object.entries(exchange.requestHeaders).map(([name, value]) => `${name}: ${value}`).join(', ');
  const remaining = exchange.headers['ratelimit-remaining'];
  const answer = exchange.status === 0 ? `no answer (${exchange.error ?? '?'})` : `${exchange.status}${exchange.headers['idempotent-replayed'] === 'true' ? ' (replayed)' : ''}${exchange.headers['etag'] === undefined ? '' : ` ETag ${exchange.headers['etag']}`}${remaining === undefined ? '' : ` RateLimit-Remaining ${remaining}`}`;
  const body = exchange.body === undefined ? '' : ` ${JSON.stringify(exchange.body).slice(0, 240)}`;
  return `#${exchange.n} ${exchange.phase} ${exchange.client} → instance ${exchange.instance} [${exchange.start.toFixed(0)}–${exchange.end.toFixed(0)} ms] ${exchange.method} ${exchange.path}${headers === '' ? '' : ` (${headers})`}${exchange.requestBody === undefined ? '' : ` ${JSON.stringify(exchange.requestBody).slice(0, 160)}`} → ${answer}${body}`;
}

/** The counterexample of each broken check: its first violation with the requests involved, and how many more there are. */
export function counterexamples(violations: readonly Violation[], exchanges: readonly Exchange[]): string {
  const byCheck = new Map<CheckName, Violation[]>();
  for (const violation of violations) byCheck.set(violation.check, [...(byCheck.get(violation.check) ?? []), violation]);
  const lines: string[] = [];
  for (const [check, list] of byCheck) {
    const first = list[0]!;
    lines.push(`✗ ${check} (${list.length} violation${list.length === 1 ? '' : 's'}): ${first.message}`);
    for (const n of first.exchanges.slice(0, 6)) if (exchanges[n] !== undefined) lines.push(`    ${formatExchange(exchanges[n]!)}`);
  }
  return lines.join('\n');
}

/** Re-exported for callers that want the settings' type beside the checks. */
export type { RateSettings };
