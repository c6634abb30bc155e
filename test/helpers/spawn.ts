// Runs the built binaries as a user would: `node dist/server.js` and `node dist/cli.js`.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SERVER = path.join(ROOT, 'dist/server.js');
export const CLI = path.join(ROOT, 'dist/cli.js');

export interface SpawnedServer {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

/**
 * Starts the server with `args` and waits for its `listening on` line (or its exit). `command`
 * replaces `node dist/server.js`, e.g. `sh -c 'ulimit -f 64; exec node ...'` or `strace ... node ...`.
 */
export function spawnServer(args: string[], env: Record<string, string> = {}, command: string[] = [process.execPath, SERVER]): Promise<SpawnedServer> {
  const child = spawn(command[0]!, [...command.slice(1), ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return new Promise((resolve, reject) => {
    const onData = (): void => {
      const match = /^listening on (http:\/\/\S+)\n/m.exec(out);
      if (match === null) return;
      child.stdout!.off('data', onData);
      resolve({
        child,
        url: match[1]!,
        stdout: () => out,
        stderr: () => err,
        exited,
        stop(signal = 'SIGTERM') {
          child.kill(signal);
          return exited;
        },
      });
    };
    child.stdout!.on('data', onData);
    void exited.then((code) => reject(new Error(`server exited (${code}) before listening; stderr: ${err}`)));
  });
}

/** Runs the server expecting it to exit without listening; returns its exit code and output. */
export function runServer(args: string[], env: Record<string, string> = {}, timeoutMs = 10_000, server = SERVER): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [server, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: timeoutMs });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs the CLI and returns its exit code and output. */
export function runCli(args: string[], env: Record<string, string> = {}, cli = CLI): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [cli, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 20_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Polls `check` until it returns true or `timeoutMs` passes. */
export async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
