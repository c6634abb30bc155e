// Starts a server as a child process (pinned with taskset, optionally under strace), waits for its `listening on` line, stops it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';

/** How to start one server. */
export interface ServerCommand {
  /** A name for messages, e.g. `ours` or `bare stringify`. */
  name: string;
  /** The program and its arguments, e.g. `[process.execPath, 'dist/server.js', '--port', '0']`. */
  argv: readonly string[];
  /** Where its stderr goes (the request log): a file, so a busy log never blocks the server on a pipe. */
  stderrFile: string;
  /** A taskset CPU list, e.g. `0`; undefined runs it unpinned. */
  cpus?: string | undefined;
  /** Runs it under `strace -f -c -e trace=fdatasync`, the summary going to this file. */
  straceFile?: string | undefined;
}

/** A server that printed its listening line. */
export interface ServerProcess {
  name: string;
  url: string;
  /** The node process itself (not taskset's or strace's). */
  pid: number;
  /** From spawn to the listening line. */
  startupMs: number;
  /** The file its stderr (the log) goes to. */
  stderrFile: string;
  /** The resident set of the node process now, in MiB (VmRSS in /proc/PID/status). */
  rssMiB(): number;
  /** CPU time (user + system, every thread) the node process has used so far, in ms; NaN without /proc. */
  cpuMs(): number;
  /** The same, apart: in user space and in the kernel. */
  cpuSplitMs(): CpuSplit;
  /** SIGTERM, then waits for the exit (SIGKILL after 20 s). */
  stop(): Promise<void>;
}

const LISTENING = /^listening on (http:\/\/\S+)(?: \(pid (\d+)\))?$/m;
/** Every child still running, with the pid of its node process once known. */
const started = new Map<ChildProcess, number | undefined>();

/** Starts `command` and resolves once it prints `listening on URL`; rejects if it exits first or takes over 120 s. */
export function startServerProcess(command: ServerCommand): Promise<ServerProcess> {
  let argv = [...command.argv];
  if (command.straceFile !== undefined) argv = ['strace', '-f', '-c', '--seccomp-bpf', '-e', 'trace=fdatasync', '-o', command.straceFile, ...argv];
  if (command.cpus !== undefined) argv = ['taskset', '-c', command.cpus, ...argv];
  const stderr = fs.openSync(command.stderrFile, 'w');
  const spawnedAt = performance.now();
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', stderr] });
  fs.closeSync(stderr);
  started.set(child, undefined);
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  void exited.then(() => started.delete(child));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`${command.name} did not print its listening line within 120 s`)), 120_000);
    const fail = (error: Error): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    const exitedEarly = (code: number | null, signal: NodeJS.Signals | null): void =>
      fail(new Error(`${command.name} exited (${code ?? signal}) before listening; stderr in ${command.stderrFile}:\n${tail(command.stderrFile)}`));
    child.on('error', fail);
    child.on('exit', exitedEarly);
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = LISTENING.exec(out);
      if (match === null) return;
      const startupMs = performance.now() - spawnedAt;
      clearTimeout(timer);
      child.off('exit', exitedEarly);
      child.stdout!.removeAllListeners('data');
      child.stdout!.resume();
      const pid = match[2] === undefined ? child.pid! : Number(match[2]);
      started.set(child, pid);
      resolve({
        name: command.name,
        url: match[1]!,
        pid,
        startupMs,
        stderrFile: command.stderrFile,
        rssMiB: () => residentMiB(pid),
        cpuMs: () => processCpuMs(pid),
        cpuSplitMs: () => processCpuSplitMs(pid),
        async stop() {
          if (child.exitCode !== null || child.signalCode !== null) return;
          process.kill(pid, 'SIGTERM');
          const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
          await exited;
          clearTimeout(killer);
        },
      });
    });
  });
}

/** SIGKILLs every server this module started that is still running (for a bench that failed half-way). */
export function killStartedServers(): void {
  for (const [child, pid] of started) {
    if (pid !== undefined && pid !== child.pid) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    child.kill('SIGKILL');
  }
}

/** VmRSS of a process in MiB; NaN where /proc is missing. */
export function residentMiB(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? NaN : Number(match[1]) / 1024;
  } catch {
    return NaN;
  }
}

const CLOCK_TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;

/** utime + stime of a process from /proc/PID/stat, in ms; NaN where /proc is missing. */
export function processCpuMs(pid: number): number {
  const { userMs, systemMs } = processCpuSplitMs(pid);
  return userMs + systemMs;
}

/** CPU time of a process in user space and in the kernel, in ms. */
export interface CpuSplit {
  userMs: number;
  systemMs: number;
}

/** utime and stime of a process from /proc/PID/stat, in ms; NaN where /proc is missing. */
export function processCpuSplitMs(pid: number): CpuSplit {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis are plain.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { userMs: (Number(fields[11]) * 1000) / CLOCK_TICKS_PER_SECOND, systemMs: (Number(fields[12]) * 1000) / CLOCK_TICKS_PER_SECOND };
  } catch {
    return { userMs: NaN, systemMs: NaN };
  }
}

/** The fdatasync count in an `strace -c` summary (0 when the call never happened). */
export function fdatasyncCalls(straceFile: string): number {
  const match = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)(?:\s+\d+)?\s+fdatasync$/m.exec(fs.readFileSync(straceFile, 'utf8'));
  return match === null ? 0 : Number(match[1]);
}

function tail(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').slice(-2000);
  } catch {
    return '(no stderr)';
  }
}
