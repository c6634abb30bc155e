// One change-feed entry as served (API.md §9.2): `{seq, id, deleted, event}`, and the same as a Server-Sent Event.
import type { Change } from '../store/change-log.js';

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

/** The page of a JSON answer: the entries, `next_since` (the last entry's seq, or `since` when none) and `more`. */
export function changePageJson(changes: readonly Change[], since: number, more: boolean): string {
  let body = '{"changes":[';
  for (let i = 0; i < changes.length; i++) body += (i === 0 ? '' : ',') + changeEntryJson(changes[i]!);
  const nextSince = changes.length === 0 ? since : changes[changes.length - 1]!.seq;
  return `${body}],"next_since":${nextSince},"more":${more}}`;
}
