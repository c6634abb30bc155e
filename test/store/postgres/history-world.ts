// The world a history runs in: a throwaway cluster (each instance's link to it through a proxy of its own), or a
// primary with a synchronous standby (each instance given both hosts); three instances; one API key per client.
import { setTimeout as sleep } from 'node:timers/promises';
import { createDatabaseKey } from '../../../src/cli-postgres.js';
import { startInstances, type Instances } from '../../helpers/instances.js';
import { startPostgresPair, type PostgresPair } from '../../helpers/postgres-standby.js';
import { startPostgres, type PostgresServer } from '../../helpers/postgres-server.js';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.js';
import { recordedCall, Recorder, type InstanceState, type RateSettings } from './history-record.js';
import type { Key, LoadTarget } from './history-workload.js';

/** Settings of a run: the quick form in `make test`, the long one in `make soak`. */
export interface RunSettings {
  clients: number;
  seed: number;
  /** Load before the fault. */
  warmMs: number;
  /** How long a freeze or a pause lasts. */
  faultMs: number;
  /** How long the database stays down when it restarts. */
  outageMs: number;
  /** Load after every writer is back. */
  afterMs: number;
  /** A client gives up on an answer after this long. */
  timeoutMs: number;
  rate: RateSettings;
}

/** Three instances on one database, the load's keys, and the fault levers. */
export interface World {
  readonly name: string;
  readonly recorder: Recorder;
  readonly instances: Instances;
  readonly target: LoadTarget;
  readonly keys: { clients: Key[]; pulses: Key[]; follower: Key; prober: Key; check: Key[] };
  /** The proxies between each instance and the database (the proxied world). */
  readonly proxies: TcpProxy[];
  readonly server?: PostgresServer;
  readonly pair?: PostgresPair;
  /** Event ids whose rosters and single reads the final state includes (the hot and burst events of every phase). */
  readonly watched: Set<string>;
  stop(): Promise<void>;
}

const WRITERS = [0, 1];
/** Keys the final-state reads take turns with, so hundreds of reads at once stay under each key's limit. */
const CHECK_KEYS = 8;
const FOLLOWER = 2;

/** Starts a world: `proxied` (one cluster, a proxy per instance) or `standby` (a primary and its standby, both hosts given). */
export async function startWorld(kind: 'proxied' | 'standby', settings: RunSettings): Promise<World> {
  const recorder = new Recorder();
  let server: PostgresServer | undefined;
  let pair: PostgresPair | undefined;
  const proxies: TcpProxy[] = [];
  let instances: Instances | undefined;
  try {
    let urls: string[];
    let keyUrl: string;
    if (kind === 'proxied') {
      server = await startPostgres({ settings: { max_connections: '300' } });
      keyUrl = await server.createDatabase('history');
      const database = new URL(keyUrl).pathname;
      for (let i = 0; i < 3; i++) proxies.push(await startTcpProxy({ host: '127.0.0.1', port: server.port }));
      urls = proxies.map((proxy) => `postgres://postgres@127.0.0.1:${proxy.port}${database}`);
    } else {
      pair = await startPostgresPair();
      const database = await pair.createDatabase('failover');
      keyUrl = database.primaryUrl;
      urls = [database.url, database.url, database.url];
    }
    const rateArgs = ['--rate-limit', String(settings.rate.limit), '--rate-window', String(settings.rate.windowMs / 1000)];
    instances = await startInstances(urls, 3, rateArgs);
    const made = async (label: string): Promise<Key> => ({ label, secret: (await createDatabaseKey(keyUrl, { name: label, email: `${label}@campus.example`, role: 'admin' })).secret });
    const checkLabels = Array.from({ length: CHECK_KEYS }, (_, k) => `check${k}`);
    const labels = [...Array.from({ length: settings.clients }, (_, c) => `client${c}`), 'pulse0', 'pulse1', 'follower', 'prober', ...checkLabels];
    const all: Key[] = [];
    for (let i = 0; i < labels.length; i += 8) all.push(...(await Promise.all(labels.slice(i, i + 8).map(made))));
    const byLabel = new Map(all.map((key) => [key.label, key]));
    const running = instances;
    // A new key holds on every instance within 2 s (API.md §12): wait until the last one made does.
    for (let i = 0; i < 3; i++) {
      for (let tries = 0; (await fetch(`${running.servers[i]!.url}/me`, { headers: { authorization: `Bearer ${all[all.length - 1]!.secret}` } })).status !== 200; tries++) {
        if (tries > 100) throw new Error(`instance ${i} does not know the keys made for the load`);
        await sleep(100);
      }
    }
    const target: LoadTarget = { recorder, url: (i) => running.servers[i]!.url, writers: WRITERS, instances: [0, 1, 2], followerInstance: FOLLOWER, hot: [], timeoutMs: settings.timeoutMs };
    const world: World = {
      name: kind,
      recorder,
      instances: running,
      target,
      keys: {
        clients: Array.from({ length: settings.clients }, (_, c) => byLabel.get(`client${c}`)!),
        pulses: [byLabel.get('pulse0')!, byLabel.get('pulse1')!],
        follower: byLabel.get('follower')!,
        prober: byLabel.get('prober')!,
        check: checkLabels.map((label) => byLabel.get(label)!),
      },
      proxies,
      ...(server === undefined ? {} : { server }),
      ...(pair === undefined ? {} : { pair }),
      watched: new Set(),
      async stop() {
        await running.stop();
        await Promise.all(proxies.map((proxy) => proxy.close()));
        server?.stop();
        await pair?.stop();
      },
    };
    return world;
  } catch (error) {
    await instances?.stop();
    await Promise.all(proxies.map((proxy) => proxy.close()));
    server?.stop();
    await pair?.stop();
    throw error;
  }
}

let checkTurn = 0;

/** A read of the final state (recorded, as every request is), its raw body; 429 waits for Retry-After, no answer retries. */
async function checkRead(world: World, instance: number, path: string): Promise<{ status: number; text: string }> {
  for (let attempt = 0; ; attempt++) {
    const key = world.keys.check[checkTurn++ % world.keys.check.length]!;
    let text = '';
    const exchange = await recordedCall(world.recorder, { client: 'check', key: key.label, instance, method: 'GET', path, requestHeaders: {}, op: { kind: 'check' } }, { baseUrl: world.target.url(instance), secret: key.secret, timeoutMs: 10_000, keepBody: false, onText: (body) => (text = body) });
    // A 429 (these keys read a lot at once) waits and tries again; another failure is tried three times.
    if (exchange.status === 200 || exchange.status === 404 || attempt >= (exchange.status === 429 ? 20 : 2)) return { status: exchange.status, text };
    await sleep(exchange.status === 429 ? 1000 * Math.min(5, Number(exchange.headers['retry-after'] ?? 1)) : 300);
  }
}

/** /changes?since=0 page by page (limit 1000), each page without its copy token (each instance makes its own). */
async function changesOf(world: World, instance: number): Promise<string[]> {
  const pages: string[] = [];
  let since = 0;
  let copy: string | undefined;
  for (;;) {
    const { status, text } = await checkRead(world, instance, `/changes?since=${since}&limit=1000${copy === undefined ? '' : `&copy=${copy}`}`);
    if (status !== 200) throw new Error(`instance ${instance} answered ${status} to /changes?since=${since} while the final state was read`);
    const body = JSON.parse(text) as { next_since: number; more: boolean; copy?: string };
    pages.push(text.replace(/,"copy":"[A-Za-z0-9_-]*"/, ''));
    if (!body.more) return pages;
    since = body.next_since;
    copy = body.copy;
  }
}

const nextSince = (pages: readonly string[]): number => (JSON.parse(pages[pages.length - 1]!) as { next_since: number }).next_since;

/**
 * Every instance's final state, once all have applied the same newest write (each within 1 s of it, API.md §12; given
 * 5 s here): /changes?since=0, GET /events pages, the watched events one by one and their rosters.
 */
export async function collectStates(world: World, sample: readonly string[]): Promise<InstanceState[]> {
  const count = world.instances.servers.length;
  let changes: string[][] = [];
  for (let tries = 0; ; tries++) {
    changes = await Promise.all(Array.from({ length: count }, (_, i) => changesOf(world, i)));
    const seqs = changes.map(nextSince);
    if (seqs.every((seq) => seq === seqs[0]) || tries >= 25) break;
    await sleep(200);
  }
  // The instances are read side by side (each one's reads in order): the load has stopped, nothing changes meanwhile.
  return Promise.all(Array.from({ length: count }, async (_, i): Promise<InstanceState> => {
    const eventPages: string[] = [];
    for (let page = 1; ; page++) {
      const { status, text } = await checkRead(world, i, `/events?limit=100&page=${page}`);
      if (status !== 200) throw new Error(`instance ${i} answered ${status} to GET /events?page=${page}`);
      eventPages.push(text);
      if ((JSON.parse(text) as { events: unknown[] }).events.length < 100) break;
    }
    const eventBodies: Record<string, string> = {};
    for (const id of new Set([...world.watched, ...sample])) eventBodies[id] = (await checkRead(world, i, `/events/${id}`)).text;
    const rosterPages: Record<string, string[]> = {};
    for (const id of world.watched) {
      const pages: string[] = [];
      for (let page = 1; ; page++) {
        const { status, text } = await checkRead(world, i, `/events/${id}/registrations?limit=100&page=${page}`);
        if (status !== 200) break;
        pages.push(text);
        if ((JSON.parse(text) as { registrations: unknown[] }).registrations.length < 100) break;
      }
      rosterPages[id] = pages;
    }
    return { instance: i, changesPages: changes[i]!, eventPages, eventBodies, rosterPages };
  }));
}
