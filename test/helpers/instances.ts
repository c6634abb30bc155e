// Several `node dist/server.js --store postgres://…` on one database, driven over HTTP as a load balancer would.
import { spawnServer, type SpawnedServer } from './spawn.js';

/** A few instances on one database, and the admin key the first one made. */
export interface Instances {
  servers: SpawnedServer[];
  adminKey: string;
  /** A request to instance `i` with the admin key (JSON body when given). */
  call(i: number, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  /** Kills instance `i` with SIGKILL (as a machine lost would) and starts it again. */
  killAndRestart(i: number): Promise<void>;
  stop(): Promise<void>;
}

/** Starts `count` instances on `url`: the first alone (it migrates the schema and makes the first admin key), then the rest together. */
export async function startInstances(url: string, count: number, extraArgs: string[] = []): Promise<Instances> {
  // A later --rate-limit in extraArgs wins.
  const args = ['--port', '0', '--store', url, '--rate-limit', '1000000', '--console', 'off', '--log-level', 'warn', ...extraArgs];
  const first = await spawnServer(args);
  const servers = [first, ...(await Promise.all(Array.from({ length: count - 1 }, () => spawnServer(args))))];
  const match = /"key":"(cek_[A-Za-z0-9_-]+)"/.exec(first.stderr());
  if (match === null) throw new Error(`the first instance printed no admin key; stderr: ${first.stderr()}`);
  const adminKey = match[1]!;
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
      servers[i]!.child.kill('SIGKILL');
      await servers[i]!.exited;
      servers[i] = await spawnServer(args);
    },
    async stop() {
      await Promise.all(servers.map((server) => (server.child.exitCode === null && server.child.signalCode === null ? server.stop() : server.exited)));
    },
  };
}

/** A valid new event starting `day` days into 2031. */
export function newEvent(n: number, capacity = 10): Record<string, unknown> {
  const day = String(1 + (n % 28)).padStart(2, '0');
  return { title: `Event ${n}`, category: 'academic', location: 'Hall', start_time: `2031-03-${day}T10:00:00Z`, end_time: `2031-03-${day}T12:00:00Z`, capacity };
}
