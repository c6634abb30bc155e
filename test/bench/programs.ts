// Finds the optional tools the bench uses when present: wrk, taskset, strace.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The path of an executable on the PATH, or undefined. */
export function findProgram(name: string): string | undefined {
  for (const folder of (process.env['PATH'] ?? '').split(path.delimiter)) {
    if (folder === '') continue;
    const candidate = path.join(folder, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      continue;
    }
  }
  return undefined;
}

/** True when strace exists and may trace here (containers often forbid ptrace). */
export function straceWorks(): boolean {
  if (findProgram('strace') === undefined) return false;
  const probe = spawnSync('strace', ['-f', '-c', '--seccomp-bpf', '-e', 'trace=fdatasync', '-o', '/dev/null', process.execPath, '-e', '0'], { stdio: 'ignore', timeout: 10_000 });
  return probe.status === 0;
}

/** The first line of `program --version` (wrk prints it to stdout and exits 1). */
export function versionOf(program: string): string {
  const result = spawnSync(program, ['--version'], { encoding: 'utf8', timeout: 5_000 });
  return `${result.stdout ?? ''}${result.stderr ?? ''}`.split('\n')[0]!.trim();
}
