// How the first admin key is shown once on stderr: a plain line a person can copy on a terminal, one JSON line for a log collector.

/** What the notice says besides the key. */
export interface FirstKeyNoticeOptions {
  /** The command that makes more keys, e.g. `node dist/cli.js keys create … --data-dir ./data`. */
  makeMore: string;
  /** True when stderr is a terminal: a person reads it (API.md §1). */
  terminal: boolean;
  /** The time of the JSON line (ms). */
  nowMs: number;
  /** The line ending (os.EOL). */
  eol: string;
}

const OWNER = 'role admin, owner Administrator <admin@campus.local>';

/**
 * The text that announces the first admin key `key`. On a terminal the key stands alone on its own line, nothing
 * before or after it, so a double- or triple-click copies it whole; elsewhere it is one JSON log line like every
 * other line on stderr (`key`, `make_more`), for log collectors.
 */
export function firstKeyNotice(key: string, options: FirstKeyNoticeOptions): string {
  const { eol } = options;
  if (options.terminal) {
    return ['', `Created the first API key (${OWNER}). It is shown only this once; copy the next line:`, '', key, '', `Make more with: ${options.makeMore}`, '', ''].join(eol);
  }
  const line = { time: new Date(options.nowMs).toISOString(), level: 'warn', msg: `created the first API key (${OWNER}); it is shown only this once`, key, make_more: options.makeMore };
  return JSON.stringify(line) + eol;
}
