// `make soak`: the phases of test/store/postgres/history.test.ts (issue 34) for minutes each, with the same checker;
// prints each phase's figures and counterexamples and exits 1 when any promise or goal was broken.
// Flags or environment: --phase-seconds N (SOAK_PHASE_SECONDS, default 120: load before, during and after the fault
// in about equal parts), --clients N (SOAK_CLIENTS, 20), --seed N (SOAK_SEED, random), --outage-seconds N
// (SOAK_OUTAGE_SECONDS, 10: the database down), --phases a,b (SOAK_PHASES: names of the phases to run, default all).
import { postgresMissing } from '../helpers/postgres-server.js';
import { CLUSTER_PHASES, FAILOVER_PHASES, startRun, type PhaseSpec } from '../store/postgres/history-phases.js';
import type { RunSettings } from '../store/postgres/history-world.js';

/** A flag's value, else the environment's, else the default. */
function setting(flag: string, env: string, fallback: string): string {
  const args = process.argv.slice(2);
  const at = args.indexOf(flag);
  if (at >= 0 && args[at + 1] !== undefined) return args[at + 1]!;
  return process.env[env] ?? fallback;
}

function positive(flag: string, env: string, fallback: number): number {
  const value = Number(setting(flag, env, String(fallback)));
  if (!Number.isInteger(value) || value <= 0) {
    process.stderr.write(`soak: ${flag} (${env}) must be a positive integer, got ${JSON.stringify(setting(flag, env, ''))}\n`);
    process.exit(2);
  }
  return value;
}

const missing = postgresMissing();
if (missing !== undefined) {
  process.stderr.write(`soak: cannot run: ${missing}\n`);
  process.exit(process.env['CI'] === 'true' ? 1 : 0);
}

const phaseMs = positive('--phase-seconds', 'SOAK_PHASE_SECONDS', 120) * 1000;
const wanted = setting('--phases', 'SOAK_PHASES', '').split(',').filter((name) => name !== '');
const settings: RunSettings = {
  clients: positive('--clients', 'SOAK_CLIENTS', 20),
  seed: positive('--seed', 'SOAK_SEED', 1 + Math.floor(Math.random() * 2 ** 30)),
  warmMs: phaseMs / 3,
  faultMs: phaseMs / 3,
  outageMs: positive('--outage-seconds', 'SOAK_OUTAGE_SECONDS', 10) * 1000,
  afterMs: phaseMs / 3,
  // Past the 10 s within which a write's outcome is due (API.md §12), so a late one shows as late, not as no answer.
  timeoutMs: 12_000,
  // As in history.test.ts: the clients well under the limit, the prober at it.
  rate: { limit: 600, windowMs: 10_000 },
};
const chosen = (phases: readonly PhaseSpec[]): PhaseSpec[] => phases.filter((phase) => wanted.length === 0 || wanted.includes(phase.name));
const unknown = wanted.filter((name) => ![...CLUSTER_PHASES, ...FAILOVER_PHASES].some((phase) => phase.name === name));
if (unknown.length > 0) {
  process.stderr.write(`soak: unknown phase ${unknown.join(', ')}; phases: ${[...CLUSTER_PHASES, ...FAILOVER_PHASES].map((phase) => phase.name).join(', ')}\n`);
  process.exit(2);
}

process.stdout.write(`soak: seed ${settings.seed}, ${settings.clients} clients, ${phaseMs / 1000} s per phase\n`);
let broken = 0;
for (const [kind, phases] of [['proxied', chosen(CLUSTER_PHASES)], ['standby', chosen(FAILOVER_PHASES)]] as const) {
  if (phases.length === 0) continue;
  let run;
  try {
    run = await startRun(kind, settings);
  } catch (error) {
    process.stdout.write(`soak: the ${kind} world did not start: ${error instanceof Error ? error.message : String(error)}\n`);
    broken++;
    continue;
  }
  try {
    for (const phase of phases) {
      const result = await run.phase(phase);
      process.stdout.write(`${result.report}\n`);
      broken += result.violations.length;
    }
  } finally {
    await run.stop();
  }
}
process.stdout.write(`soak: ${broken === 0 ? 'every promise and goal held' : `${broken} violations`} (seed ${settings.seed})\n`);
process.exit(broken === 0 ? 0 : 1);
