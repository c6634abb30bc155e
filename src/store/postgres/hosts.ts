// A --store URL naming one or several PostgreSQL hosts (`postgres://user:password@h1:5432,h2:5432/db`): parsed, checked, and its primary found.
import { unreachableWhy } from './unreachable.js';

/** One host of the list, as written (a name, an IPv4 address, or an IPv6 address in brackets) and its port. */
export interface StoreHost {
  readonly host: string;
  readonly port: number;
}

/** A parsed --store URL: its hosts in the order they are tried, and a single-host URL for each, for the client. */
export interface StoreUrl {
  readonly hosts: readonly StoreHost[];
  /** The URL the client connects to for host `i`: the same user, password, database and parameters, that host alone. */
  urlFor(i: number): string;
  /** `host:port` of host `i`, for logs. */
  nameOf(i: number): string;
}

/** The URL cannot name a database to use: the message says what is wrong, without the password. */
export class StoreUrlError extends Error {
  override readonly name = 'StoreUrlError';
}

/** Most hosts one URL may list: a primary and its standbys, not a fleet. */
const MAX_HOSTS = 16;
const DEFAULT_PORT = 5432;
const NAME = /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,252}[A-Za-z0-9_.])?$/;
const IPV6 = /^\[[0-9A-Fa-f:.]+(?:%[A-Za-z0-9_.-]+)?\]$/;

/**
 * Splits `postgres://[user[:password]@]host[:port][,host[:port]…][/database][?params]` into its hosts (tried in
 * order, as libpq does). Throws StoreUrlError for an empty host, a bad port or a host list too long. A password
 * holding `@`, `/` or `,` must be percent-encoded, as in any URL.
 */
export function parseStoreUrl(url: string): StoreUrl {
  const scheme = /^(postgres(?:ql)?):\/\//.exec(url);
  if (scheme === null) throw new StoreUrlError('a PostgreSQL URL starts with postgres:// or postgresql://');
  const rest = url.slice(scheme[0].length);
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd);
  const tail = authorityEnd === -1 ? '' : rest.slice(authorityEnd);
  const at = authority.lastIndexOf('@');
  const userinfo = at === -1 ? '' : authority.slice(0, at + 1);
  const list = authority.slice(at + 1);
  if (list === '') throw new StoreUrlError('the URL names no host: write postgres://user:password@host:port/database');
  const entries = list.split(',');
  if (entries.length > MAX_HOSTS) throw new StoreUrlError(`the URL names ${entries.length} hosts; at most ${MAX_HOSTS}`);
  const hosts = entries.map((entry, i) => hostOf(entry, i + 1));
  return {
    hosts,
    urlFor: (i) => `${scheme[1]}://${userinfo}${hosts[i]!.host}:${hosts[i]!.port}${tail}`,
    nameOf: (i) => `${hosts[i]!.host}:${hosts[i]!.port}`,
  };
}

function hostOf(entry: string, position: number): StoreHost {
  const where = `host ${position} of the URL's host list`;
  if (entry === '') throw new StoreUrlError(`${where} is empty (two commas, or a comma at an end)`);
  const bracket = entry.startsWith('[') ? entry.indexOf(']') : -1;
  const colon = entry.indexOf(':', bracket + 1);
  const host = colon === -1 ? entry : entry.slice(0, colon);
  const port = colon === -1 ? String(DEFAULT_PORT) : entry.slice(colon + 1);
  if (!(IPV6.test(host) || NAME.test(host))) throw new StoreUrlError(`${where} is not a host name or address: "${host.slice(0, 80)}" (an IPv6 address goes in brackets)`);
  // The port is not echoed: in a URL missing its `@`, what stands there may be a password.
  if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) throw new StoreUrlError(`${where} has a bad port: it must be a number from 1 to 65535`);
  return { host, port: Number(port) };
}

/**
 * What probing one host found: a primary (not in recovery) and which server it is (its postmaster's start time: one
 * server named twice in the URL is one primary), a standby, or no answer (the reason).
 */
export type HostRole = { primary: string } | 'standby' | { failed: string };

/**
 * The first host, in the URL's order, that is a primary. All are probed at once (a dead first host costs one
 * time-out, not one per host), but the order decides, as libpq's `target_session_attrs=read-write` does.
 * Throws with what each host answered when none is a primary, and when two servers are (an old primary started
 * again after its standby was promoted): writing to either would split the campus's data in two.
 */
export async function findPrimary(count: number, probe: (i: number) => Promise<HostRole>, nameOf: (i: number) => string): Promise<number> {
  const roles = await Promise.all(Array.from({ length: count }, (_, i) => probe(i).catch((error: unknown): HostRole => ({ failed: unreachableWhy(error) ?? (error instanceof Error ? error.message : String(error)) }))));
  const primaries = roles.flatMap((role, i) => (typeof role === 'object' && 'primary' in role ? [{ i, server: role.primary }] : []));
  if (new Set(primaries.map(({ server }) => server)).size > 1) {
    throw new Error(`more than one primary among the hosts of the URL (${primaries.map(({ i }) => nameOf(i)).join(', ')}): two servers take writes, as when a former primary is started again after its standby was promoted, and writing to either would split the data; stop one and rebuild it as a standby of the other (pg_rewind, or pg_basebackup -R)`);
  }
  if (primaries.length > 0) return primaries[0]!.i;
  const said = roles.map((role, i) => `${nameOf(i)}: ${role === 'standby' ? 'a standby (in recovery)' : 'failed' in role ? role.failed : 'a primary'}`);
  throw new Error(`no primary among the hosts of the URL (${said.join('; ')})`);
}

/**
 * The URL with its password replaced by `***`, for logs and messages (one host or several). Everything between the
 * user's `:` and the last `@` before the path, or before the query, goes (whichever is later), so a password holding
 * a stray `@`, `/`, `?` or `#` is not half shown.
 */
export function redactUrl(url: string): string {
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(url);
  if (scheme === null) return url.replace(/:[^:@/]*@/, ':***@');
  const rest = url.slice(scheme[0].length);
  const lastAtBefore = (end: number): number => (end === -1 ? rest : rest.slice(0, end)).lastIndexOf('@');
  const at = Math.max(lastAtBefore(rest.search(/[/]/)), lastAtBefore(rest.search(/[?#]/)));
  const colon = at === -1 ? -1 : rest.slice(0, at).indexOf(':');
  return colon === -1 ? url : `${scheme[0]}${rest.slice(0, colon + 1)}***${rest.slice(at)}`;
}
