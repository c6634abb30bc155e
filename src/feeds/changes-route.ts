// GET /changes (API.md §9.2): a page of the latest change of each event after `since`, or the same as a Server-Sent Events stream.
import { ApiError } from '../http/errors.js';
import type { HandlerResult, Route } from '../http/route.js';
import type { ChangeFeedSource, ChangePage } from '../store/views/change-log.js';
import { COPY_TOKEN_MAX_AGE_MS } from '../store/views/copy-token.js';
import { changePageJson } from './change-entry.js';
import { parseChangesQuery, parseLastEventId, type ChangesQuery } from './changes-query.js';
import type { ChangeStreams } from './change-stream.js';
import { prefers } from '../http/accepts.js';

export interface ChangesRouteDeps {
  source: ChangeFeedSource;
  streams: ChangeStreams;
  /** The clock (ms since the epoch): when a copy began, and whether its token is older than 24 h. Default Date.now. */
  now?: () => number;
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
    // A position of more digits than a number holds exactly is not quoted as the other number it reads as.
    const shown = Number.isSafeInteger(since) ? String(since) : `beyond ${Number.MAX_SAFE_INTEGER}`;
    throw new ApiError('gone', `${what} ${shown} is newer than the last change (${source.lastSeq}): the log was restored from an older copy. Start again from since=0.`);
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
    handle(context): HandlerResult | Promise<HandlerResult> {
      const query = parseChangesQuery(context.query);
      if (wantsEventStream(context.request.headers.accept)) {
        const lastEventId = parseLastEventId(context.request.headers['last-event-id']);
        const since = lastEventId ?? query.since;
        checkPosition(deps.source, since, lastEventId === undefined ? 'since' : 'Last-Event-ID');
        return deps.streams.open(context.principal!.keyId, since).then((stream) => ({ status: 200, body: null, stream, headers: { 'Content-Type': EVENT_STREAM_TYPE, 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' } }));
      }
      const { page, copy } = copyPage(deps.source, query, (deps.now ?? Date.now)());
      const body = changePageJson(page.changes, { since: query.since, more: page.more, lastSeq: deps.source.lastSeq, copy });
      // Where the feed ends now, whatever page this is: a client that wants only what comes next (a screen that
      // just read the events) streams from it, without paging through a copy to learn it.
      return { status: 200, body, headers: { 'Cache-Control': 'no-store', 'Last-Seq': String(deps.source.lastSeq) } };
    },
  };
  return { method: 'GET', pattern: '/changes', route };
}

/**
 * A JSON page, and the copy token it carries. A page at `since=0` begins a copy (at the newest durable write);
 * a page with `copy` goes on with it, from any `since`: refused (410) only when a deletion made after the copy
 * began was compacted away, when the log was restored to before it, or when it began over 24 hours ago.
 */
export function copyPage(source: ChangeFeedSource, query: ChangesQuery, nowMs: number): { page: ChangePage; copy: string | undefined } {
  if (query.copy === undefined) {
    checkPosition(source, query.since, 'since');
    const page = source.after(query.since, query.limit);
    const copy = query.since === 0 && page.more ? source.copyToken({ began: source.lastSeq, startedMs: nowMs }) : undefined;
    return { page, copy };
  }
  const start = source.readCopyToken(query.copy);
  if (start === undefined) throw new ApiError('bad_request', 'Query parameter copy is not a copy token this service gave: send the copy of the page before unchanged, or start again from since=0.');
  if (nowMs - start.startedMs > COPY_TOKEN_MAX_AGE_MS) throw new ApiError('gone', 'This copy began more than 24 hours ago. Start again from since=0.');
  if (start.began > source.lastSeq) throw new ApiError('gone', `This copy began at ${start.began}, after the last change (${source.lastSeq}): the log was restored from an older copy. Start again from since=0.`);
  if (source.horizon > start.began) throw new ApiError('gone', `A deletion made after this copy began (up to ${source.horizon}) was compacted away before the copy finished. Start again from since=0.`);
  if (query.since > source.lastSeq) checkPosition(source, query.since, 'since');
  return { page: source.after(query.since, query.limit, start.began), copy: query.copy };
}
