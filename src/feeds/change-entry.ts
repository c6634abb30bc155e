// One change-feed entry as served (API.md §9.2): `{seq, id, deleted, event}`, and the same as a Server-Sent Event.
import type { Change } from '../store/views/change-log.js';

/** The JSON of one entry: the event's state now (its single-read view), or null once deleted. */
export function changeEntryJson(change: Change): string {
  return change.event === null
    ? `{"seq":${change.seq},"id":"${change.id}","deleted":true,"event":null}`
    : `{"seq":${change.seq},"id":"${change.id}","deleted":false,"event":${change.event.json}}`;
}

/** One entry as a Server-Sent Event: its seq as the id a reconnecting client sends back in Last-Event-ID. */
export function changeEventFrame(change: Change): string {
  return `id: ${change.seq}\nevent: change\ndata: ${changeEntryJson(change)}\n\n`;
}

/** What a page says besides its entries. */
export interface PageEnd {
  since: number;
  more: boolean;
  /** The seq of the newest durable write: `next_since` of a last page (API.md §9.2). */
  lastSeq: number;
  /** The copy token, on a page of a full copy with more to come. */
  copy?: string | undefined;
}

/**
 * The page of a JSON answer: the entries, `next_since` and `more` (and `copy`). While `more`, `next_since` is the
 * last entry's seq; on the last page it is the newest durable write's (never less than the last entry's or `since`),
 * so a client that goes on from it never meets a 410 for a deletion it could not have seen.
 */
export function changePageJson(changes: readonly Change[], end: PageEnd): string {
  let body = '{"changes":[';
  for (let i = 0; i < changes.length; i++) body += (i === 0 ? '' : ',') + changeEntryJson(changes[i]!);
  const lastEntry = changes.length === 0 ? end.since : changes[changes.length - 1]!.seq;
  const nextSince = end.more ? lastEntry : Math.max(lastEntry, end.since, end.lastSeq);
  const copy = end.more && end.copy !== undefined ? `,"copy":"${end.copy}"` : '';
  return `${body}],"next_since":${nextSince},"more":${end.more}${copy}}`;
}
