// Structured logs: one JSON object per line (or a readable line on a terminal), gathered into few writes so the hot path stays cheap.

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export type LogFields = Record<string, string | number | boolean | null | undefined>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** The one line per request, at info: built from a fixed shape, since it is on the hot path. */
  request(line: RequestLine): void;
  /** True when lines at `level` are written, so callers can skip building them. */
  enabled(level: LogLevel): boolean;
  /** Writes what is buffered now. */
  flush(): void;
}

/** What the request log line says. */
export interface RequestLine {
  requestId: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  keyId: string | undefined;
  /** The client's address, so an operator sees who is being throttled. */
  client?: string;
  /** The client's User-Agent, clipped (and with keys redacted) by the caller. */
  userAgent?: string;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Where lines go, e.g. `(text) => process.stderr.write(text)`. */
  write: (text: string) => void;
  /** A readable `time LEVEL message key=value` line instead of JSON (for terminals). */
  pretty?: boolean;
  now?: () => number;
  /**
   * Arranges for `flush` to run once, later. Default: FLUSH_DELAY_MS after the first unwritten line
   * (a timer that holds a process ending on its own those few ms, so its last lines are written;
   * a program that calls process.exit flushes first).
   */
  schedule?: (flush: () => void) => void;
}

/**
 * How long a line may wait for others to share its write. Per turn of the event loop, a server
 * under load wrote one or two lines per write(2), and those writes took 13 % of its CPU under
 * GET /events/{id} (a --cpu-prof of make bench); a few milliseconds gather hundreds of lines.
 */
export const FLUSH_DELAY_MS = 10;

/** Lines wait at most this many characters for the timer. */
const FLUSH_CHARS = 65_536;

const scheduleFlush = (flush: () => void): void => void setTimeout(flush, FLUSH_DELAY_MS);

/** A logger that batches lines and writes them together: FLUSH_DELAY_MS after the first (or at 64 KiB), or on flush(). */
export function createLogger(options: LoggerOptions): Logger {
  const threshold = RANK[options.level ?? 'info'];
  const now = options.now ?? Date.now;
  const schedule = options.schedule ?? scheduleFlush;
  let buffer = '';
  let scheduled = false;
  // The timer's flush may come after an explicit flush() emptied the buffer: then it finds nothing to write.
  const timerFlush = (): void => {
    scheduled = false;
    flush();
  };
  const flush = (): void => {
    if (buffer === '') return;
    const text = buffer;
    buffer = '';
    options.write(text);
  };
  const buffered = (): void => {
    if (buffer.length > FLUSH_CHARS) flush();
    else if (!scheduled) {
      scheduled = true;
      schedule(timerFlush);
    }
  };
  const log = (level: LogLevel, message: string, fields?: LogFields): void => {
    if (RANK[level] < threshold) return;
    buffer += options.pretty ? prettyLine(now(), level, message, fields) : jsonLine(now(), level, message, fields);
    buffered();
  };
  const infoEnabled = RANK.info >= threshold;
  return {
    request(line) {
      if (!infoEnabled) return;
      if (options.pretty) {
        log('info', 'request', { request_id: line.requestId, method: line.method, path: line.path, status: line.status, duration_ms: line.durationMs, key_id: line.keyId, client: line.client, user_agent: line.userAgent });
        return;
      }
      // request_id and key_id are from safe alphabets (checked on the way in); the rest is quoted, escaped only when it must be.
      buffer +=
        `{"time":"${isoTime(now())}","level":"info","msg":"request","request_id":"${line.requestId}","method":${jsonString(line.method)},` +
        `"path":${jsonString(line.path)},"status":${line.status},"duration_ms":${line.durationMs}` +
        (line.keyId === undefined ? '' : `,"key_id":"${line.keyId}"`) +
        (line.client === undefined ? '' : `,"client":${jsonString(line.client)}`) +
        (line.userAgent === undefined ? '}\n' : `,"user_agent":${jsonString(line.userAgent)}}\n`);
      buffered();
    },
    debug: (message, fields) => log('debug', message, fields),
    info: (message, fields) => log('info', message, fields),
    warn: (message, fields) => log('warn', message, fields),
    error: (message, fields) => log('error', message, fields),
    enabled: (level) => RANK[level] >= threshold,
    flush,
  };
}

/** A logger that writes nothing. */
export const silentLogger: Logger = createLogger({ level: 'silent', write: () => undefined });

let lastTime = NaN;
let lastIso = '';

/** ISO time of `time`, formatted once per millisecond however many lines share it. */
function isoTime(time: number): string {
  if (time !== lastTime) {
    lastTime = time;
    lastIso = new Date(time).toISOString();
  }
  return lastIso;
}

/** Characters JSON.stringify writes as an escape: quote, backslash, controls, and (lone) surrogates. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** `JSON.stringify(text)`, without its cost for the usual text that needs no escape (a path, an address, a User-Agent). */
export function jsonString(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

function jsonLine(time: number, level: LogLevel, message: string, fields: LogFields | undefined): string {
  let line = `{"time":"${isoTime(time)}","level":"${level}","msg":${jsonString(message)}`;
  if (fields !== undefined) {
    for (const key in fields) {
      const value = fields[key];
      if (value === undefined) continue;
      line += `,${jsonString(key)}:${typeof value === 'string' ? jsonString(value) : String(value)}`;
    }
  }
  return line + '}\n';
}

function prettyLine(time: number, level: LogLevel, message: string, fields: LogFields | undefined): string {
  let line = `${isoTime(time)} ${level.toUpperCase().padEnd(5)} ${message}`;
  if (fields !== undefined) {
    for (const key in fields) {
      const value = fields[key];
      if (value !== undefined) line += ` ${key}=${typeof value === 'string' && /\s/.test(value) ? JSON.stringify(value) : String(value)}`;
    }
  }
  return line + '\n';
}
