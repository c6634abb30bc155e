// The /series endpoints (API.md §11): each write is one atomic group of the series and its occurrences.
import { ApiError } from '../http/errors.js';
import type { HandlerResult, RequestContext, Route } from '../http/route.js';
import { mayActOn, type Principal } from '../auth/principal.js';
import { randomId } from '../lib/random-id.js';
import { pageLinks } from '../http/page-links.js';
import { checkIfMatch, matchesNoneMatch } from '../http/conditional.js';
import type { EventStore, GroupView, StoredDocument } from '../store/event-store.js';
import { parseSeries, SERIES_COLLECTION, seriesEtag, seriesJson, seriesStatus, seriesViewJson, type SeriesDocument } from './series-document.js';
import { validateSeries } from './series-input.js';
import { planCreate, planDelete, planUpdate } from './series-plan.js';
import { maySee, movedStatus, notPending, type ApprovalMode } from '../events/publishing.js';
import { withStatusChange, planReview } from './series-publishing.js';
import { reviewBody } from '../events/review-routes.js';
import { parseSeriesListQuery } from './series-list-query.js';
import { EVENT_STATUSES, isHiddenStatus } from '../events/event.js';
import { loopTurns } from '../lib/loop-turns.js';
import { IdempotencyGuard, withIdempotency } from '../feeds/idempotency.js';
import type { IdempotencyEntry } from '../store/views/idempotency-table.js';
import { clip } from '../lib/clip.js';

export interface SeriesRouteDeps {
  store: EventStore;
  now: () => number;
  randomBytes: (size: number) => Uint8Array;
  /** The campus zone: a series' time_zone when its body names none. */
  timeZone: string;
  /** `--approval` (API.md §14). Default `off`. */
  approval?: ApprovalMode;
  /** The Idempotency-Key checks (API.md §9.3), shared with the event and registration routes. Default: one of its own. */
  idempotency?: IdempotencyGuard;
}

/** The five series routes, keyed by method and pattern. */
export function seriesRoutes(deps: SeriesRouteDeps): { method: string; pattern: string; route: Route }[] {
  const { store } = deps;
  const idempotency = deps.idempotency ?? new IdempotencyGuard(store, deps.now);

  /**
   * The occurrence_count `principal` is shown when it is not the series' own: those who may change the series (its
   * organizer, admins) count every occurrence; anyone else only the ones they may see, when some are hidden from them.
   */
  const seenBy = (principal: Principal, series: SeriesDocument): number | undefined => {
    if (mayActOn(principal, 'update', series.organizer.email)) return undefined;
    let seen = 0;
    for (const id of series.occurrences) {
      const event = store.get(id);
      if (event !== undefined && maySee(principal, event)) seen++;
    }
    return seen === series.occurrences.length ? undefined : seen;
  };
  const approval = deps.approval ?? 'off';
  const newEventId = (): string => {
    for (let attempt = 0; ; attempt++) {
      const id = randomId('evt', deps.randomBytes);
      if (store.get(id) === undefined || attempt === 3) return id;
    }
  };

  const list: Route = {
    name: 'listSeries',
    auth: true,
    action: 'read',
    body: false,
    query: true,
    handle(context): HandlerResult {
      const { limit, page, statuses } = parseSeriesListQuery(context.query);
      const principal = context.principal!;
      // As for events (API.md §14): published and cancelled by default; drafts and pending ones only of those who may see them.
      const wanted = new Set(statuses ?? EVENT_STATUSES.filter((status) => !isHiddenStatus(status)));
      if (statuses?.some(isHiddenStatus) === true && principal.role !== 'admin' && principal.role !== 'organizer') {
        throw new ApiError('forbidden', `A ${principal.role} key may not list draft or pending series: only their organizers and admins see them. Ask for status=published or cancelled.`);
      }
      const all = store.documents(SERIES_COLLECTION).map(parseSeries).filter((series) => wanted.has(seriesStatus(series)) && maySee(principal, seriesVisible(series)));
      all.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      const shown = all.slice((page - 1) * limit, page * limit);
      const body = `{"series":[${shown.map((series) => seriesViewJson(series, seenBy(principal, series))).join(',')}],"total":${all.length},"page":${page}}`;
      const filters: [string, string][] = statuses === undefined ? [] : [['status', statuses.join(',')]];
      return { status: 200, body, headers: { Link: pageLinks({ path: `${context.prefix}/series`, filters, page, limit, total: all.length }) } };
    },
  };

  const read: Route = {
    name: 'getSeries',
    auth: true,
    action: 'read',
    body: false,
    handle(context) {
      const id = context.params['id']!;
      const stored = store.document(SERIES_COLLECTION, id);
      if (stored === undefined) throw notFound(id);
      const series = parseSeries(stored);
      // A draft or pending series does not exist for anyone but its organizer and admins (API.md §14).
      if (!maySee(context.principal!, seriesVisible(series))) throw notFound(id);
      const seen = seenBy(context.principal!, series);
      const etag = seriesEtag(stored, seen);
      if (matchesNoneMatch(context.request.headers['if-none-match'], etag)) return { status: 304, body: null, headers: { ETag: etag } };
      return { status: 200, body: seriesViewJson(series, seen), headers: { ETag: etag } };
    },
  };

  const create: Route = {
    name: 'createSeries',
    auth: true,
    action: 'create',
    body: true,
    // A retry with its Idempotency-Key gets the first answer again, as a create of an event does (docs/decisions.md).
    handle: (context) => withIdempotency(idempotency, context, createdAnswer, async (idem) => {
      const principal = context.principal!;
      // A series is tens of milliseconds of work: its expansion, then its plan, each on a turn of the loop of its
      // own, so other requests are answered between them. The plan is decided in one piece.
      await loopTurns.next();
      const input = validateSeries(context.body!, principal, undefined, deps.timeZone, approval);
      if (principal.role !== 'admin') input.shared.organizer = { name: principal.name, email: principal.email };
      const id = randomId('ser', deps.randomBytes);
      await loopTurns.next();
      const nowMs = deps.now();
      let document: SeriesDocument | undefined;
      const result = await store.writeGroup((view) => {
        if (view.document(SERIES_COLLECTION, id) !== undefined) throw new Error(`series id collision on ${id}`);
        const planned = planCreate(id, new Date(nowMs).toISOString(), input, { nowMs, newEventId, view });
        document = planned.document;
        return planned.plan;
      }, { idem });
      const stored = result.documents.get(id)!;
      return { status: 201, body: seriesViewJson(document!), headers: { Location: `${context.prefix}/series/${id}`, ETag: seriesEtag(stored) } };
    }),
  };

  const update: Route = {
    name: 'updateSeries',
    auth: true,
    action: 'update',
    body: true,
    async handle(context) {
      const id = context.params['id']!;
      await loopTurns.next();
      const early = validateEarly(id, context);
      await loopTurns.next();
      let document: SeriesDocument | undefined;
      /** The series as stored when the PUT was decided: its ETag answers a PUT that changes nothing. */
      let unchanged: StoredDocument | undefined;
      const result = await store.writeGroup((view) => {
        const current = checkAccess(view, id, context.principal!, 'update', context);
        // The expansion made a turn earlier holds while the series is as it was then; else it is made again here.
        const input = early !== undefined && view.document(SERIES_COLLECTION, id)?.json === early.json ? early.input : validateSeries(context.body!, context.principal!, current, deps.timeZone, approval);
        const from = seriesStatus(current);
        const to = movedStatus(from, input.status, context.principal!, approval, `series "${id}"`);
        const plan = { nowMs: deps.now(), newEventId, view };
        let planned = planUpdate(current, input, plan);
        // A PUT that changes nothing writes nothing, so the ETag stays (the store skips unchanged events too).
        // A cancellation_reason sent back as stored is no change either (a client may send back what it read).
        const reasonChanges = input.cancellationReason !== undefined && input.cancellationReason !== current.cancellation_reason;
        if (to === from && !reasonChanges && planned.plan.documents[0]?.json === seriesJson(current)) {
          document = planned.document;
          unchanged = view.document(SERIES_COLLECTION, id);
          return { events: planned.plan.events, documents: [] };
        }
        planned = withStatusChange(planned, { from, to, cancellationReason: input.cancellationReason }, plan);
        document = planned.document;
        return planned.plan;
      });
      // Not the store's document now: a DELETE batched after this PUT may have removed it already (a 500 once).
      const stored = result.documents.get(id) ?? unchanged!;
      return { status: 200, body: seriesViewJson(document!), headers: { ETag: seriesEtag(stored) } };
    },
  };

  const remove: Route = {
    name: 'deleteSeries',
    auth: true,
    action: 'delete',
    body: false,
    async handle(context) {
      const id = context.params['id']!;
      await loopTurns.next();
      await store.writeGroup((view) => planDelete(checkAccess(view, id, context.principal!, 'delete', context), view));
      return { status: 204, body: null };
    },
  };

  const review = (action: 'approve' | 'reject'): Route => ({
    name: action === 'approve' ? 'approveSeries' : 'rejectSeries',
    auth: true,
    action: 'review',
    body: action === 'approve' ? 'optional' : true,
    async handle(context) {
      const id = context.params['id']!;
      let document: SeriesDocument | undefined;
      const result = await store.writeGroup((view) => {
        const current = checkAccess(view, id, context.principal!, 'update', context);
        const { reason } = reviewBody(context.body!, action, 'series');
        const status = seriesStatus(current);
        if (status !== 'pending') throw notPending(`series "${id}"`, status, action);
        const planned = planReview(current, action, reason, { nowMs: deps.now(), newEventId, view });
        document = planned.document;
        return planned.plan;
      });
      return { status: 200, body: seriesViewJson(document!), headers: { ETag: seriesEtag(result.documents.get(id)!) } };
    },
  });

  /**
   * The expansion of a PUT against the series as it is now, made on a turn before the write's own, with the stored
   * JSON it was made from; undefined when the request fails (the write's own checks then answer, in the contract's order).
   */
  function validateEarly(id: string, context: RequestContext): { json: string; input: ReturnType<typeof validateSeries> } | undefined {
    const stored = store.document(SERIES_COLLECTION, id);
    if (stored === undefined) return undefined;
    try {
      const current = checkAccess({ event: (eventId) => store.get(eventId), roster: (eventId) => store.roster(eventId), document: (collection, documentId) => store.document(collection, documentId) }, id, context.principal!, 'update', context);
      return { json: stored.json, input: validateSeries(context.body!, context.principal!, current, deps.timeZone, approval) };
    } catch {
      return undefined;
    }
  }

  return [
    { method: 'POST', pattern: '/series/:id/approve', route: review('approve') },
    { method: 'POST', pattern: '/series/:id/reject', route: review('reject') },
    { method: 'GET', pattern: '/series', route: list },
    { method: 'POST', pattern: '/series', route: create },
    { method: 'GET', pattern: '/series/:id', route: read },
    { method: 'PUT', pattern: '/series/:id', route: update },
    { method: 'DELETE', pattern: '/series/:id', route: remove },
  ];
}

/** Unknown id (404), then not the owner (403), then If-Match (412): the contract's order, against the latest state. */
function checkAccess(view: GroupView, id: string, principal: Principal, action: 'update' | 'delete', context: RequestContext): SeriesDocument {
  const stored: StoredDocument | undefined = view.document(SERIES_COLLECTION, id);
  if (stored === undefined) throw notFound(id);
  const series = parseSeries(stored);
  if (!maySee(principal, seriesVisible(series))) throw notFound(id);
  if (!mayActOn(principal, action, series.organizer.email.toLowerCase())) {
    throw new ApiError('forbidden', `Your key may ${action} only series you organise; series "${id}" is organised by someone else.`);
  }
  checkIfMatch(context.request.headers['if-match'], seriesEtag(stored), `series "${id}"`);
  return series;
}

/** What maySee reads of a series. */
function seriesVisible(series: SeriesDocument): { status: SeriesDocument['status']; organizerEmail: string } {
  return { status: series.status, organizerEmail: series.organizer.email.toLowerCase() };
}

function notFound(id: string): ApiError {
  return new ApiError('not_found', `No series has id "${clip(id, 80)}".`);
}

/** A series create's first answer again, from what the store remembered of it (API.md §9.3). */
function createdAnswer(entry: IdempotencyEntry, context: RequestContext): HandlerResult {
  const { answer } = entry;
  if (answer.kind !== 'document' || answer.collection !== SERIES_COLLECTION) throw new Error(`the answer remembered for a series' create is a ${answer.kind}`);
  const stored: StoredDocument = { collection: answer.collection, id: answer.id, json: answer.json, seq: entry.seq };
  return { status: 201, body: seriesViewJson(parseSeries(stored)), headers: { Location: `${context.prefix}/series/${answer.id}`, ETag: seriesEtag(stored) } };
}
