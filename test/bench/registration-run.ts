// Runs the registration scenarios alone (make bench and make bench-full run them among the others), pinned as run.ts pins.
// Run: node --import tsx test/bench/registration-run.ts [--write] [--campus] [--quick] [--events N] [--registrations N]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LoadRow } from './bench-results.js';
import { generateData } from './data-generator.js';
import { campusScenario, type CampusFigure, registrationReport, registrationWriteScenario } from './registration-scenarios.js';
import { killStartedServers } from './server-process.js';
import { standaloneContext } from './standalone-context.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const quick = args.includes('--quick');
const campusWanted = args.includes('--campus');
const writeWanted = args.includes('--write') || !campusWanted;
const context = standaloneContext('registration', { warmupMs: 1000, durationMs: quick ? 1000 : 5000, rounds: quick ? 1 : 3 });
const workDir = context.workDir;
try {
  const rows: LoadRow[] = [];
  let campus: CampusFigure | undefined;
  if (writeWanted) rows.push(await registrationWriteScenario(context, await generateData(path.join(workDir, 'events-10000'), 10_000)));
  if (campusWanted) {
    const run = await campusScenario(context, option('--events', 100_000), option('--registrations', 2_000_000));
    rows.push(run.row);
    campus = run.figure;
  }
  process.stdout.write(`load average ${os.loadavg()[0]!.toFixed(2)}; ${JSON.stringify(rows.map((row) => ({ scenario: row.scenario, ours: row.ours, baseline: row.baseline, notes: row.notes })))}\n`);
  process.stdout.write(registrationReport(rows, campus));
} catch (error) {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
} finally {
  killStartedServers();
  fs.rmSync(workDir, { recursive: true, force: true });
}
