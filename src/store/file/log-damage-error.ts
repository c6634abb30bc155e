// The error that stops a start when the log is damaged before its end: no data is dropped silently.

/** The log is damaged before its last good line: the store refuses to start rather than drop data. */
export class LogDamageError extends Error {
  readonly file: string;
  readonly line: number;
  readonly offset: number;
  readonly reason: string;

  constructor(file: string, line: number, offset: number, reason: string) {
    super(
      `${file}: line ${line} (byte offset ${offset}) is damaged: ${reason}. The store will not start, so that no data is ` +
        'dropped silently; restore the file from a backup, or check it with `verify`.',
    );
    this.name = 'LogDamageError';
    this.file = file;
    this.line = line;
    this.offset = offset;
    this.reason = reason;
  }
}
