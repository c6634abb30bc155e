#!/usr/bin/env node
// `node dist/cli.js`: manage API keys and check or back up a data folder. Exit codes: 0 done, 1 failed, 2 usage error.
import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { becomeOwnerOf } from './lib/fs/folder-owner.js';
import path from 'node:path';
import { createKey } from './auth/key-registry.js';
import { readKeys, updateKeys } from './auth/key-file.js';
import { checkKeyOwner } from './auth/key-owner.js';
import { Problem } from './lib/checks.js';
import { backupLog } from './store/file/log-backup.js';
import { verifyLog } from './store/file/log-verify.js';
import { commandName, DATABASE_URL_UNSET, packageVersion, shellWord } from './config.js';
import { backupFromDatabase, createDatabaseKey, listDatabaseKeys, migrateFolder, revokeDatabaseKey } from './cli-postgres.js';
import { verifyFolder, verifyStore } from './cli-verify.js';
import { redactUrl } from './store/postgres/client.js';
import { parseStoreUrl, StoreUrlError } from './store/postgres/hosts.js';
import { unknownCommandMessage, unknownFlagMessage } from './lib/near-name.js';
import { exitAfterOutput } from './lib/exit-after-output.js';
import { cliUsage } from './cli-usage.js';
import { lockedTables } from './store/postgres/locked-tables.js';
import { unreachableDatabase } from './store/postgres/unreachable.js';

/** A mistake in the command line: exit 2. `complete`: the message already says where to look, no "see --help" is added. */
class UsageError extends Error {
  readonly complete: boolean;
  constructor(message: string, options: { complete?: boolean } = {}) {
    super(message);
    this.complete = options.complete ?? false;
  }
}
class CommandError extends Error {}

/** How the user ran this program: `campus-events-cli` once installed, `node dist/cli.js` from a checkout. */
const SELF = commandName(process.argv[1], 'campus-events-cli', 'cli.js');
/** The server as the user would run it beside this program. */
const SERVER = SELF === 'campus-events-cli' ? 'campus-events' : commandName(process.argv[1], 'campus-events', 'server.js');

const USAGE = cliUsage(SELF);

interface Parsed {
  positional: string[];
  options: Map<string, string | true>;
  /** Flags no command takes, in the order given (judged once the command is known, to suggest one of its own). */
  unknown: string[];
}

const VALUE_FLAGS = new Set(['--name', '--email', '--role', '--data-dir', '--out', '--store', '--from', '--to']);
const BOOLEAN_FLAGS = new Set(['--json', '--help', '--version']);
/** What every command takes. */
const COMMON_FLAGS = ['--data-dir', '--store', '--help'];
/** Each command's own flags (API.md §1: an unknown flag close to one of them names it). */
const COMMAND_FLAGS: Readonly<Record<string, readonly string[]>> = {
  'keys create': ['--name', '--email', '--role', '--json'],
  'keys list': ['--json'],
  'keys revoke': [],
  verify: ['--json'],
  backup: ['--out'],
  migrate: ['--from', '--to'],
};

function parseArgs(argv: readonly string[]): Parsed {
  const positional: string[] = [];
  const options = new Map<string, string | true>();
  const unknown: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h') {
      // As the server takes it.
      options.set('--help', true);
      continue;
    }
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    if (BOOLEAN_FLAGS.has(flag) && eq === -1) options.set(flag, true);
    else if (VALUE_FLAGS.has(flag)) {
      const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
      if (value === undefined) throw new UsageError(`${flag} needs a value`);
      // `--role --data-dir d`: the next flag is not a value (one that starts with -- is written --name=--...).
      if (eq === -1 && value.startsWith('--')) throw new UsageError(`${flag} needs a value; got the flag ${value.split('=')[0]} after it`);
      options.set(flag, value);
    } else unknown.push(flag);
  }
  return { positional, options, unknown };
}

/** A usage error for the first unknown flag, naming the nearest flag `command` takes (any command's when it is unknown). */
function throwIfUnknownFlag(parsed: Parsed): void {
  const flag = parsed.unknown[0];
  if (flag === undefined) return;
  const two = parsed.positional.slice(0, 2).join(' ');
  const own = COMMAND_FLAGS[two] ?? COMMAND_FLAGS[parsed.positional[0] ?? ''] ?? [...VALUE_FLAGS, ...BOOLEAN_FLAGS];
  throw new UsageError(unknownFlagMessage(flag, [...own, ...COMMON_FLAGS, '--version'], `${SELF} --help`), { complete: true });
}

function allowOnly(parsed: Parsed, allowed: readonly string[], positionals: number): void {
  for (const flag of parsed.options.keys()) {
    if (!COMMON_FLAGS.includes(flag) && !allowed.includes(flag)) throw new UsageError(`${parsed.positional.slice(0, 2).join(' ')} does not take ${flag}`);
  }
  if (parsed.positional.length !== positionals) throw new UsageError(`${parsed.positional.slice(0, 2).join(' ')} takes ${positionals - 2 || 'no'} argument${positionals - 2 === 1 ? '' : 's'}`);
}

function stringOption(parsed: Parsed, flag: string): string | undefined {
  const value = parsed.options.get(flag);
  return typeof value === 'string' ? value : undefined;
}

async function run(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  const parsed = parseArgs(argv);
  throwIfUnknownFlag(parsed);
  if (parsed.options.has('--version')) {
    process.stdout.write(`campus-events-cli ${packageVersion()}\n`);
    return;
  }
  if (parsed.options.has('--help')) {
    process.stdout.write(USAGE);
    return;
  }
  // A usage error like any other: one line on stderr, naming the commands, and nothing on stdout.
  if (parsed.positional.length === 0) throw new UsageError('a command is needed: keys create, keys list, keys revoke, verify, backup or migrate');
  const folder = stringOption(parsed, '--data-dir');
  if (folder === '') throw new UsageError('--data-dir must not be empty');
  // An empty variable is an unset one, as the server reads it (a unit's `Environment=STORE=`).
  const fromEnv = (name: string): string | undefined => (env[name] === '' ? undefined : env[name]);
  const dataDir = path.resolve(folder ?? fromEnv('DATA_DIR') ?? './data');
  const json = parsed.options.get('--json') === true;
  const command = parsed.positional.slice(0, 2).join(' ');
  const database = databaseUrl(stringOption(parsed, '--store') ?? fromEnv('STORE') ?? 'file', env);
  // A folder named while STORE picks a database: the command works on the database, and says so.
  if (folder !== undefined && database !== undefined && stringOption(parsed, '--store') === undefined && command !== 'migrate') {
    process.stderr.write(`${SELF}: --data-dir ${folder} is not used: STORE in the environment names a database, which this command works on; to work on the folder, add --store file\n`);
  }
  switch (command) {
    case 'keys create': {
      allowOnly(parsed, COMMAND_FLAGS[command]!, 2);
      // A wrong argument is a usage error (exit 2) wherever the command runs: checked before the folder.
      const given = { name: stringOption(parsed, '--name'), email: stringOption(parsed, '--email'), role: stringOption(parsed, '--role') };
      const owner = checkKeyOwner(given, { name: '--name', email: '--email', role: '--role' });
      // The problem's field is the flag at fault.
      if (owner instanceof Problem) throw new UsageError(stringOption(parsed, owner.field) === undefined ? `${owner.field} is required` : owner.message);
      if (database === undefined) {
        requireDataDir(dataDir);
        becomeFolderOwner(dataDir);
      }
      const { record, secret } = database === undefined ? await createKey(dataDir, owner, { randomBytes, now: Date.now }) : await createDatabaseKey(database, owner);
      if (json) {
        const { hash: _hash, ...shown } = record;
        process.stdout.write(JSON.stringify({ ...shown, key: secret }) + '\n');
      } else process.stdout.write(secret + '\n');
      if (database === undefined && !existsSync(path.join(dataDir, 'events.jsonl'))) process.stderr.write(`campus-events-cli: note: no server has run on ${dataDir} yet (it holds no events.jsonl): this key works only on a server started with --data-dir ${shellWord(dataDir)} (or DATA_DIR=${shellWord(dataDir)})\n`);
      return;
    }
    case 'keys list': {
      allowOnly(parsed, COMMAND_FLAGS[command]!, 2);
      if (database === undefined) requireDataDir(dataDir);
      const keys = (database === undefined ? await readKeys(dataDir) : await listDatabaseKeys(database)).map(({ hash: _hash, ...shown }) => shown);
      if (json) {
        process.stdout.write(JSON.stringify(keys) + '\n');
        return;
      }
      if (keys.length === 0) {
        process.stdout.write(`No keys in ${database === undefined ? dataDir : 'the database'}.\n`);
        return;
      }
      const header = ['ID', 'ROLE', 'NAME', 'EMAIL', 'CREATED', 'STATE'];
      const rows = keys.map((key) => [key.id, key.role, key.name, key.email, key.created_at, key.revoked_at === null ? 'active' : `revoked ${key.revoked_at}`]);
      process.stdout.write(columns([header, ...rows]));
      return;
    }
    case 'keys revoke': {
      allowOnly(parsed, COMMAND_FLAGS[command]!, 3);
      const id = parsed.positional[2]!;
      if (database !== undefined) {
        const outcome = await revokeDatabaseKey(database, id);
        if (outcome === 'unknown') throw new CommandError(`no key has id "${id}" in the database; see: ${SELF} keys list --store ...`);
        process.stdout.write(outcome === 'already' ? `${id} was already revoked\n` : `revoked ${id}\n`);
        return;
      }
      requireDataDir(dataDir);
      becomeFolderOwner(dataDir);
      const outcome = await updateKeys(dataDir, (keys) => {
        const key = keys.find((candidate) => candidate.id === id);
        if (key === undefined) return 'unknown';
        if (key.revoked_at !== null) return 'already';
        key.revoked_at = new Date().toISOString();
        return 'revoked';
      });
      if (outcome === 'unknown') throw new CommandError(`no key has id "${id}" in ${dataDir}; see: ${SELF} keys list --data-dir ${shellWord(dataDir)}`);
      process.stdout.write(outcome === 'already' ? `${id} was already revoked\n` : `revoked ${id}\n`);
      return;
    }
    case 'verify': {
      allowOnly(parsed, COMMAND_FLAGS[command]!, 1);
      if (database !== undefined) return verifyStore(database, json);
      requireDataDir(dataDir);
      await verifyFolder(dataDir, json);
      return;
    }
    case 'backup': {
      allowOnly(parsed, COMMAND_FLAGS[command]!, 1);
      const out = stringOption(parsed, '--out');
      if (out === undefined || out === '') throw new UsageError('backup needs --out FILE');
      if (database === undefined) requireDataDir(dataDir);
      const folder = path.dirname(path.resolve(out));
      if (!isFolder(folder)) throw new CommandError(`the folder of --out, ${folder}, does not exist; create it first (mkdir -p ${folder}) or choose another --out`);
      if (database !== undefined) {
        const copied = await backupFromDatabase(database, out);
        process.stdout.write(`backed up ${copied.lines} records (last seq ${copied.lastSeq}, ${copied.bytes} bytes) of the database to ${copied.out}\n`);
        return;
      }
      // A copy no server would start on is no backup: the log is checked as verify checks it first (the copy checks the
      // checksums alone, not a registration against its seats).
      await verifyLog(dataDir);
      const result = await backupLog(dataDir, out);
      process.stdout.write(`backed up ${result.lines} records (last seq ${result.lastSeq}, ${result.bytes} bytes) of ${result.source} to ${result.out}${leftOutNote(result.leftOut)}\n`);
      return;
    }
    case 'migrate': {
      allowOnly(parsed, COMMAND_FLAGS[command]!, 1);
      const from = stringOption(parsed, '--from');
      const target = stringOption(parsed, '--to');
      const to = target === undefined ? undefined : databaseUrl(target, env, '--to');
      if (from === undefined || to === undefined) throw new UsageError('migrate needs --from DATA_DIR and --to postgres://USER:PASSWORD@HOST:PORT/DATABASE');
      const source = path.resolve(from);
      if (!isFolder(source)) throw new CommandError(`there is no data folder at ${source}; check --from, the folder the server ran on`);
      if (!existsSync(path.join(source, 'events.jsonl'))) throw new CommandError(`there is no event log (events.jsonl) in ${source}; check --from, the folder the server ran on`);
      // What verify calls damaged no server would start on: checked first, as backup checks it, so nothing is moved.
      await verifyLog(source);
      const done = await migrateFolder(source, to);
      process.stdout.write(`migrated ${done.records} records (last seq ${done.lastSeq}), ${done.keys} keys and ${done.webhooks} webhooks from ${source} to the database${leftOutNote(done.leftOut)}\n`);
      return;
    }
    default: {
      const unknown = unknownCommandMessage(parsed.positional, Object.keys(COMMAND_FLAGS));
      throw new UsageError(unknown.message, { complete: unknown.complete });
    }
  }
}

/** What a copy of a log left out past its last whole line (never acknowledged), for the line that reports the copy. */
function leftOutNote(bytes: number): string {
  return bytes > 0 ? `; left out ${bytes} bytes after the last whole line (a write in progress or a torn tail)` : '';
}

/** The database URL of a `--store` (or `--to`) value, undefined for `file`; `postgres` alone reads DATABASE_URL. */
function databaseUrl(store: string, env: NodeJS.ProcessEnv, flag: '--store' | '--to' = '--store'): string | undefined {
  if (store === 'file') return undefined;
  const url = store === 'postgres' ? (env['DATABASE_URL'] ?? '') : store;
  if (store === 'postgres' && url === '') throw new UsageError(DATABASE_URL_UNSET.replaceAll('--store', flag));
  if (!/^postgres(ql)?:\/\/\S+$/.test(url)) throw new UsageError(`${flag === '--to' ? '--to must be' : 'the store must be "file" or'} a postgres://user:password@host:port/database URL${store === 'postgres' ? ' (DATABASE_URL is not one)' : ''}`);
  // As the server reads it: a bad port or host list is the caller's to fix (exit 2), not a failure of the command.
  try {
    parseStoreUrl(url);
  } catch (error) {
    if (error instanceof StoreUrlError) throw new UsageError(`${error.message}, in "${redactUrl(url)}"`);
    throw error;
  }
  return url;
}

/** A data folder the command can use; else a CommandError naming it and saying how to make one. */
function requireDataDir(dataDir: string): void {
  if (isFolder(dataDir)) return;
  throw new CommandError(
    existsSync(dataDir)
      ? `the data folder ${dataDir} is not a folder; check --data-dir`
      : `there is no data folder at ${dataDir}; check --data-dir (or DATA_DIR), or create it: mkdir -p ${shellWord(dataDir)} (the server also creates it on its first start: ${SERVER} --data-dir ${shellWord(dataDir)})`,
  );
}

/** Run as root on a folder another user owns, becomes that user (see becomeOwnerOf), saying so on stderr. */
function becomeFolderOwner(dataDir: string): void {
  const outcome = becomeOwnerOf(dataDir);
  if (outcome?.refused !== undefined) throw new CommandError(outcome.refused);
  if (outcome?.became !== undefined) process.stderr.write(`${SELF}: writing as ${outcome.became}, the owner of ${dataDir}, so the server can read it\n`);
}

function isFolder(candidate: string): boolean {
  return statSync(candidate, { throwIfNoEntry: false })?.isDirectory() === true;
}

/** Rows of cells as left-aligned columns, two spaces apart. */
function columns(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ') + '\n').join('');
}

run(process.argv.slice(2), process.env).then(
  () => exitAfterOutput('campus-events-cli', 0),
  (error: unknown) => {
    if (error instanceof Error && error.name === 'MissingClientError') {
      process.stderr.write(`campus-events-cli: ${error.message}\n`);
    } else if (error instanceof UsageError) {
      process.stderr.write(`campus-events-cli: ${error.message}${error.complete ? '' : `; see ${SELF} --help`}\n`);
    } else {
      process.stderr.write(`campus-events-cli: ${describe(error)}\n`);
      return exitAfterOutput('campus-events-cli', 1);
    }
    return exitAfterOutput('campus-events-cli', 2);
  },
);

/** An error as a sentence: a failed file operation says what went wrong with which file, not only its errno. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { code, path: file, syscall } = error as NodeJS.ErrnoException;
  // A write to a file already open names no file: what to do about it is the same whichever file it was.
  if (file === undefined && (code === 'ENOSPC' || code === 'EDQUOT')) return `${error.message}: the disk has no room; free some space and run the command again (nothing was changed)`;
  if (code === undefined || file === undefined) return unreachableDatabase(error) ?? lockedTables(error) ?? error.message;
  const reasons: Record<string, string> = {
    ENOENT: 'does not exist (nor does its folder, or a part of its path)',
    EACCES: 'is not accessible: permission denied',
    EPERM: 'is not accessible: operation not permitted',
    ENOSPC: 'cannot be written: the disk is full',
    EDQUOT: 'cannot be written: the disk quota is exceeded',
    EROFS: 'cannot be written: the file system is read-only',
    ENOTDIR: 'has a part of its path that is not a folder',
    EISDIR: 'is a folder, not a file',
  };
  return `${file} ${reasons[code] ?? `failed (${code}${syscall === undefined ? '' : ` in ${syscall}`})`}`;
}
