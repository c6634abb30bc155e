// GET /changes (API.md §9.2): a page of the latest change of each event after `since`, or the same as a Server-Sent Events stream.
import { ApiError } from '../http/errors.js';
import type { HandlerResult, Route } from '../http/route.js';
import type { ChangeFeedSource } from '../store/change-log.js';
import { changePageJson } from './change-entry.js';
import { parseChangesQuery, parseLastEventId } from './changes-query.js';
import type { ChangeStreams } from './change-stream.js';
import { prefers } from '../http/accepts.js';

export interface ChangesRouteDeps {
  source: ChangeFeedSource;
  streams: ChangeStreams;
}

/** `Content-Type` of a change stream. */
export const EVENT_STREAM_TYPE = 'text/event-stream; charset=utf-8';

/** True when the client asks for Server-Sent Events. */
export function wantsEventStream(accept: string | undefined): boolean {
  return prefers(accept, 'text/event-stream');
}

/**
 * 410 when a client at `since` may have missed something: a deletion compaction dropped after it, or a
 * position the log never reached (it was restored from an older backup).
 */
export function checkPosition(source: ChangeFeedSource, since: number, what: string): void {
  if (since > source.lastSeq) {
    throw new ApiError('gone', `${what} ${since} is newer than the last change (${source.lastSeq}): the log was restored from an older copy. Start again from since=0.`);
  }
  if (since > 0 && since < source.horizon) {
    throw new ApiError('gone', `${what} ${since} is older than what the log still holds (deletions up to ${source.horizon} were compacted away). Start again from since=0.`);
  }
}

/** The GET /changes route. */
export function changesRoute(deps: ChangesRouteDeps): { method: string; pattern: string; route: Route } {
  const route: Route = {
    name: 'listChanges',
    auth: true,
    action: 'changes',
    body: false,
    query: true,
    handle(context): HandlerResult {
      const query = parseChangesQuery(context.query);
      if (wantsEventStream(context.request.headers.accept)) {
        const lastEventId = parseLastEventId(context.request.headers['last-event-id']);
        const since = lastEventId ?? query.since;
        checkPosition(deps.source, since, lastEventId === undefined ? 'since' : 'Last-Event-ID');
        const stream = deps.streams.open(context.principal!.keyId, since);
        return { status: 200, body: null, stream, headers: { 'Content-Type': EVENT_STREAM_TYPE, 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' } };
      }
      checkPosition(deps.source, query.since, 'since');
      const page = deps.source.after(query.since, query.limit);
      return { status: 200, body: changePageJson(page.changes, query.since, page.more), headers: { 'Cache-Control': 'no-store' } };
    },
  };
  return { method: 'GET', pattern: '/changes', route };
}
