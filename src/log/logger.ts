// Structured logs: one JSON object per line (or a readable line on a terminal), buffered so the hot path stays cheap.

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
}

/** A logger that batches lines and writes them once per turn of the event loop (or at 64 KiB). */
export function createLogger(options: LoggerOptions): Logger {
  const threshold = RANK[options.level ?? 'info'];
  const now = options.now ?? Date.now;
  let buffer = '';
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (buffer === '') return;
    const text = buffer;
    buffer = '';
    options.write(text);
  };
  const log = (level: LogLevel, message: string, fields?: LogFields): void => {
    if (RANK[level] < threshold) return;
    buffer += options.pretty ? prettyLine(now(), level, message, fields) : jsonLine(now(), level, message, fields);
    if (buffer.length > 65_536) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  const infoEnabled = RANK.info >= threshold;
  return {
    request(line) {
      if (!infoEnabled) return;
      if (options.pretty) {
        log('info', 'request', { request_id: line.requestId, method: line.method, path: line.path, status: line.status, duration_ms: line.durationMs, key_id: line.keyId, client: line.client, user_agent: line.userAgent });
        return;
      }
      // request_id, method and key_id are from safe alphabets (checked on the way in); the path is escaped.
      buffer +=
        `{"time":"${isoTime(now())}","level":"info","msg":"request","request_id":"${line.requestId}","method":${JSON.stringify(line.method)},` +
        `"path":${JSON.stringify(line.path)},"status":${line.status},"duration_ms":${line.durationMs}` +
        (line.keyId === undefined ? '' : `,"key_id":"${line.keyId}"`) +
        (line.client === undefined ? '' : `,"client":${JSON.stringify(line.client)}`) +
        (line.userAgent === undefined ? '}\n' : `,"user_agent":${JSON.stringify(line.userAgent)}}\n`);
      if (buffer.length > 65_536) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
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

function jsonLine(time: number, level: LogLevel, message: string, fields: LogFields | undefined): string {
  let line = `{"time":"${isoTime(time)}","level":"${level}","msg":${JSON.stringify(message)}`;
  if (fields !== undefined) {
    for (const key in fields) {
      const value = fields[key];
      if (value === undefined) continue;
      line += `,${JSON.stringify(key)}:${typeof value === 'string' ? JSON.stringify(value) : String(value)}`;
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
