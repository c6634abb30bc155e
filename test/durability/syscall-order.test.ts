// The system calls of the real server, traced with strace: an acknowledged write is on disk before its answer, and compaction renames only a synced file.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../helpers/harness.js';
import { createKey, eventBody, send, SERVER, sleep, startServer } from './support.js';

const TRACED = 'openat,write,pwrite64,pwritev,writev,fdatasync,fsync,rename,renameat,renameat2';

function straceMissing(): string | false {
  if (process.platform !== 'linux') return 'strace runs on Linux only';
  const probe = spawnSync('strace', ['-f', '-qq', '-o', '/dev/null', 'true'], { encoding: 'utf8' });
  if (probe.error !== undefined) return 'strace is not installed';
  return probe.status === 0 ? false : `strace cannot trace here: ${probe.stderr.trim()}`;
}

/** One traced call: where it started and where it returned (the same line unless strace split it). */
interface Call {
  pid: number;
  name: string;
  args: string;
  result: string;
  start: number;
  end: number;
}

/** Parses `strace -f` output, joining `<unfinished ...>` lines with their `<... resumed>` ones. */
function parseTrace(text: string): Call[] {
  const calls: Call[] = [];
  const open = new Map<number, Call>();
  text.split('\n').forEach((line, index) => {
    const resumed = /^(\d+)\s+<\.\.\. (\w+) resumed>(.*)\)\s+=\s+(.*)$/.exec(line);
    if (resumed !== null) {
      const call = open.get(Number(resumed[1]));
      if (call !== undefined) Object.assign(call, { args: call.args + resumed[3], result: resumed[4]!, end: index });
      open.delete(Number(resumed[1]));
      return;
    }
    const unfinished = /^(\d+)\s+(\w+)\((.*) <unfinished \.\.\.>$/.exec(line);
    if (unfinished !== null) {
      const call: Call = { pid: Number(unfinished[1]), name: unfinished[2]!, args: unfinished[3]!, result: '', start: index, end: Infinity };
      open.set(call.pid, call);
      calls.push(call);
      return;
    }
    const complete = /^(\d+)\s+(\w+)\((.*)\)\s+=\s+(.*)$/.exec(line);
    if (complete !== null) calls.push({ pid: Number(complete[1]), name: complete[2]!, args: complete[3]!, result: complete[4]!, start: index, end: index });
  });
  return calls;
}

/** The first call after line `from` that matches. */
function first(calls: Call[], from: number, matches: (call: Call) => boolean, what: string): Call {
  const call = calls.find((candidate) => candidate.start > from && matches(candidate));
  assert.ok(call !== undefined, `no ${what} after line ${from + 1} of the trace`);
  return call;
}

const fdOf = (call: Call): string => call.args.split(',')[0]!;
const WRITES = new Set(['write', 'pwrite64', 'pwritev', 'writev']);

/** The trace once a call whose arguments match `pattern` has returned: strace may be midway through writing a long line. */
async function waitForTrace(file: string, pattern: RegExp): Promise<string> {
  for (let tries = 0; tries < 200; tries++) {
    const text = readFileSync(file, 'utf8');
    const whole = text.slice(0, text.lastIndexOf('\n') + 1);
    if (parseTrace(whole).some((call) => call.end !== Infinity && pattern.test(call.args))) return whole;
    await sleep(25);
  }
  assert.fail(`the trace never showed ${pattern}`);
}

test('under strace: the log write, then fdatasync, then the response; compaction: write, fsync, rename, fsync of the folder', { skip: straceMissing() }, async () => {
  const { dir, remove } = tempDir('campus-strace-');
  const key = createKey(dir);
  const traceFile = path.join(dir, '..', `${path.basename(dir)}.strace`);
  const log = path.join(dir, 'events.jsonl');
  const server = await startServer(
    ['--port', '0', '--data-dir', dir, '--compact-min-bytes', '1', '--log-level', 'info'],
    ['strace', '-f', '-qq', '-s', '8192', '-e', `trace=${TRACED}`, '-o', traceFile, process.execPath, SERVER],
  );
  try {
    const created = await send(server.url, key, 'POST', '/events', eventBody('Traced'));
    assert.equal(created.status, 201);
    const { id } = (await created.json()) as { id: string };
    let calls = parseTrace(await waitForTrace(traceFile, /HTTP\/1\.1 201/));

    const logWrite = first(calls, -1, (call) => WRITES.has(call.name) && call.args.includes('{\\"seq\\":1,'), 'write of the first log line');
    const logOpen = calls.filter((call) => call.name === 'openat' && call.args.includes(`"${log}"`) && call.start < logWrite.start && /^\d+$/.test(call.result)).at(-1);
    assert.ok(logOpen !== undefined, 'the log was opened');
    assert.equal(fdOf(logWrite), logOpen.result, 'the line went to the log');
    const sync = first(calls, logWrite.start, (call) => call.name === 'fdatasync' && fdOf(call) === logOpen.result, 'fdatasync of the log');
    assert.equal(sync.result, '0');
    const answer = first(calls, -1, (call) => WRITES.has(call.name) && call.args.includes('HTTP/1.1 201'), 'response');
    assert.ok(logWrite.end < sync.start, 'the write returned before the fdatasync began');
    assert.ok(sync.end < answer.start, `the fdatasync (trace lines ${sync.start + 1}-${sync.end + 1}) returned before the response was written (line ${answer.start + 1})`);

    // Two updates make 2 of 3 lines superseded: over half, and the log is over 1 byte.
    for (const title of ['Traced again', 'Traced thrice']) assert.equal((await send(server.url, key, 'PUT', `/events/${id}`, { title })).status, 200);
    calls = parseTrace(await waitForTrace(traceFile, /msg\\":\\"compacted the event log/));
    const tempOpen = first(calls, answer.start, (call) => call.name === 'openat' && call.args.includes(`"${log}.compact-tmp"`), 'open of the temporary file');
    const tempWrite = first(calls, tempOpen.start, (call) => WRITES.has(call.name) && fdOf(call) === tempOpen.result, 'write of the temporary file');
    const tempSync = first(calls, tempWrite.start, (call) => (call.name === 'fsync' || call.name === 'fdatasync') && fdOf(call) === tempOpen.result, 'fsync of the temporary file');
    const rename = first(calls, tempSync.start, (call) => call.name.startsWith('rename') && call.args.includes('compact-tmp"') && call.args.includes(`"${log}"`), 'rename');
    const folderOpen = first(calls, rename.start, (call) => call.name === 'openat' && call.args.includes(`"${dir}"`), 'open of the folder');
    const folderSync = first(calls, folderOpen.start, (call) => call.name === 'fsync' && fdOf(call) === folderOpen.result, 'fsync of the folder');
    assert.ok(tempWrite.end < tempSync.start && tempSync.end < rename.start && rename.end < folderSync.start, 'write → fsync → rename → fsync of the folder');
    assert.equal(rename.result, '0');
    assert.equal(folderSync.result, '0');
  } finally {
    const pid = (JSON.parse(readFileSync(path.join(dir, 'LOCK'), 'utf8')) as { pid: number }).pid;
    process.kill(pid, 'SIGTERM');
    assert.equal(await server.exited, 0, server.stderr());
    remove();
    rmSync(traceFile, { force: true });
  }
});
