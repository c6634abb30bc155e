// `verify` of the CLI: what it found in a data folder's log or a database's, as text or JSON on stdout; warnings on
// stderr; damage is thrown (exit 1), after a JSON report with ok: false when --json asked for one.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { verifyDatabase } from './cli-postgres.js';
import { compactionTempFile } from './store/file/log-compaction.js';
import { LogDamageError } from './store/file/log-damage-error.js';
import { verifyLog } from './store/file/log-verify.js';
import { redactUrl } from './store/postgres/client.js';

/** `verify`: the report on stdout, a torn tail as a warning on stderr; damage exits 1 (with --json, also a report with ok: false). */
export async function verifyFolder(dataDir: string, json: boolean): Promise<void> {
  let report;
  try {
    report = await verifyLog(dataDir);
  } catch (thrown) {
    // Its own message sends the reader to `verify`, which this is.
    const error = thrown instanceof LogDamageError
      ? new Error(`${thrown.file}: line ${thrown.line} (byte offset ${thrown.offset}) is damaged: ${thrown.reason}. A server will not start on this log, so that no data is dropped silently; restore it from a backup (README: Backups and restore).`)
      : thrown;
    if (json) process.stdout.write(JSON.stringify({ ok: false, file: path.join(dataDir, 'events.jsonl'), error: error instanceof Error ? error.message : String(error) }) + '\n');
    throw error;
  }
  const leftoverTemp = existsSync(compactionTempFile(report.file));
  if (json) {
    const torn = report.torn === undefined ? null : { ...report.torn, bytes: report.fileLength - report.torn.offset };
    const { file, exists, lines, liveEvents, liveRegistrations, liveDocuments, rememberedAnswers, supersededLines, lastSeq, fileLength } = report;
    // ok: what the text form calls "healthy" (a torn tail included: the next start cuts it off).
    const fields = { ok: true, file, exists, lines, live_events: liveEvents, live_registrations: liveRegistrations, live_series: liveDocuments, remembered_answers: rememberedAnswers, superseded_lines: supersededLines, last_seq: lastSeq, bytes: fileLength, torn, compaction_temp_file: leftoverTemp };
    process.stdout.write(JSON.stringify(fields) + '\n');
  } else if (!report.exists) {
    process.stdout.write(`${report.file}: no event log yet (an empty store)\n`);
  } else {
    process.stdout.write(
      `${report.file}: ${report.torn === undefined ? 'healthy' : 'healthy up to a torn tail'}\n` +
        // Records, not lines: a series is one line of many records, and the warnings below number physical lines.
        `  records: ${report.lines} (${report.supersededLines} superseded; ${report.rememberedAnswers} Idempotency-Key answers, kept 24 h)\n` +
        `  live events: ${report.liveEvents}\n` +
        `  live registrations: ${report.liveRegistrations} (registered_count of every event checked against them)\n` +
        `  live series: ${report.liveDocuments}\n` +
        `  last seq: ${report.lastSeq}\n` +
        `  bytes: ${report.fileLength}\n`,
    );
  }
  if (report.torn !== undefined) {
    const { line, offset, reason } = report.torn;
    process.stderr.write(
      `warning: torn tail at line ${line} (byte offset ${offset}, ${report.fileLength - offset} bytes to the end): ${reason}. ` +
        'This is normal after a crash (or a write in progress, if a server runs): the next start cuts it off and keeps it in events.jsonl.torn-<time>.\n',
    );
  }
  if (leftoverTemp) {
    process.stderr.write(`warning: ${compactionTempFile(report.file)} exists: a compaction is running, or one was interrupted (the next start removes it; the log is intact).\n`);
  }
}

/** `verify --store URL`: the database's log, reported as a data folder's is; damage exits 1 (with --json, also ok: false). */
export async function verifyStore(url: string, json: boolean): Promise<void> {
  const store = redactUrl(url);
  let report;
  try {
    report = await verifyDatabase(url);
  } catch (error) {
    if (json && error instanceof Error && error.name === 'DatabaseLogDamage') process.stdout.write(JSON.stringify({ ok: false, store, error: error.message }) + '\n');
    throw error;
  }
  const { rows, lines, liveEvents, liveRegistrations, liveDocuments, rememberedAnswers, supersededLines, lastSeq, checkpointSeq, checkpointLines } = report;
  if (json) {
    process.stdout.write(JSON.stringify({ ok: true, store, rows, lines, live_events: liveEvents, live_registrations: liveRegistrations, live_series: liveDocuments, remembered_answers: rememberedAnswers, superseded_lines: supersededLines, last_seq: lastSeq, checkpoint_seq: checkpointSeq }) + '\n');
    return;
  }
  process.stdout.write(
    `${store} (table campus_log): ${rows === 0 && checkpointSeq === 0 ? 'no events yet (an empty store)' : 'healthy'}\n` +
      `  rows: ${rows} (${lines} lines, ${supersededLines} superseded; ${rememberedAnswers} Idempotency-Key answers, kept 24 h)\n` +
      `  live events: ${liveEvents}\n` +
      `  live registrations: ${liveRegistrations} (registered_count of every event checked against them)\n` +
      `  live series: ${liveDocuments}\n` +
      `  last seq: ${lastSeq}\n` +
      `  checkpoint: ${checkpointSeq === 0 ? 'none yet (every row since the first write is kept)' : `at seq ${checkpointSeq}, ${checkpointLines} lines (the rows above come after it)`}\n`,
  );
}
