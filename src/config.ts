// Flags and environment parsed once into a frozen, typed config (API.md §1); a bad value is a one-line ConfigError.
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { browserOrigin, originOfAddress } from './http/cors.js';
import { LOG_LEVELS, type LogLevel } from './log/logger.js';
import { isTimeZone } from './lib/time-zone.js';
import { APPROVAL_MODES, type ApprovalMode } from './events/publishing.js';
import { unknownFlagMessage } from './lib/near-name.js';
import { parseStoreUrl, redactUrl, StoreUrlError } from './store/postgres/hosts.js';

/** Everything `node dist/server.js` can be told. */
export interface ServerConfig {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly rateLimit: number;
  readonly rateWindow: number;
  readonly corsOrigins: readonly string[];
  readonly logLevel: LogLevel;
  readonly compactMinBytes: number;
  /** Serve the web console (API.md §10). */
  readonly console: boolean;
  /** The campus's IANA time zone: where list days begin and series default to. */
  readonly timeZone: string;
  /** Where data lives: `file` (the data folder) or a `postgres://` URL (API.md §12). */
  readonly store: string;
  /** Hosts webhooks may call (API.md §13); `*` for any. */
  readonly webhookHosts: readonly string[];
  /** Whether an organizer's events wait for an admin's approval (API.md §14). */
  readonly approval: ApprovalMode;
  readonly help: boolean;
  /** `--version`: print the version and exit 0. */
  readonly version: boolean;
  /** What the server should warn of at start: a setting given but not used. */
  readonly notes: readonly string[];
}

/** A usage error: the program prints its message on one line and exits 2. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

interface Setting {
  flag: string;
  env: string;
  key: Exclude<keyof ServerConfig, 'help' | 'version'>;
  default: string;
  parse: (value: string, name: string) => ServerConfig[Exclude<keyof ServerConfig, 'help' | 'version'>];
  help: string;
}

const integer = (min: number, max: number) => (value: string, name: string): number => {
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${value}"`);
  return Number(value);
};

const nonEmpty = (value: string, name: string): string => {
  if (value.trim() === '') throw new ConfigError(`${name} must not be empty`);
  return value;
};

const origins = (value: string, name: string): string[] => {
  const list = value.split(',').map((origin) => origin.trim()).filter((origin) => origin !== '');
  for (const origin of list) {
    if (browserOrigin(origin) !== undefined) continue;
    const meant = originOfAddress(origin);
    const hint = meant === undefined ? '' : `: an origin has no path; write it as ${meant}`;
    throw new ConfigError(`${name} must be a comma-separated list of origins such as https://events.campus.edu, got "${origin}"${hint}`);
  }
  return list;
};

const onOff = (value: string, name: string): boolean => {
  if (value !== 'on' && value !== 'off') throw new ConfigError(`${name} must be "on" or "off", got "${value}"`);
  return value === 'on';
};

const logLevel = (value: string, name: string): LogLevel => {
  if (!(LOG_LEVELS as readonly string[]).includes(value)) throw new ConfigError(`${name} must be one of ${LOG_LEVELS.join(', ')}, got "${value}"`);
  return value as LogLevel;
};

const timeZone = (value: string, name: string): string => {
  if (!isTimeZone(value)) throw new ConfigError(`${name} must be an IANA time zone name such as Europe/Berlin or America/New_York, got "${value}"`);
  return value;
};

const approval = (value: string, name: string): ApprovalMode => {
  if (!(APPROVAL_MODES as readonly string[]).includes(value)) throw new ConfigError(`${name} must be "off" or "required", got "${value}"`);
  return value as ApprovalMode;
};

/** What the server and the CLI say to `--store postgres` when DATABASE_URL is not set. */
export const DATABASE_URL_UNSET = '--store postgres reads the database URL from DATABASE_URL, which is not set; set it, or give the URL itself: --store postgres://user:password@host:port/database';

/** The URL `--store postgres` stands for: DATABASE_URL, which must be set and be a postgres:// URL. */
function databaseUrl(value: string | undefined): string {
  if (value === undefined || value === '') throw new ConfigError(DATABASE_URL_UNSET);
  if (!/^postgres(ql)?:\/\//.test(value)) throw new ConfigError(`DATABASE_URL (read because the store is "postgres") must be a postgres://user:password@host:port/database URL, got "${redactUrl(value)}"`);
  return storeKind(value, 'DATABASE_URL (read because the store is "postgres")');
}

const storeKind = (value: string, name: string): string => {
  if (value === 'file' || value === 'postgres') return value;
  if (/^postgres(ql)?:\/\/\S+$/.test(value)) {
    try {
      // A bad host list is found now, not at the first connection: `h1:5432,h2:5432` (API.md §12).
      parseStoreUrl(value);
    } catch (error) {
      if (error instanceof StoreUrlError) throw new ConfigError(`${name}: ${error.message}, in "${redactUrl(value)}"`);
      throw error;
    }
    return value;
  }
  throw new ConfigError(`${name} must be "file", "postgres" (with DATABASE_URL) or a postgres://user:password@host:port/database URL, got "${redactUrl(value)}"`);
};

/** A DNS label: letters, digits, `_` and inner `-` (a port, a path or an empty label is no host). */
const LABEL = '[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?';
const HOST_NAME = new RegExp(`^(?:\\*\\.)?${LABEL}(?:\\.${LABEL})*\\.?$`);

/** `*`, an IP address (IPv6 with or without brackets), or a host name with an optional `*.` in front. */
function isHostEntry(host: string): boolean {
  if (host === '*') return true;
  if (isIP(host.replace(/^\[(.*)\]$/, '$1')) !== 0) return true;
  return HOST_NAME.test(host);
}

/** What the server may listen on: an IP address (IPv6 with or without brackets) or a host name; all-numeric names are no name. */
const listenHost = (value: string, name: string): string => {
  const host = nonEmpty(value, name).trim();
  const address = host.replace(/^\[(.*)\]$/, '$1');
  if (isIP(address) !== 0) return address;
  if (!HOST_NAME.test(host) || host.startsWith('*.') || /^[0-9.]+$/.test(host)) throw new ConfigError(`${name} must be an IP address or a host name, got "${host.slice(0, 100)}"`);
  return host;
};

const hosts = (value: string, name: string): string[] => {
  const list = value.split(',').map((host) => host.trim()).filter((host) => host !== '');
  for (const host of list) {
    if (!isHostEntry(host)) throw new ConfigError(`${name} must be a comma-separated list of host names or addresses (or * for any), got "${host}"`);
  }
  return list;
};

/** The settings table: flag, variable, default and parser, in the order `--help` lists them. */
export const SETTINGS: readonly Setting[] = [
  { flag: '--port', env: 'PORT', key: 'port', default: '3000', parse: integer(0, 65535), help: 'listen port (0: any free port)' },
  { flag: '--host', env: 'HOST', key: 'host', default: '127.0.0.1', parse: listenHost, help: 'listen address' },
  { flag: '--data-dir', env: 'DATA_DIR', key: 'dataDir', default: './data', parse: nonEmpty, help: 'data folder' },
  { flag: '--rate-limit', env: 'RATE_LIMIT', key: 'rateLimit', default: '1000', parse: integer(1, 1_000_000_000), help: 'requests per window per key' },
  { flag: '--rate-window', env: 'RATE_WINDOW', key: 'rateWindow', default: '3600', parse: integer(1, 31_536_000), help: 'window length in seconds' },
  { flag: '--cors-origin', env: 'CORS_ORIGIN', key: 'corsOrigins', default: '', parse: origins, help: 'browser origins allowed (CORS), comma-separated' },
  { flag: '--log-level', env: 'LOG_LEVEL', key: 'logLevel', default: 'info', parse: logLevel, help: `log level: ${LOG_LEVELS.join('|')}` },
  { flag: '--console', env: 'CONSOLE', key: 'console', default: 'on', parse: onOff, help: 'the web console at /console/: on or off' },
  {
    flag: '--compact-min-bytes',
    env: 'COMPACT_MIN_BYTES',
    key: 'compactMinBytes',
    default: '67108864',
    parse: integer(1, Number.MAX_SAFE_INTEGER),
    help: 'compact the log (on PostgreSQL: write a checkpoint) once it is over this many bytes and mostly superseded',
  },
  { flag: '--time-zone', env: 'TIME_ZONE', key: 'timeZone', default: 'UTC', parse: timeZone, help: "the campus's time zone, an IANA name (list days, series)" },
  { flag: '--store', env: 'STORE', key: 'store', default: 'file', parse: storeKind, help: 'where data lives: file, or a postgres:// URL (postgres alone: DATABASE_URL)' },
  { flag: '--webhook-hosts', env: 'WEBHOOK_HOSTS', key: 'webhookHosts', default: '', parse: hosts, help: 'hosts webhooks may call, comma-separated; * for any' },
  { flag: '--approval', env: 'APPROVAL', key: 'approval', default: 'off', parse: approval, help: "off, or required: an organizer's events wait for an admin's approval" },
];

/** Parses argv (without node and script) and the environment; flags beat the environment. */
export function parseServerConfig(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): ServerConfig {
  const given = new Map<Setting, string>();
  let help = false;
  let version = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    if (arg === '--version') {
      version = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = arg.startsWith('--') && eq !== -1 ? arg.slice(0, eq) : arg;
    const setting = SETTINGS.find((candidate) => candidate.flag === flag);
    if (setting === undefined) {
      if (!arg.startsWith('-')) throw new ConfigError(`unknown argument "${flag}"; see --help`);
      throw new ConfigError(unknownFlagMessage(flag, [...SETTINGS.map((each) => each.flag), '--help', '--version']));
    }
    let value: string | undefined;
    if (eq !== -1 && arg.startsWith('--')) value = arg.slice(eq + 1);
    else {
      value = argv[++i];
      if (value === undefined) throw new ConfigError(`${flag} needs a value`);
      // `--host --data-dir x`: the next flag is not a value (one that starts with -- is written --host=--...).
      if (value.startsWith('--')) throw new ConfigError(`${flag} needs a value; got the flag ${value.split('=')[0]} after it`);
    }
    given.set(setting, value);
  }
  const config: Record<string, unknown> = { help, version };
  // --help and --version answer whatever the values are (a bad PORT in the environment included), as the CLI does.
  const asked = help || version;
  for (const setting of SETTINGS) {
    const flagValue = asked ? undefined : given.get(setting);
    const envValue = asked ? undefined : env[setting.env];
    if (flagValue !== undefined) config[setting.key] = setting.parse(flagValue, setting.flag);
    else if (envValue !== undefined && envValue !== '') config[setting.key] = setting.parse(envValue, setting.env);
    else config[setting.key] = setting.parse(setting.default, setting.flag);
  }
  if (config['store'] === 'postgres' && !asked) config['store'] = databaseUrl(env['DATABASE_URL']);
  const notes: string[] = [];
  // --data-dir and STORE are two settings (a flag beats only its own variable), but a folder named on the command line
  // while STORE picks a database is most likely meant to be used: say that it is not.
  if (config['store'] !== 'file' && [...given.keys()].some((setting) => setting.key === 'dataDir') && ![...given.keys()].some((setting) => setting.key === 'store')) {
    notes.push(`--data-dir ${String(config['dataDir'])} is not used: STORE in the environment names a database, which this server uses; to serve the folder, add --store file`);
  }
  config['notes'] = notes;
  return Object.freeze(config) as unknown as ServerConfig;
}

/** The text of `campus-events --help`. */
export function serverUsage(command = 'campus-events'): string {
  const width = Math.max(...SETTINGS.map((s) => s.flag.length + ' VALUE'.length));
  const rows = SETTINGS.map((s) => `  ${`${s.flag} VALUE`.padEnd(width)} ${s.help} (env ${s.env}, default ${s.default === '' ? 'none' : s.default})`);
  const help = `  ${'--help'.padEnd(width)} print this help and exit`;
  const version = `  ${'--version'.padEnd(width)} print the version and exit`;
  const usage = [`Usage: ${command} [options]`, ...alsoAs(command, 'campus-events', 'node dist/server.js').map((other) => `   or: ${other} [options]`)];
  return [...usage, '', 'Runs the campus-events HTTP service.', '', 'Options (a flag beats its environment variable):', ...rows, help, version, ''].join('\n');
}

/** The package's version, from the package.json beside dist/ (and src/). */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : 'unknown';
}

/**
 * How the user ran a program, for usage and hints: its installed name (`campus-events`, `campus-events-cli`)
 * when run through the link npm made, else `node` and the path of FILE beside `script` (a link followed) from
 * where the user stands: `node dist/cli.js` in a checkout, `node node_modules/campus-events/dist/cli.js` in a project
 * that installed it, the whole path from elsewhere; quoted for a shell where it needs to be.
 */
export function commandName(script: string | undefined, installed: string, file: string, cwd = process.cwd()): string {
  if (script !== undefined && path.basename(script) === installed) return installed;
  if (script === undefined) return `node dist/${file}`;
  const at = path.resolve(cwd, script);
  const beside = path.join(path.dirname(existsSync(at) ? realpathSync(at) : at), file);
  const relative = path.relative(cwd, beside);
  return `node ${shellWord(relative.startsWith('..') ? beside : relative)}`;
}

/** `text` as one word of a POSIX shell: as it is when it holds nothing the shell reads, else in single quotes. */
export function shellWord(text: string): string {
  return /^[\w./:@%+=,-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The other ways to run the same program, for a usage line: the installed name and `node dist/...`. */
function alsoAs(command: string, installed: string, checkout: string): string[] {
  return [installed, checkout].filter((other) => other !== command);
}
