// The bench report: the table on stdout, the targets as PASS/MISS lines, the JSON file and README-figures.md.
import fs from 'node:fs';
import path from 'node:path';
import type { BenchResults, LoadRow, ScalingRow, StartupFigure } from './bench-results.js';
import { median, type LoadResult } from './load-plan.js';

/** One target line: `pass` undefined means it was not measured in this run. */
export interface TargetLine {
  target: string;
  measured: string;
  pass: boolean | undefined;
  /** The same target judged on server CPU per request, where that applies (it resists other load on the machine). */
  cpuPass?: boolean;
}

const rate = (runs: readonly LoadResult[]): number => median(runs.map((run) => run.requestsPerSecond));
const p50 = (runs: readonly LoadResult[]): number => median(runs.map((run) => run.p50Ms));
const p99 = (runs: readonly LoadResult[]): number => median(runs.map((run) => run.p99Ms));
const cpu = (runs: readonly LoadResult[]): number => median(runs.map((run) => run.serverCpuMicros ?? NaN));
const failures = (runs: readonly LoadResult[]): number => runs.reduce((sum, run) => sum + run.non2xx + run.socketErrors, 0);
const whole = (value: number): string => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '-');
const ms = (value: number): string => (Number.isFinite(value) ? value.toFixed(value < 10 ? 2 : 1) : '-');

/** ours / baseline of the median rates, or NaN without a baseline. */
export function ratioOf(row: LoadRow): number {
  return row.baseline === undefined ? NaN : rate(row.ours) / rate(row.baseline.runs);
}

/** baseline / ours of the median server CPU per response: the ratio with the noise of other work taken out. */
export function cpuRatioOf(row: LoadRow): number {
  return row.baseline === undefined ? NaN : cpu(row.baseline.runs) / cpu(row.ours);
}

/** Non-2xx responses and socket errors over every run of a row, ours and baseline. */
export function failuresOf(row: LoadRow): number {
  return failures(row.ours) + (row.baseline === undefined ? 0 : failures(row.baseline.runs));
}

/** The issue's targets, judged on this run's figures. */
export function targetLines(results: BenchResults): TargetLine[] {
  const row = (key: string): LoadRow | undefined => results.rows.find((candidate) => candidate.key === key);
  const ratioLine = (key: string, target: string, min: number): TargetLine => {
    const found = row(key);
    const ratio = found === undefined ? NaN : ratioOf(found);
    const byCpu = found === undefined ? NaN : cpuRatioOf(found);
    const measured = Number.isFinite(ratio) ? `${ratio.toFixed(2)}x (by server CPU per request: ${byCpu.toFixed(2)}x)` : 'not run';
    return { target, measured, pass: Number.isFinite(ratio) ? ratio >= min : undefined, cpuPass: Number.isFinite(byCpu) ? byCpu >= min : undefined };
  };
  const lines: TargetLine[] = [
    ratioLine('single-read', 'GET /events/{id}, request log at info, >= 0.9x bare server, same bytes', 0.9),
    ratioLine('single-read-warn', 'GET /events/{id}, request log off (warn), >= 0.9x bare server, same bytes', 0.9),
    ratioLine('list-100', 'GET /events?limit=100 >= 2.5x bare JSON.stringify server', 2.5),
  ];
  const filtered = row('filtered-1m');
  lines.push({
    target: 'filtered paged list, 1M events, 10 clients: p99 <= 10 ms',
    measured: filtered === undefined ? 'needs make bench-full' : `p99 ${ms(p99(filtered.ours))} ms`,
    pass: filtered === undefined ? undefined : p99(filtered.ours) <= 10,
  });
  const post = row('post');
  const postRatio = post === undefined ? NaN : ratioOf(post);
  const perSync = post?.requestsPerSync;
  lines.push({
    target: `durable POST >= 0.8x no-sync server and >= 10 requests per fdatasync (${post?.clients ?? '-'} clients)`,
    measured: post === undefined ? 'not run' : `${postRatio.toFixed(2)}x, ${perSync === undefined ? 'syncs not counted' : `${perSync.toFixed(1)} per fdatasync`}`,
    pass: post === undefined || perSync === undefined ? undefined : postRatio >= 0.8 && perSync >= 10,
    cpuPass: post === undefined || perSync === undefined ? undefined : cpuRatioOf(post) >= 0.8 && perSync >= 10,
  });
  const million = results.startup.find((figure) => figure.events === 1_000_000);
  const millionLine = (target: string, measured: (figure: StartupFigure) => string, pass: (figure: StartupFigure) => boolean): TargetLine => ({
    target: `1M events: ${target}`,
    measured: million === undefined ? 'needs make bench-full' : measured(million),
    pass: million === undefined ? undefined : pass(million),
  });
  lines.push(
    millionLine('start-up to listening <= 5 s (wall)', (figure) => `${(figure.startupMs / 1000).toFixed(2)} s`, (figure) => figure.startupMs <= 5000),
    millionLine('start-up <= 5 s of server CPU (what a busy machine does not inflate)', (figure) => `${((figure.startupCpuMs ?? NaN) / 1000).toFixed(2)} s`, (figure) => (figure.startupCpuMs ?? Infinity) <= 5000),
    millionLine('RSS at listening <= 700 MiB', (figure) => `${Math.round(figure.rssMiB)} MiB (store heap and arena ${Math.round(figure.heapBytesPerEvent)} B/event)`, (figure) => figure.rssMiB <= 700),
  );
  lines.push(...scalingTargets(results.scaling));
  const auth = row('auth');
  const overhead = auth === undefined ? NaN : 1 - ratioOf(auth);
  const cpuOverhead = auth === undefined ? NaN : 1 / cpuRatioOf(auth) - 1;
  lines.push({
    target: 'authentication + rate limiting cost on GET /events/{id} <= 5 %',
    measured: auth === undefined ? 'not run' : `${(overhead * 100).toFixed(1)} % fewer requests/s (${(cpuOverhead * 100).toFixed(1)} % more server CPU per request)`,
    pass: auth === undefined ? undefined : overhead <= 0.05,
    cpuPass: auth === undefined ? undefined : cpuOverhead <= 0.05,
  });
  return lines;
}

/** One line of the scaling table: how a figure is read off a row, and what its 1M ÷ 10k ratio must stay under. */
interface ScalingMeasure {
  label: string;
  value: (row: ScalingRow) => number;
  format: (value: number) => string;
  /** Cost ratio 1M ÷ 10k from the two values (a rate's cost is its inverse). */
  costRatio: (at10k: number, at1m: number) => number;
  /** The most the ratio may be, or undefined when the target is on the 1M value itself. */
  maxRatio?: number;
  /** The most the 1M value may be. */
  maxAt1m?: number;
}

const costOfRate = (at10k: number, at1m: number): number => at10k / at1m;
const costOfCost = (at10k: number, at1m: number): number => at1m / at10k;

const SCALING_MEASURES: readonly ScalingMeasure[] = [
  { label: 'durable POST /events, req/s (50 clients)', value: (row) => row.postRequestsPerSecond, format: whole, costRatio: costOfRate, maxRatio: 1.5 },
  { label: 'durable POST /events, server CPU us/request', value: (row) => row.postCpuMicros, format: whole, costRatio: costOfCost, maxRatio: 1.5 },
  { label: 'date-filtered page, req/s (1 client)', value: (row) => row.filteredRequestsPerSecond, format: whole, costRatio: costOfRate, maxRatio: 1.5 },
  { label: 'date-filtered page, server CPU us/request', value: (row) => row.filteredCpuMicros, format: whole, costRatio: costOfCost, maxRatio: 1.5 },
  { label: 'start-up to listening, s', value: (row) => row.startupMs / 1000, format: (value) => value.toFixed(2), costRatio: costOfCost, maxAt1m: 5 },
  { label: 'start-up, server CPU s (no waits for a busy machine)', value: (row) => row.startupCpuMs / 1000, format: (value) => value.toFixed(2), costRatio: costOfCost, maxAt1m: 5 },
  { label: 'RSS at listening, MiB', value: (row) => row.rssMiB, format: whole, costRatio: costOfCost, maxAt1m: 700 },
];

/** The verdict of one scaling measure, or undefined when the run lacks the 10k or the 1M row. */
function scalingVerdict(measure: ScalingMeasure, scaling: readonly ScalingRow[]): { ratio: number; pass: boolean } | undefined {
  const at10k = scaling.find((row) => row.events === 10_000);
  const at1m = scaling.find((row) => row.events === 1_000_000);
  if (at10k === undefined || at1m === undefined) return undefined;
  const ratio = measure.costRatio(measure.value(at10k), measure.value(at1m));
  const pass = measure.maxRatio !== undefined ? ratio <= measure.maxRatio : measure.value(at1m) <= measure.maxAt1m!;
  return { ratio, pass };
}

const scalingTargetText = (measure: ScalingMeasure): string =>
  measure.maxRatio !== undefined ? `cost 1M / 10k <= ${measure.maxRatio}x` : `<= ${measure.maxAt1m} at 1M`;

/** The scaling table's targets as target lines (empty without `make bench-full`). */
function scalingTargets(scaling: readonly ScalingRow[] | undefined): TargetLine[] {
  if (scaling === undefined) return [];
  return SCALING_MEASURES.map((measure) => {
    const verdictOf = scalingVerdict(measure, scaling);
    const at1m = scaling.find((row) => row.events === 1_000_000);
    return {
      target: `${measure.label}: ${scalingTargetText(measure)}`,
      measured: verdictOf === undefined ? 'not run' : `${verdictOf.ratio.toFixed(2)}x (1M: ${measure.format(measure.value(at1m!))})`,
      pass: verdictOf?.pass,
    };
  });
}

/** The scaling table (issue 15) as rows of cells: the measure, its value at each size, the cost ratio, the target, PASS/MISS. */
function scalingCells(scaling: readonly ScalingRow[]): { header: string[]; rows: string[][] } {
  const header = ['', ...scaling.map((row) => `${whole(row.events)} events`), 'cost 1M / 10k', 'target', ''];
  const rows = SCALING_MEASURES.map((measure) => {
    const verdictOf = scalingVerdict(measure, scaling);
    return [measure.label, ...scaling.map((row) => measure.format(measure.value(row))), verdictOf === undefined ? '-' : `${verdictOf.ratio.toFixed(2)}x`, scalingTargetText(measure), verdict(verdictOf?.pass)];
  });
  return { header, rows };
}

const LEGEND =
  'Medians over the rounds. ratio = ours / against in requests/s; CPU ratio = against / ours in server CPU time per request ' +
  '(from /proc, measured window only), the same comparison but far less moved by other work on the machine.';

const TABLE_HEADER = ['scenario', 'events', 'clients', 'ours req/s', 'p50 ms', 'p99 ms', 'CPU us/req', 'against', 'its req/s', 'its CPU us/req', 'ratio', 'CPU ratio', 'non-2xx'] as const;

/** One table row: medians of ours, then the baseline's, the two ratios and the failures. */
function tableCells(row: LoadRow, failureCell: string): string[] {
  const baseline = row.baseline;
  return [
    `${row.scenario}${row.oursLabel === 'ours' ? '' : ` (${row.oursLabel.replace(/^ours /, '')})`}`,
    whole(row.events),
    String(row.clients),
    whole(rate(row.ours)),
    ms(p50(row.ours)),
    ms(p99(row.ours)),
    ms(cpu(row.ours)),
    baseline?.label ?? '-',
    baseline === undefined ? '-' : whole(rate(baseline.runs)),
    baseline === undefined ? '-' : ms(cpu(baseline.runs)),
    Number.isFinite(ratioOf(row)) ? `${ratioOf(row).toFixed(2)}x` : '-',
    Number.isFinite(cpuRatioOf(row)) ? `${cpuRatioOf(row).toFixed(2)}x` : '-',
    failureCell,
  ];
}

const verdict = (pass: boolean | undefined): string => (pass === undefined ? 'SKIP' : pass ? 'PASS' : 'MISS');

/** The target's measure, and a warning when judging it by server CPU per request gives the other verdict. */
function measuredText(target: TargetLine): string {
  const disagree = target.pass !== undefined && target.cpuPass !== undefined && target.cpuPass !== target.pass;
  return disagree ? `${target.measured}; by server CPU per request it would be ${verdict(target.cpuPass)}` : target.measured;
}

/** The report as plain text for the terminal. */
export function formatText(results: BenchResults): string {
  const out: string[] = [];
  out.push(`campus-events bench, ${results.date}, on ${describeMachine(results)}`, describeRun(results));
  out.push('');
  const table = results.rows.map((row) => tableCells(row, `${failuresOf(row)}${failuresOf(row) === 0 ? '' : ' !'}`));
  const widths = TABLE_HEADER.map((title, column) => Math.max(title.length, ...table.map((cells) => cells[column]!.length)));
  const left = new Set([0, 7]);
  const line = (cells: string[]): string => cells.map((cell, column) => (left.has(column) ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ');
  out.push(line([...TABLE_HEADER]), line(widths.map((width) => '-'.repeat(width))), ...table.map(line));
  out.push('', LEGEND);
  const notes = results.rows.flatMap((row) => row.notes.map((note) => `  ${row.scenario}: ${note}`));
  if (notes.length > 0) out.push('', 'notes', ...notes);
  if (results.scaling !== undefined) {
    const { header, rows } = scalingCells(results.scaling);
    const widths = header.map((title, column) => Math.max(title.length, ...rows.map((cells) => cells[column]!.length)));
    const scalingLine = (cells: string[]): string => cells.map((cell, column) => (column === 0 || column >= header.length - 2 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ').trimEnd();
    out.push('', 'cost against the size of the data (make bench-full; medians of the rounds)', scalingLine(header), scalingLine(widths.map((width) => '-'.repeat(width))), ...rows.map(scalingLine));
    const failed = results.scaling.reduce((sum, row) => sum + row.failures, 0);
    if (failed > 0) out.push(`  ${failed} non-2xx responses or socket errors in these runs !`);
  }
  out.push('', 'start-up and memory', ...figureLines(results).map((text) => `  ${text}`));
  if (results.profile !== undefined) {
    out.push('', 'CPU profile of the server under GET /events/{id} (self time)');
    for (const entry of results.profile) out.push(`  ${entry.percent.toFixed(1).padStart(5)} %  ${entry.functionName}  ${entry.location}`);
  }
  out.push('', 'targets (the bench never fails on speed)');
  for (const target of targetLines(results)) out.push(`  ${verdict(target.pass)}  ${target.target}: ${measuredText(target)}`);
  const flagged = results.rows.filter((row) => failuresOf(row) > 0);
  if (flagged.length > 0) out.push('', `FLAGGED: non-2xx responses or socket errors in: ${flagged.map((row) => row.scenario).join('; ')}`);
  out.push('', `took ${Math.round(results.elapsedSeconds)} s`);
  return out.join('\n') + '\n';
}

function describeMachine(results: BenchResults): string {
  return `${results.machine.nproc} CPUs (${results.machine.cpu}), ${results.machine.platform}, node ${results.machine.node}`;
}

function describeRun(results: BenchResults): string {
  const pinning = results.pinning === null ? 'no CPU pinning (taskset missing or one CPU)' : `server on CPU ${results.pinning.server}, load generator on CPU ${results.pinning.generator}`;
  return [
    `load generator ${results.generatorVersion}`,
    `${results.durationMs / 1000} s runs after ${results.warmupMs / 1000} s warm-up, ${results.rounds} rounds A/B`,
    pinning,
    `load average ${results.loadAverage.start.toFixed(2)} at the start, ${results.loadAverage.end.toFixed(2)} at the end${results.loadAverage.start > 0.5 ? ' (other work was running: figures are noisy)' : ''}`,
  ].join('; ');
}

function figureLines(results: BenchResults): string[] {
  const lines = results.startup.map(
    (figure) =>
      `${whole(figure.events)} events: start-up ${whole(figure.startupMs)} ms${figure.startupCpuMs === undefined ? '' : ` (${whole(figure.startupCpuMs)} ms of CPU)`}, RSS ${whole(figure.rssMiB)} MiB (medians of ${figure.runs}), heap ${whole(figure.heapBytesPerEvent)} B/event; generated in ${(figure.generateMs / 1000).toFixed(1)} s`,
  );
  const post = results.rows.find((row) => row.key === 'post');
  if (post?.requestsPerSync !== undefined) lines.push(`durable POST at ${post.clients} clients: ${post.requestsPerSync.toFixed(1)} requests per fdatasync`);
  const limiter = results.limiter;
  if (limiter !== undefined) {
    lines.push(`rate limiter, ${whole(limiter.activeKeys)} active keys: +${limiter.activeKeysMiB.toFixed(1)} MiB`);
    lines.push(
      `failure throttle, ${whole(limiter.badKeys)} distinct bad keys each from its own IPv6 /64: +${limiter.badKeysMiB.toFixed(1)} MiB, ${whole(limiter.badKeysAddressesHeld)} addresses held (bounded), ${limiter.badKeysMicrosEach.toFixed(1)} us per attempt`,
    );
  }
  return lines;
}

/** Writes the JSON file and (with `figures`) README-figures.md into `resultsDir`; returns the JSON file's path. */
export function saveResults(results: BenchResults, resultsDir: string, options: { figures: boolean }): string {
  fs.mkdirSync(resultsDir, { recursive: true });
  const stamp = results.date.replace(/[:.]/g, '-');
  const jsonFile = path.join(resultsDir, `bench-${stamp}${results.full ? '-full' : ''}.json`);
  fs.writeFileSync(jsonFile, `${JSON.stringify({ ...results, targets: targetLines(results) }, null, 2)}\n`);
  if (options.figures) fs.writeFileSync(path.join(resultsDir, 'README-figures.md'), formatMarkdown(results));
  return jsonFile;
}

function formatMarkdown(results: BenchResults): string {
  const out: string[] = [];
  out.push('# Benchmark figures', '');
  out.push(`Written by \`make bench${results.full ? '-full' : ''}\` (test/bench/run.ts) on ${results.date}. Rerun it to refresh this file; the JSON of every run stays beside it (git-ignored).`, '');
  out.push(`Machine: ${describeMachine(results)}.`, '');
  out.push(`Run: ${describeRun(results)}.`, '');
  out.push(`| ${TABLE_HEADER.join(' | ')} |`);
  out.push(`|${TABLE_HEADER.map((_, column) => (column === 0 || column === 7 ? '---' : '--:')).join('|')}|`);
  for (const row of results.rows) out.push(`| ${tableCells(row, String(failuresOf(row))).join(' | ')} |`);
  out.push('', LEGEND);
  if (results.scaling !== undefined) {
    const { header, rows } = scalingCells(results.scaling);
    out.push('', '## Cost against the size of the data', '', `| ${header.join(' | ')} |`, `|---|${header.slice(1, -2).map(() => '--:').join('|')}|---|---|`);
    for (const cells of rows) out.push(`| ${cells.join(' | ')} |`);
  }
  out.push('', '## Start-up and memory', '', ...figureLines(results).map((text) => `- ${text}`));
  out.push('', '## Targets', '', ...targetLines(results).map((target) => `- **${verdict(target.pass)}** ${target.target}: ${measuredText(target)}`));
  if (results.profile !== undefined) {
    out.push('', '## CPU profile under GET /events/{id} (self time)', '', ...results.profile.map((entry) => `- ${entry.percent.toFixed(1)} % \`${entry.functionName}\` ${entry.location}`));
  }
  out.push('');
  return out.join('\n');
}
