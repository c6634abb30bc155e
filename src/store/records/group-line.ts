// Reads an atomic group's line back (see encodeGroup; its framing in lib/group-line.ts): the line's own checksum,
// then each member as a line of its own, all good or the whole line bad, so replay applies all of it or none.
import { groupBounds, isGroupLine } from '../../lib/group-line.js';
import { checkedSeal, decodeRecord } from './decode-record.js';
import type { DecodeOptions, LogRecord, MetaRecord } from './jsonl-record.js';

/** Any line of the log `buf[start, end)` (the newline excluded): its record, a group's members, or why it is bad. */
export function decodeLine(buf: Buffer, start: number, end: number, decode: DecodeOptions | undefined): LogRecord | MetaRecord | (LogRecord | MetaRecord)[] | string {
  return isGroupLine(buf, start, end) ? decodeGroup(buf, start, end, decode) : decodeRecord(buf, start, end, decode);
}

/** The members of group line `buf[start, end)` (the newline excluded), or why it is bad. */
export function decodeGroup(buf: Buffer, start: number, end: number, decode: DecodeOptions | undefined): (LogRecord | MetaRecord)[] | string {
  // The older layout (a tab before each member) has no checksum of its own: each member's covers it.
  const limit = buf[start] === TAB ? end : checkedSeal(buf, start, end);
  if (typeof limit === 'string') return limit;
  const group = groupBounds(buf, start, limit);
  if (typeof group === 'string') return group;
  const { bounds } = group;
  const records: (LogRecord | MetaRecord)[] = [];
  let newest = 0;
  for (let i = 0; i < bounds.length; i += 2) {
    const record = decodeRecord(buf, bounds[i]!, bounds[i + 1]!, decode);
    if (typeof record === 'string') return `member ${records.length + 1} of an atomic group: ${record}`;
    records.push(record);
    newest = Math.max(newest, record.seq);
  }
  // The line's seq is its newest member's (encodeGroup): PostgreSQL keeps the row under it.
  if (group.seq !== undefined && group.seq !== newest) return `the group line's seq ${group.seq} is not its newest member's, ${newest}`;
  return records;
}

const TAB = 0x09;
