// createApp's options, and their check before anything is opened, by the same rules as the server's flags (config.ts).
import { ConfigError, SETTINGS } from './config.js';
import { APPROVAL_MODES, type ApprovalMode } from './events/publishing.js';
import type { Logger } from './log/logger.js';
import { nearName } from './lib/near-name.js';
import { isTimeZone } from './lib/time-zone.js';
import { isPostgresUrl } from './store/postgres/client.js';
import { redactUrl } from './store/postgres/hosts.js';

/** Options of createApp; every one has a default. */
export interface AppOptions {
  /** The data folder (events.jsonl, keys.json, LOCK). Default `./data`. */
  dataDir?: string;
  /** Requests per window per key. Default 1000. */
  rateLimit?: number;
  /** Window length in seconds. Default 3600. */
  rateWindow?: number;
  /** Browser origins allowed by CORS. Default none. */
  corsOrigins?: readonly string[];
  /** Where logs go. Default: nowhere. */
  logger?: Logger;
  /**
   * `'memory'` keeps events in memory only (for an embedder's own tests); a `postgres://` URL keeps events and keys
   * in that database, shared by every instance on it (needs the optional `pg` package). Default `'file'`.
   */
  store?: 'file' | 'memory' | (string & {});
  /** Create an admin key when the folder has none. Default true. */
  bootstrapAdminKey?: boolean;
  /** How often keys.json is checked for changes, in whole ms. Default 1000; 0: never (for tests). */
  keyPollMs?: number;
  /** Compact the log (on PostgreSQL: write a checkpoint) once it is over this size and mostly superseded. Default 64 MiB. */
  compactMinBytes?: number;
  /** The clock, in ms since the epoch. Default Date.now. */
  now?: () => number;
  /** The source of random bytes (ids, keys). Default crypto.randomBytes. */
  randomBytes?: (size: number) => Uint8Array;
  /**
   * Mount the API under this path in a host application (e.g. `/api/campus`): requests
   * outside it get 404, and Location and Link carry it. Default: none.
   */
  basePath?: string;
  /** Serve the web console at `/console/` (and redirect `/` to it). Default true. */
  console?: boolean;
  /** The campus's IANA time zone (`Europe/Berlin`): where list days begin, and series' default zone. Default `UTC`. */
  timeZone?: string;
  /** Hosts webhooks may call: names, IP addresses, `*.domain`, or `*` for any (API.md §13). Default none. */
  webhookHosts?: readonly string[];
  /** `'required'`: an organizer's new events wait for an admin's approval before anyone else sees them (API.md §14). Default `'off'`. */
  approval?: ApprovalMode;
}

/** Every option's name, checked against AppOptions by the compiler: a misspelt name is refused, not ignored. */
const OPTION_NAMES: Record<keyof AppOptions, true> = {
  dataDir: true,
  rateLimit: true,
  rateWindow: true,
  corsOrigins: true,
  logger: true,
  store: true,
  bootstrapAdminKey: true,
  keyPollMs: true,
  compactMinBytes: true,
  now: true,
  randomBytes: true,
  basePath: true,
  console: true,
  timeZone: true,
  webhookHosts: true,
  approval: true,
};

/** What a logger must have: createLogger's, or one of the host's own with the same methods. */
const LOGGER_METHODS = ['debug', 'info', 'warn', 'error', 'request', 'enabled', 'flush'] as const;

type FlagKey = 'rateLimit' | 'rateWindow' | 'compactMinBytes' | 'corsOrigins' | 'webhookHosts' | 'store' | 'port' | 'host';

/**
 * Throws a TypeError naming the first option createApp cannot use, before the data folder is locked or a database
 * is reached, so a host that corrects it and calls again finds nothing held. An option left undefined takes its default.
 * `caller`: who is named in the message, and the option names it takes besides AppOptions' (startServer's port...).
 */
export function checkAppOptions(options: AppOptions, caller: { name: string; more: readonly string[] } = { name: 'createApp', more: [] }): void {
  const who = caller.name;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) throw new TypeError(`${who}: options must be an object, got ${shown(options)}`);
  const names = [...Object.keys(OPTION_NAMES), ...caller.more];
  for (const name of Object.keys(options)) {
    if (names.includes(name)) continue;
    throw new TypeError(`${who}: unknown option ${name}${hintFor(name, names)}`);
  }
  for (const key of ['rateLimit', 'rateWindow', 'compactMinBytes'] as const) {
    const value: unknown = options[key];
    if (value === undefined) continue;
    if (typeof value !== 'number') throw new TypeError(`${who}: ${key} must be a number, got ${shown(value)}`);
    asFlag(key, String(value), who);
  }
  for (const key of ['corsOrigins', 'webhookHosts'] as const) {
    const list: unknown = options[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new TypeError(`${who}: ${key} must be an array of strings, got ${shown(list)}`);
    const notText = list.find((entry) => typeof entry !== 'string');
    if (notText !== undefined) throw new TypeError(`${who}: ${key} must be an array of strings, got one holding ${shown(notText)}`);
    const one = key === 'corsOrigins' ? 'origin, such as https://events.campus.edu' : 'host name or address (or * for any), such as hooks.campus.edu';
    for (const entry of list as string[]) {
      // The flag takes a comma-separated list; here each string is one entry, as it is used (the flag's message speaks of a list).
      let parsed: string[];
      try {
        parsed = asFlag(key, entry, who) as string[];
      } catch (error) {
        const hint = error instanceof TypeError ? (/: an origin has no path; .*$/.exec(error.message)?.[0] ?? '') : '';
        throw new TypeError(`${who}: each entry of ${key} must be one ${one}, got "${entry.slice(0, 100)}"${hint}`);
      }
      if (parsed.length !== 1 || parsed[0] !== entry) throw new TypeError(`${who}: each entry of ${key} must be one ${one}, got "${entry.slice(0, 100)}"`);
    }
  }
  checkStore(options.store, who);
  const { basePath, dataDir, keyPollMs, timeZone, approval } = options as Record<keyof AppOptions, unknown>;
  // Compared with the request's path as sent: ASCII letters, digits and -._~ only, so no client sends it another way
  // (percent-encoded), and no "." or ".." segment, which clients resolve before sending.
  if (basePath !== undefined && (typeof basePath !== 'string' || !/^(\/[A-Za-z0-9\-._~]+)*\/?$/.test(basePath) || /\/\.\.?(\/|$)/.test(basePath))) {
    throw new TypeError(`${who}: basePath must be a path such as /api/campus (ASCII letters, digits and -._~ between slashes, no . or .. segment), got ${shown(basePath)}`);
  }
  if (dataDir !== undefined && (typeof dataDir !== 'string' || dataDir.trim() === '')) throw new TypeError(`${who}: dataDir must name a folder, got ${shown(dataDir)}`);
  // A timer takes whole milliseconds up to 2^31 - 1; past it node fires every millisecond instead.
  if (keyPollMs !== undefined && (typeof keyPollMs !== 'number' || !Number.isInteger(keyPollMs) || keyPollMs < 0 || keyPollMs > MAX_TIMER_MS)) {
    throw new TypeError(`${who}: keyPollMs must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS} (or 0: never, for tests), got ${shown(keyPollMs)}`);
  }
  if (timeZone !== undefined && (typeof timeZone !== 'string' || !isTimeZone(timeZone))) {
    throw new TypeError(`${who}: timeZone must be an IANA time zone name such as Europe/Berlin, got ${shown(timeZone)}`);
  }
  if (approval !== undefined && !(APPROVAL_MODES as readonly unknown[]).includes(approval)) throw new TypeError(`${who}: approval must be "off" or "required", got ${shown(approval)}`);
  for (const key of ['console', 'bootstrapAdminKey'] as const) {
    if (options[key] !== undefined && typeof options[key] !== 'boolean') throw new TypeError(`${who}: ${key} must be true or false, got ${shown(options[key])}`);
  }
  const logger: unknown = options.logger;
  if (logger !== undefined) {
    const missing = LOGGER_METHODS.filter((method) => typeof (logger as Record<string, unknown> | null)?.[method] !== 'function');
    if (missing.length > 0) throw new TypeError(`${who}: logger must be made by createLogger({level, write}) (or have its methods); this one has no ${missing.join(', ')}`);
  }
  for (const key of ['now', 'randomBytes'] as const) {
    if (options[key] !== undefined && typeof options[key] !== 'function') throw new TypeError(`${who}: ${key} must be a function, got ${shown(options[key])}`);
  }
}

/** The longest delay a node timer takes, in ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** What an unknown option name may have meant: a near name, or the option that does what the flag of that name does. */
function hintFor(name: string, names: readonly string[]): string {
  const near = nearName(name, names);
  if (near !== undefined) return `; did you mean ${near}?`;
  if (/^(port|host|timeouts)$/.test(name)) return '; startServer takes it (createApp listens on nothing: a host passes app.handler to its own server)';
  if (/^log/i.test(name)) return "; a level is set on the logger: logger: createLogger({ level: 'info', write })";
  return '';
}

/**
 * startServer's own options, checked by the flags' rules before anything is opened: `port` an integer from 0 to 65535,
 * `host` an IP address (IPv6 with or without brackets) or a host name, `timeouts` whole milliseconds with headersMs not
 * over requestMs. Returns the host as it is listened on (brackets taken off, as --host does).
 */
export function checkServerOptions(options: { port?: unknown; host?: unknown; timeouts?: unknown }): { host: string | undefined } {
  const { port, host, timeouts } = options;
  if (port !== undefined) {
    if (typeof port !== 'number') throw new TypeError(`startServer: port must be a number, got ${shown(port)}`);
    asFlag('port', String(port), 'startServer');
  }
  if (host !== undefined && typeof host !== 'string') throw new TypeError(`startServer: host must be a string, got ${shown(host)}`);
  if (timeouts !== undefined) {
    const given = timeouts as Record<string, unknown> | null;
    for (const key of ['headersMs', 'requestMs', 'keepAliveMs']) {
      const value = typeof given === 'object' && given !== null ? given[key] : undefined;
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_TIMER_MS) {
        throw new TypeError(`startServer: timeouts.${key} must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS}, got ${shown(value)}`);
      }
    }
    if ((given!['headersMs'] as number) > (given!['requestMs'] as number)) throw new TypeError(`startServer: timeouts.headersMs (${String(given!['headersMs'])}) must not exceed timeouts.requestMs (${String(given!['requestMs'])})`);
  }
  return { host: host === undefined ? undefined : (asFlag('host', host, 'startServer') as string) };
}

/** `'file'`, `'memory'` or a postgres:// URL whose hosts parse; anything else would have opened a data folder unasked. */
function checkStore(store: unknown, who: string): void {
  if (store === undefined || store === 'file' || store === 'memory') return;
  // The flag's own message offers "postgres" (with DATABASE_URL), which an app does not take: only its host list's is used.
  if (typeof store === 'string' && isPostgresUrl(store) && !/\s/.test(store)) {
    asFlag('store', store, who);
    return;
  }
  throw new TypeError(`${who}: store must be "file", "memory" or a postgres://user:password@host:port/database URL, got ${typeof store === 'string' ? `"${redactUrl(store).slice(0, 100)}"` : shown(store)}`);
}

/** The server flag's parser for `key` on `value`; its usage error becomes a TypeError naming the option. */
function asFlag(key: FlagKey, value: string, who: string): unknown {
  const setting = SETTINGS.find((candidate) => candidate.key === key);
  if (setting === undefined) throw new Error(`no server setting for ${key}`);
  try {
    return setting.parse(value, `${who}: ${key}`);
  } catch (error) {
    throw error instanceof ConfigError ? new TypeError(error.message) : error;
  }
}

/** A value as an error message shows it. */
function shown(value: unknown): string {
  if (typeof value === 'string') return `"${value.slice(0, 100)}"`;
  if (Array.isArray(value)) return 'an array';
  if (value === null || typeof value !== 'object') return String(value);
  return 'an object';
}
