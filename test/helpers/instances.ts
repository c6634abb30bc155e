// Several `node dist/server.js --store postgres://…` on one database, driven over HTTP as a load balancer would,
// and the faults a machine suffers: kill -9, a restart, SIGSTOP/SIGCONT.
import { spawnServer, type SpawnedServer } from './spawn.js';

/** A few instances on one database, and the admin key the first one made. */
export interface Instances {
  servers: SpawnedServer[];
  adminKey: string;
  /** A request to instance `i` with the admin key (JSON body when given). */
  call(i: number, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  /** Kills instance `i` with SIGKILL (as a machine lost would) and starts it again. */
  killAndRestart(i: number): Promise<void>;
  /** SIGKILL to instance `i`; resolves once it has exited. */
  kill(i: number): Promise<void>;
  /**
   * Starts instance `i` again (after kill) with the same arguments, on a new port: `servers[i].url` changes. `store`
   * replaces its --store URL from then on (an instance pointed at another server by hand).
   */
  restart(i: number, store?: string): Promise<void>;
  /** SIGSTOP to instance `i`: it stops running (its sockets stay open, unanswered), as a paused machine. */
  pause(i: number): void;
  /** SIGCONT to instance `i` after pause. */
  resume(i: number): void;
  /** Stops every instance (SIGCONT first to a paused one; SIGKILL to one that has not exited within 15 s). */
  stop(): Promise<void>;
}

/** Options of startInstances beyond the arguments. */
export interface InstanceOptions {
  /** Environment added to each instance's. */
  env?: Record<string, string>;
}

/**
 * Starts `count` instances: the first alone (it migrates the schema and makes the first admin key), then the rest
 * together. `url` is every instance's `--store`, or one per instance (each through its own proxy, say).
 */
export async function startInstances(url: string | readonly string[], count: number, extraArgs: string[] = [], options: InstanceOptions = {}): Promise<Instances> {
  const urls = typeof url === 'string' ? Array.from({ length: count }, () => url) : [...url];
  if (urls.length !== count) throw new Error(`startInstances: ${urls.length} URLs for ${count} instances`);
  // A later --rate-limit in extraArgs wins.
  const argsOf = (i: number): string[] => ['--port', '0', '--store', urls[i]!, '--rate-limit', '1000000', '--console', 'off', '--log-level', 'warn', ...extraArgs];
  const spawnOne = (i: number): Promise<SpawnedServer> => spawnServer(argsOf(i), options.env);
  const first = await spawnOne(0);
  const servers = [first, ...(await Promise.all(Array.from({ length: count - 1 }, (_, k) => spawnOne(k + 1))))];
  const match = /"key":"(cek_[A-Za-z0-9_-]+)"/.exec(first.stderr());
  if (match === null) throw new Error(`the first instance printed no admin key; stderr: ${first.stderr()}`);
  const adminKey = match[1]!;
  const paused = new Set<number>();
  const running = (server: SpawnedServer): boolean => server.child.exitCode === null && server.child.signalCode === null;
  const kill = async (i: number): Promise<void> => {
    paused.delete(i);
    servers[i]!.child.kill('SIGKILL');
    await servers[i]!.exited;
  };
  return {
    servers,
    adminKey,
    call(i, method, path, body, headers = {}) {
      return fetch(`${servers[i]!.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${adminKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    },
    async killAndRestart(i) {
      await kill(i);
      servers[i] = await spawnOne(i);
    },
    kill,
    async restart(i, store) {
      if (running(servers[i]!)) throw new Error(`instance ${i} is still running: kill it first`);
      if (store !== undefined) urls[i] = store;
      servers[i] = await spawnOne(i);
    },
    pause(i) {
      servers[i]!.child.kill('SIGSTOP');
      paused.add(i);
    },
    resume(i) {
      servers[i]!.child.kill('SIGCONT');
      paused.delete(i);
    },
    async stop() {
      await Promise.all(servers.map(async (server, i) => {
        if (!running(server)) return server.exited;
        if (paused.delete(i)) server.child.kill('SIGCONT');
        const timer = setTimeout(() => server.child.kill('SIGKILL'), 15_000);
        try {
          return await server.stop();
        } finally {
          clearTimeout(timer);
        }
      }));
    },
  };
}

/** A valid new event starting `day` days into 2031. */
export function newEvent(n: number, capacity = 10): Record<string, unknown> {
  const day = String(1 + (n % 28)).padStart(2, '0');
  return { title: `Event ${n}`, category: 'academic', location: 'Hall', start_time: `2031-03-${day}T10:00:00Z`, end_time: `2031-03-${day}T12:00:00Z`, capacity };
}
