// kill -9 during a burst of registrations, cancels, check-ins and capacity changes, round after round: the seat invariant and every acknowledged change survive.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { tempDir } from '../helpers/harness.js';
import { mulberry32 } from '../helpers/random.js';
import { runCli } from '../helpers/spawn.js';
import { assertSeatRule, type Attendee } from '../registrations/seat-rule.js';
import { crashAndVerify, createKey, eventBody, logFile, send, serverArgs, sleep, startServer, type Server } from './support.js';

const CLIENTS = 8;
const EVENTS = 3;
const MIN_ROUNDS = 5;
const MAX_ROUNDS = 16;
/** Rounds stop starting after this long (at least MIN_ROUNDS run), keeping the test well under a minute. */
const BUDGET_MS = 25_000;
/** Small enough that the server compacts its log now and then during the bursts, so kills land in compactions too. */
const COMPACT_MIN_BYTES = '32768';

/** What the test knows of one registration. */
interface Known {
  event: string;
  email: string;
  /** Its cancel was acknowledged: it must be gone. */
  cancelled: boolean;
  /** A cancel was sent without an answer: it may be gone. */
  cancelInDoubt: boolean;
  /** Its check-in was acknowledged: it must have checked_in_at. */
  checkedIn: boolean;
  owner: number;
}

async function listAttendees(url: string, key: string, eventId: string): Promise<Attendee[]> {
  const all: Attendee[] = [];
  for (let page = 1; ; page++) {
    const response = await send(url, key, 'GET', `/events/${eventId}/registrations?limit=100&page=${page}`);
    assert.equal(response.status, 200);
    const body = (await response.json()) as { registrations: Attendee[]; total: number };
    all.push(...body.registrations);
    if (body.registrations.length === 0 || all.length >= body.total) return all;
  }
}

test('kill -9 during concurrent registrations, cancels, check-ins and capacity changes: the count, the seats and the waitlist order hold, and every acknowledged change survives', { timeout: 120_000 }, async (t) => {
  const seed = Number(process.env['REGISTRATIONS_CRASH_SEED'] ?? Date.now() % 1_000_000);
  const random = mulberry32(seed);
  const below = (n: number): number => Math.floor(random() * n);
  t.diagnostic(`seed ${seed} (REGISTRATIONS_CRASH_SEED=${seed} repeats the choices, not the timing)`);
  const { dir, remove } = tempDir('campus-registrations-crash-');
  const key = createKey(dir);
  const args = serverArgs(dir, ['--compact-min-bytes', COMPACT_MIN_BYTES]);
  let server: Server = await startServer(args);
  t.after(async () => {
    server.child.kill('SIGKILL');
    await server.exited;
    remove();
  });
  const events: string[] = [];
  for (let k = 0; k < EVENTS; k++) {
    const response = await send(server.url, key, 'POST', '/events', eventBody(`Crash party ${k}`, { capacity: 4 + 6 * k, start_time: '2030-06-01T18:00:00Z', end_time: '2030-06-01T22:00:00Z' }));
    assert.equal(response.status, 201);
    events.push(((await response.json()) as { id: string }).id);
  }
  const known = new Map<string, Known>();
  /** E-mails of registrations sent without an answer, by e-mail: such a registration may exist, once. */
  const unanswered = new Map<string, { event: string; owner: number }>();
  /** Check-ins sent without an answer. */
  const checkInsInDoubt = new Set<string>();
  const capacitiesSent = new Map<string, Set<number>>(events.map((id, k) => [id, new Set([4 + 6 * k])]));
  const started = Date.now();
  const tally = { acknowledged: 0, registered: 0, cancelled: 0, checkedIn: 0, capacityChanges: 0, inDoubt: 0, landed: 0 };
  let rounds = 0;

  for (; rounds < MAX_ROUNDS && (rounds < MIN_ROUNDS || Date.now() - started < BUDGET_MS); rounds++) {
    const round = rounds;
    const context = `round ${round} (seed ${seed})`;
    const unexpected: string[] = [];
    let alive = true;
    const client = async (c: number): Promise<void> => {
      for (let k = 0; alive; k++) {
        const event = events[below(EVENTS)]!;
        const mine = [...known].filter(([, entry]) => entry.owner === c && entry.event === event && !entry.cancelled && !entry.cancelInDoubt);
        const roll = random();
        const target = mine.length === 0 ? undefined : mine[below(mine.length)]!;
        let response: Response;
        let accepted: number[];
        let onSuccess: (body: unknown) => void;
        try {
          if (roll < 0.45 || target === undefined) {
            const email = `c${c}.r${round}.n${k}@campus.edu`;
            unanswered.set(email, { event, owner: c });
            accepted = [201];
            onSuccess = (body) => {
              const registration = body as Attendee;
              unanswered.delete(email);
              known.set(registration.id, { event, email, cancelled: false, cancelInDoubt: false, checkedIn: false, owner: c });
              tally.registered++;
            };
            response = await send(server.url, key, 'POST', `/events/${event}/registrations`, { name: `Client ${c}`, email });
          } else if (roll < 0.8) {
            const [id, entry] = target;
            entry.cancelInDoubt = true;
            accepted = [204];
            onSuccess = () => {
              Object.assign(entry, { cancelled: true, cancelInDoubt: false });
              tally.cancelled++;
            };
            response = await send(server.url, key, 'DELETE', `/events/${event}/registrations/${id}`);
          } else if (roll < 0.9) {
            const [id, entry] = target;
            checkInsInDoubt.add(id);
            // 409: the registration is waitlisted.
            accepted = [200, 409];
            onSuccess = (body) => {
              checkInsInDoubt.delete(id);
              if ((body as Attendee).checked_in_at !== undefined) {
                entry.checkedIn = true;
                tally.checkedIn++;
              }
            };
            response = await send(server.url, key, 'POST', `/events/${event}/registrations/${id}/check-in`);
          } else {
            const capacity = 1 + below(30);
            capacitiesSent.get(event)!.add(capacity);
            // 409: below registered_count.
            accepted = [200, 409];
            onSuccess = () => void tally.capacityChanges++;
            response = await send(server.url, key, 'PUT', `/events/${event}`, { capacity });
          }
          const text = await response.text();
          if (!accepted.includes(response.status)) unexpected.push(`${response.status} ${text}`);
          else {
            tally.acknowledged++;
            onSuccess(response.status === 409 ? {} : text === '' ? undefined : JSON.parse(text));
          }
        } catch {
          return; // The server is gone: this change's fate is unknown, and this client stops.
        }
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
    await sleep(100 + below(400));
    await crashAndVerify(server, { stop: () => void (alive = false), clients, unexpected, context, dataDir: dir });

    server = await startServer(args);
    tally.inDoubt += unanswered.size + checkInsInDoubt.size + [...known.values()].filter((entry) => entry.cancelInDoubt).length;
    const seen = new Set<string>();
    for (const event of events) {
      const response = await send(server.url, key, 'GET', `/events/${event}`);
      assert.equal(response.status, 200);
      const { capacity, registered_count: registeredCount } = (await response.json()) as { capacity: number; registered_count: number };
      assert.ok(capacitiesSent.get(event)!.has(capacity), `${context}: ${event} has capacity ${capacity}, which no client sent`);
      const list = await listAttendees(server.url, key, event);
      assertSeatRule(list, capacity, registeredCount, `${context}, ${event}`);
      for (const attendee of list) {
        assert.ok(!seen.has(attendee.id), `${context}: ${attendee.id} is listed twice`);
        seen.add(attendee.id);
        let entry = known.get(attendee.id);
        if (entry === undefined) {
          const sent = unanswered.get(attendee.email);
          assert.ok(sent !== undefined && sent.event === event, `${context}: ${attendee.id} (${attendee.email}) on ${event} is neither acknowledged nor an unanswered registration for it`);
          unanswered.delete(attendee.email);
          entry = { event, email: attendee.email, cancelled: false, cancelInDoubt: false, checkedIn: false, owner: sent.owner };
          known.set(attendee.id, entry);
          tally.landed++;
        }
        assert.equal(entry.event, event, `${context}: ${attendee.id} moved to another event`);
        assert.ok(!entry.cancelled, `${context}: ${attendee.id} was cancelled (acknowledged) and is back`);
        entry.cancelInDoubt = false; // Its cancel did not land: it is active again.
        if (entry.checkedIn) assert.notEqual(attendee.checked_in_at, null, `${context}: ${attendee.id}'s acknowledged check-in is lost`);
        else if (attendee.checked_in_at !== null) {
          assert.ok(checkInsInDoubt.has(attendee.id), `${context}: ${attendee.id} is checked in, and no check-in was sent`);
          entry.checkedIn = true;
          tally.landed++;
        }
      }
    }
    for (const [id, entry] of known) {
      if (seen.has(id)) continue;
      assert.ok(entry.cancelled || entry.cancelInDoubt, `${context}: ${id} (${entry.email}) was acknowledged and is gone`);
      if (entry.cancelInDoubt) tally.landed++;
      known.delete(id);
    }
    unanswered.clear();
    checkInsInDoubt.clear();
  }
  const finalVerify = runCli(['verify', '--json', '--data-dir', dir]);
  // Only a compaction writes regstate lines: they show whether the server compacted during the bursts (timing decides; not asserted).
  const compacted = readFileSync(logFile(dir), 'utf8').includes('"op":"regstate"');
  t.diagnostic(`seed ${seed}: ${rounds} rounds, ${JSON.stringify(tally)}, ${known.size} registrations at the end, log compacted: ${compacted}; verify: ${finalVerify.stdout.trim()}`);
  assert.equal(finalVerify.status, 0, finalVerify.stderr);
  assert.ok(rounds >= MIN_ROUNDS, `${rounds} rounds`);
  assert.ok(tally.registered > rounds * 2 && tally.cancelled > 0 && tally.capacityChanges > 0, `enough happened: ${JSON.stringify(tally)}`);
});
