// What `node dist/server.js` runs once loaded (server.ts): reads flags and environment, starts the service, stops it
// gracefully on SIGINT/SIGTERM/SIGHUP.
import path from 'node:path';
import os from 'node:os';
import { commandName, ConfigError, packageVersion, parseServerConfig, serverUsage, shellWord, type ServerConfig } from './config.js';
import { createLogger, type Logger } from './log/logger.js';
import { StderrLog } from './log/stderr-log.js';
import { startServer, type RunningServer } from './start-server.js';
import { firstKeyNotice } from './auth/first-key-notice.js';
import { lockedTables } from './store/postgres/locked-tables.js';
import { unreachableDatabase } from './store/postgres/unreachable.js';
import { parseStoreUrl } from './store/postgres/hosts.js';
import { permissionHint, rootOnOthersFolder } from './lib/fs/owner-hint.js';

/** How the user ran this program (`campus-events`, or `node dist/server.js` from a checkout). */
const SELF = commandName(process.argv[1], 'campus-events', 'server.js');
/** The CLI as the user would run it beside this program. */
const CLI = SELF === 'campus-events' ? 'campus-events-cli' : commandName(process.argv[1], 'campus-events-cli', 'cli.js');

/** From a stop signal to the end of the process at the latest: a systemd unit's TimeoutStopSec of 20 s is more. */
const STOP_DEADLINE_MS = 16_000;

/** Takes over the stop signals server.ts caught: `stop` gets each one caught so far, then each one that comes. */
export type TakeSignals = (stop: (signal: string) => void) => void;

/** Runs the service; `takeSignals` hands it the stop signals, from the first moment of the process (see server.ts). */
export async function runServer(takeSignals: TakeSignals): Promise<void> {
  let config: ServerConfig;
  try {
    config = parseServerConfig(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`campus-events: ${error.message}\n`);
    process.exit(2);
  }
  if (config.help) {
    process.stdout.write(serverUsage(SELF));
    process.exit(0);
  }
  if (config.version) {
    process.stdout.write(`campus-events ${packageVersion()}\n`);
    process.exit(0);
  }
  // Under `ulimit -f` a write past the limit raises SIGXFSZ; ignoring it turns that into an EFBIG the store handles.
  process.on('SIGXFSZ', () => undefined);
  // A reader of the output that goes away (a log shipper restarted, a `| tee` closed) must not stop the service: its
  // EPIPE (or any other error of the stream), with no listener, was an uncaught error that ended the process
  // mid-write. The log's own stream handles its errors (StderrLog).
  process.stdout.on('error', () => undefined);
  const logger = createLogger({ level: config.logLevel, write: stderrLog.write, pretty: process.stderr.isTTY === true });
  // Lines wait for the end of the event-loop turn: whatever path exits, the last turn's lines go out first.
  process.on('exit', () => logger.flush());

  for (const note of config.notes) logger.warn(note);
  const rootWarning = config.store === 'file' ? rootOnOthersFolder(config.dataDir) : undefined;
  if (rootWarning !== undefined) logger.warn(rootWarning);

  // Handlers before the start: a signal's default ends the process at once, and one that came while the start made
  // the first admin key lost that key, never printed. A stop asked for during the start is made once it is over,
  // unless the start waits on (another instance's schema migration holds its lock; a database that does not answer):
  // a second signal, or STOP_DEADLINE_MS, ends it then, as a stop is bounded.
  let running: RunningServer | undefined;
  let stopping: string | undefined;
  let startDeadline: NodeJS.Timeout | undefined;
  const stop = (signal: string): void => {
    if (running === undefined && stopping !== undefined) return abandonStart(`a second signal (${signal}) came while it waited`, config.store, logger);
    if (stopping !== undefined) return;
    stopping = signal;
    logger.info('stopping', running === undefined ? { signal, when: 'once started' } : { signal });
    if (running !== undefined) return stopGracefully(running, signal, logger);
    startDeadline = setTimeout(() => abandonStart(`it had not ended ${STOP_DEADLINE_MS / 1000} s after ${signal}`, config.store, logger), STOP_DEADLINE_MS);
  };
  // SIGHUP too: Node's default ends the process at once, mid-write and holding the folder; a closed terminal, or an
  // operator expecting a reload (there is nothing to reload: keys.json is reread by itself), gets a graceful stop.
  takeSignals(stop);

  try {
    running = await startServer({
      port: config.port,
      host: config.host,
      dataDir: config.dataDir,
      rateLimit: config.rateLimit,
      rateWindow: config.rateWindow,
      corsOrigins: config.corsOrigins,
      compactMinBytes: config.compactMinBytes,
      console: config.console,
      timeZone: config.timeZone,
      store: config.store,
      webhookHosts: config.webhookHosts,
      approval: config.approval,
      logger,
    });
  } catch (error) {
    logger.flush();
    if (error instanceof Error && error.name === 'MissingClientError') {
      process.stderr.write(`campus-events: ${error.message}\n`);
      process.exit(2);
    }
    const code = (error as NodeJS.ErrnoException).code;
    const hint = config.store === 'file' ? permissionHint(error, config.dataDir) : undefined;
    const reason =
      code === 'EADDRINUSE'
        ? `port ${config.port} on ${config.host} is already in use`
        : (unknownListenHost(error, config) ?? unreachableDatabase(error) ?? lockedTables(error) ?? `${(error as Error).message}${hint === undefined ? '' : `: ${hint}`}`);
    // A line like every other on stderr (JSON, or readable on a terminal), written whatever the log level.
    const fatal = createLogger({ level: 'error', write: (text) => process.stderr.write(text), pretty: process.stderr.isTTY === true });
    fatal.error(`cannot start: ${reason}`, { ...where(config), code });
    fatal.flush();
    process.exit(1);
  }

  clearTimeout(startDeadline);
  // The notice bypasses the log's buffer: the lines logged before it go out first, so stderr stays in time order.
  logger.flush();
  if (running.app.initialAdminKey !== undefined) announceAdminKey(running.app.initialAdminKey, config.store === 'file' ? `--data-dir ${shellWord(config.dataDir)}` : '--store postgres://…');
  if (stopping !== undefined) return stopGracefully(running, stopping, logger);
  logger.info('started', { url: running.url, ...where(config), pid: process.pid });
  process.stdout.write(`listening on ${running.url}\n`);
}

/**
 * Stops the service as SIGINT, SIGTERM and SIGHUP ask: the requests in flight get 10 s and a late body 1 s more;
 * closing the store then takes a moment, unless its database does not answer (a frozen link waits for no timeout):
 * past STOP_DEADLINE_MS, the process ends anyway.
 */
function stopGracefully(running: RunningServer, signal: string, logger: Logger): void {
  const deadline = setTimeout(() => {
    logger.error(`the store did not close within ${STOP_DEADLINE_MS / 1000} s of ${signal} (its database does not answer, or does not commit: a synchronous standby missing); exiting without it: every write answered 2xx is already stored`);
    logger.flush();
    process.exit(1);
  }, STOP_DEADLINE_MS);
  deadline.unref();
  running.close().then(
    () => {
      logger.info('stopped');
      logger.flush();
      exitOnceLogged(0);
    },
    (error: unknown) => {
      logger.error('stop failed', { error: String(error) });
      logger.flush();
      exitOnceLogged(1);
    },
  );
}

/** Ends a start that a stop signal came during and that has not ended (see runServer): exit 1, saying why. */
function abandonStart(why: string, store: string, logger: Logger): void {
  const waits = store === 'file' ? 'a long log is still being read' : 'another instance may be migrating the schema, or the database does not answer';
  logger.error(`stopped before the start was over: ${why} (${waits}); the next start begins again`);
  logger.flush();
  exitOnceLogged(1);
}

/** The log's lines on stderr: a reader that lags or leaves, or a full disk under its file, never stops the service. */
const stderrLog = new StderrLog(process.stderr, 2, Date.now);

/** How long a stop waits for stderr to take the log lines still waiting for it (a reader that stalled gets no more). */
const STDERR_GRACE_MS = 2_000;

/**
 * Exits with `code` once stderr has taken every log line written (and the count of those dropped), or after
 * STDERR_GRACE_MS: an exit at once threw away what waited for the pipe, and left a line cut in half in it.
 */
function exitOnceLogged(code: number): void {
  process.exitCode = code;
  stderrLog.sayDropped();
  setTimeout(() => process.exit(code), STDERR_GRACE_MS);
  stderrLog.whenWritten(() => process.exit(code));
}

/**
 * The reason for a `--host` whose name does not resolve, undefined for any other error: the lookup's error is the
 * database's too, which is named instead when its URL has that host (it is reached before the server listens).
 */
function unknownListenHost(error: unknown, config: { host: string; store: string }): string | undefined {
  const { syscall, hostname, code } = error as { syscall?: unknown; hostname?: unknown; code?: unknown };
  if (syscall !== 'getaddrinfo' || hostname !== config.host) return undefined;
  if (config.store !== 'file' && parseStoreUrl(config.store).hosts.some((each) => each.host === config.host)) return undefined;
  return `--host ${config.host} is no name this machine can look up (${String(code)}): give one of its addresses or names, such as 127.0.0.1, 0.0.0.0 or localhost`;
}

/** Where the data is, for a log line: the folder's absolute path, or that it is a database (its URL holds a password). */
function where(config: { store: string; dataDir: string }): { data_dir: string } | { store: 'postgres' } {
  return config.store === 'file' ? { data_dir: path.resolve(config.dataDir) } : { store: 'postgres' };
}

/** Prints the first admin key once on stderr, whatever the log level: a plain line on a terminal, else one JSON line. */
function announceAdminKey(key: string, where: string): void {
  const makeMore = `${CLI} keys create --name NAME --email EMAIL --role organizer ${where}`;
  process.stderr.write(firstKeyNotice(key, { makeMore, terminal: process.stderr.isTTY === true, nowMs: Date.now(), eol: os.EOL }));
}

