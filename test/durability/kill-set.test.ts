// A Jepsen-style set test: concurrent clients write to the real server, which is killed with SIGKILL at a random moment, round after round.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tempDir } from '../helpers/harness.js';
import { createKey, eventBody, listAll, send, serverArgs, sleep, startServer, type Server } from './support.js';

const CLIENTS = 16;
const MIN_ROUNDS = 20;
const MAX_ROUNDS = 24;
/** Rounds stop starting after this long (at least MIN_ROUNDS run), keeping the test near 30 s. */
const BUDGET_MS = 20_000;
const DELETED = null;

/** What the test knows of one event: its state when last confirmed, and states sent since without an answer. */
interface Known {
  owner: number;
  /** The title, or null once deleted. */
  confirmed: string | null;
  /** States sent but not acknowledged (the server died first): any of them may have landed. */
  unknown: (string | null)[];
}

/** Seeded pseudo-random numbers, so a failing run can be repeated with its seed. */
function randomSource(seed: number): (below: number) => number {
  let state = seed >>> 0 || 1;
  return (below) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % below;
  };
}

test('kill -9 at random moments under 16 concurrent writers: every acknowledged write survives, nothing never sent appears', { timeout: 90_000 }, async (t) => {
  const seed = Number(process.env['KILL_SET_SEED'] ?? Date.now() % 1_000_000);
  const random = randomSource(seed);
  const { dir, remove } = tempDir('campus-kill-set-');
  const key = createKey(dir);
  const known = new Map<string, Known>();
  /** Titles sent in a POST that got no answer: such an event may exist, once. */
  const unansweredCreates = new Set<string>();
  const sentTitles = new Set<string>();
  const started = Date.now();
  let acknowledged = 0;
  /** Writes in flight at a kill, and how many of them turned out to have landed. */
  let inDoubt = 0;
  let landed = 0;
  let server: Server = await startServer(serverArgs(dir));
  let rounds = 0;
  try {
    for (; rounds < MAX_ROUNDS && (rounds < MIN_ROUNDS || Date.now() - started < BUDGET_MS); rounds++) {
      const round = rounds;
      const unexpected: string[] = [];
      let alive = true;
      // The kill comes at a random moment once this round has more acknowledged writes than there are clients (waiting
      // for answers, not for time: on a loaded machine 20-270 ms may see almost none, and the check below would fail).
      let roundAcknowledged = 0;
      let enough: () => void = () => undefined;
      const enoughWritten = new Promise<void>((resolve) => (enough = resolve));
      const client = async (c: number): Promise<void> => {
        for (let k = 0; alive; k++) {
          const live = [...known].filter(([, entry]) => entry.owner === c && entry.confirmed !== DELETED && entry.unknown.length === 0).map(([id]) => id);
          const title = `c${c} r${round} n${k}`;
          sentTitles.add(title);
          const roll = random(10);
          const target = live.length === 0 || roll < 4 ? undefined : live[random(live.length)]!;
          const entry = target === undefined ? undefined : known.get(target)!;
          let response: Response;
          try {
            if (target === undefined || entry === undefined) {
              unansweredCreates.add(title);
              response = await send(server.url, key, 'POST', '/events', eventBody(title));
              if (response.status === 201) {
                const id = response.headers.get('location')!.split('/').pop()!;
                unansweredCreates.delete(title);
                known.set(id, { owner: c, confirmed: title, unknown: [] });
              }
            } else if (roll < 7) {
              entry.unknown.push(title);
              response = await send(server.url, key, 'PUT', `/events/${target}`, { title });
              if (response.status === 200) Object.assign(entry, { confirmed: title, unknown: [] });
            } else {
              entry.unknown.push(DELETED);
              response = await send(server.url, key, 'DELETE', `/events/${target}`);
              if (response.status === 204) Object.assign(entry, { confirmed: DELETED, unknown: [] });
            }
          } catch {
            return; // The server is gone: this write's fate is unknown, and this client stops.
          }
          if (response.status >= 300) unexpected.push(`${response.status} ${await response.text().catch(() => '(body lost)')}`);
          else {
            acknowledged++;
            if (++roundAcknowledged > CLIENTS) enough();
          }
          await response.arrayBuffer().catch(() => undefined);
        }
      };
      const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
      // Every client stopping (a server gone early) also ends the wait; the round then has nothing more to write.
      await Promise.race([enoughWritten, Promise.all(clients)]);
      await sleep(random(250));
      server.child.kill('SIGKILL');
      alive = false;
      assert.equal(await server.exited, 'SIGKILL');
      await Promise.all(clients);
      assert.deepEqual(unexpected, [], `round ${round} (seed ${seed}): only 2xx answers`);

      server = await startServer(serverArgs(dir));
      const found = await listAll(server.url, key);
      inDoubt += unansweredCreates.size + [...known.values()].filter((entry) => entry.unknown.length > 0).length;
      for (const [id, event] of found) {
        assert.ok(sentTitles.has(event.title), `round ${round} (seed ${seed}): ${id} has the title ${event.title}, which no client sent`);
        const entry = known.get(id);
        if (entry === undefined) {
          assert.ok(unansweredCreates.delete(event.title), `round ${round} (seed ${seed}): ${id} (${event.title}) is neither acknowledged nor an unanswered create, or appears twice`);
          landed++;
          known.set(id, { owner: -1, confirmed: event.title, unknown: [] });
          continue;
        }
        const allowed = [entry.confirmed, ...entry.unknown];
        assert.ok(allowed.includes(event.title), `round ${round} (seed ${seed}): ${id} is "${event.title}"; acknowledged "${entry.confirmed}", unanswered ${JSON.stringify(entry.unknown)}`);
        if (event.title !== entry.confirmed) landed++;
        Object.assign(entry, { confirmed: event.title, unknown: [] });
      }
      for (const [id, entry] of known) {
        if (found.has(id)) continue;
        assert.ok(entry.confirmed === DELETED || entry.unknown.includes(DELETED), `round ${round} (seed ${seed}): ${id} ("${entry.confirmed}") was acknowledged and is gone`);
        if (entry.confirmed !== DELETED) landed++;
        known.delete(id);
      }
      unansweredCreates.clear();
    }
  } finally {
    server.child.kill('SIGKILL');
    await server.exited;
    remove();
  }
  t.diagnostic(`seed ${seed}: ${rounds} rounds, ${acknowledged} acknowledged writes, ${inDoubt} in flight at a kill (${landed} of them landed), ${known.size} events at the end`);
  assert.ok(rounds >= MIN_ROUNDS, `${rounds} rounds`);
  assert.ok(acknowledged > rounds * CLIENTS, `${acknowledged} acknowledged writes in ${rounds} rounds`);
});
