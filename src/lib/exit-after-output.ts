// Ending a command-line program without losing what it printed.

/**
 * Exits with `code` once stdout and stderr have taken everything written to them: past a pipe's buffer (64 KiB), node
 * writes the rest in the background, and `process.exit` at once would cut a long listing short. A reader that went
 * away (`| head`) wanted no more; any other failure to write (a full disk) lost output, so the exit is 1, saying so.
 */
export function exitAfterOutput(program: string, code: number): void {
  let open = 2;
  let exitCode = code;
  for (const stream of [process.stdout, process.stderr]) {
    let finished = false;
    const finish = (error?: Error | null): void => {
      if (finished) return;
      finished = true;
      if (error && (error as NodeJS.ErrnoException).code !== 'EPIPE' && exitCode === 0) {
        exitCode = 1;
        if (stream === process.stdout) process.stderr.write(`${program}: the output could not be written: ${error.message}\n`);
      }
      if (--open === 0) process.exit(exitCode);
    };
    stream.once('error', finish);
    stream.write('', finish);
  }
}
