// The /events endpoints: list, read, create, update, delete, each a small function over the store.
import { ApiError } from '../http/errors.js';
import type { HandlerResult, RequestContext, Route } from '../http/route.js';
import { parseListQuery } from './list-query.js';
import { canEver, mayActOn, type Principal, type Role } from '../auth/principal.js';
import { randomId } from '../lib/random-id.js';
import { listPage } from './list-page.js';
import { pageLinks } from '../http/page-links.js';
import type { EventChange, EventStore } from '../store/event-store.js';
import { writeAnyEvent } from '../series/occurrence-writes.js';
import { createdJson, isHiddenStatus, type EventRecord, type StoredEvent, toRecord, viewJson } from './event.js';
import { validateCreate, validateUpdate } from './validate.js';
import { etagOf, stateEtag } from './event-etag.js';
import { maySee, movedStatus, type ApprovalMode } from './publishing.js';
import type { ParsedListQuery } from './list-query.js';
import { IdempotencyGuard, withIdempotency } from '../feeds/idempotency.js';
import type { IdempotencyEntry } from '../store/views/idempotency-table.js';
import { clip } from '../lib/clip.js';
import { checkIfMatch, matchesNoneMatch } from '../http/conditional.js';

export interface EventHandlerDeps {
  store: EventStore;
  now: () => number;
  randomBytes: (size: number) => Uint8Array;
  /** The Idempotency-Key checks (API.md §9.3), shared with the registration routes. Default: one of its own. */
  idempotency?: IdempotencyGuard;
  /** The campus's IANA zone: where the list's days begin. Default `UTC`. */
  timeZone?: string;
  /** `--approval` (API.md §14): whether an organizer's events wait for an admin's approval. Default `off`. */
  approval?: ApprovalMode;
}

/** The five event routes, keyed by method and pattern. */
export function eventRoutes(deps: EventHandlerDeps): { method: string; pattern: string; route: Route }[] {
  const { store } = deps;
  const writeEvent = (id: string, change: EventChange): Promise<StoredEvent | null> => writeAnyEvent(store, id, change);
  const idempotency = deps.idempotency ?? new IdempotencyGuard(store, deps.now);
  const approval = deps.approval ?? 'off';

  const list: Route = {
    name: 'listEvents',
    auth: true,
    action: 'read',
    body: false,
    query: true,
    async handle(context): Promise<HandlerResult> {
      const query = withHiddenOwner(parseListQuery(context.query, { timeZone: deps.timeZone }), context.principal!);
      const { events, total } = await store.listInTurns(query);
      const page = listPage(events, total, query.page);
      // Front-ends poll the list: a tag of the exact bytes lets them ask with If-None-Match and get a bodiless 304.
      if (matchesNoneMatch(context.request.headers['if-none-match'], page.etag)) return { status: 304, body: null, headers: { ETag: page.etag } };
      const link = pageLinks({ path: `${context.prefix}/events`, filters: query.filters, page: query.page, limit: query.limit, total });
      return { status: 200, body: page.body, headers: { ETag: page.etag, Link: link }, bodyBytes: page.bytes };
    },
  };

  const read: Route = {
    name: 'getEvent',
    auth: true,
    action: 'read',
    body: false,
    handle(context) {
      const id = context.params['id']!;
      const event = store.get(id);
      // A draft or pending event does not exist for anyone but its organizer and admins (API.md §14).
      if (event === undefined || !maySee(context.principal!, event)) throw notFound(id);
      const etag = etagOf(event);
      if (matchesNoneMatch(context.request.headers['if-none-match'], etag)) return { status: 304, body: null, headers: { ETag: etag } };
      return { status: 200, body: event.json, headers: { ETag: etag } };
    },
  };

  const create: Route = {
    name: 'createEvent',
    auth: true,
    action: 'create',
    body: true,
    handle: (context) => withIdempotency(idempotency, context, createdAnswer, async (idem) => {
      const principal = context.principal!;
      const input = validateCreate(context.body!, principal, approval);
      const organizer = principal.role === 'admin' && input.organizer !== undefined ? input.organizer : { name: principal.name, email: principal.email };
      const record: EventRecord = {
        id: '',
        title: input.title,
        description: input.description,
        category: input.category,
        location: input.location,
        start_time: input.start_time,
        end_time: input.end_time,
        capacity: input.capacity,
        registered_count: 0,
        organizer,
        created_at: new Date(deps.now()).toISOString(),
        ...(input.status === 'published' ? {} : { status: input.status }),
      };
      for (let attempt = 0; ; attempt++) {
        record.id = randomId('evt', deps.randomBytes);
        const taken = store.get(record.id) !== undefined;
        if (!taken || attempt === 3) break;
      }
      const stored = await store.write(record.id, (current) => {
        if (current !== undefined) throw new Error(`event id collision on ${record.id}`);
        return record;
      }, { idem });
      return {
        status: 201,
        body: createdJson(record),
        headers: { Location: `${context.prefix}/events/${record.id}`, ETag: etagOf(stored!) },
      };
    }),
  };

  const update: Route = {
    name: 'updateEvent',
    auth: true,
    action: 'update',
    body: true,
    async handle(context) {
      const id = context.params['id']!;
      const principal = context.principal!;
      const stored = await writeEvent(id, (current) => {
        const record = checkAccess(current, id, principal, 'update', context);
        const updated = withMove(validateUpdate(context.body!, record, principal), record, principal, approval, `event "${id}"`);
        if (updated.capacity < updated.registered_count) {
          throw new ApiError('conflict', `capacity cannot be ${updated.capacity}: ${updated.registered_count} attendees are already registered for event "${id}".`);
        }
        return updated;
      });
      return { status: 200, body: stored!.json, headers: { ETag: etagOf(stored!) } };
    },
  };

  const remove: Route = {
    name: 'deleteEvent',
    auth: true,
    action: 'delete',
    body: false,
    async handle(context) {
      const id = context.params['id']!;
      await writeEvent(id, (current) => {
        checkAccess(current, id, context.principal!, 'delete', context);
        return null;
      });
      return { status: 204, body: null };
    },
  };

  return [
    { method: 'GET', pattern: '/events', route: list },
    { method: 'POST', pattern: '/events', route: create },
    { method: 'GET', pattern: '/events/:id', route: read },
    { method: 'PUT', pattern: '/events/:id', route: update },
    { method: 'DELETE', pattern: '/events/:id', route: remove },
  ];
}

/** The create's first answer again, from what the store remembered of it (API.md §9.3). */
function createdAnswer(entry: IdempotencyEntry, context: RequestContext): HandlerResult {
  if (entry.answer.kind !== 'event') throw new Error(`the answer remembered for an event's create is a ${entry.answer.kind}`);
  const record = JSON.parse(entry.answer.view) as EventRecord;
  record.created_at = entry.answer.createdAt;
  return { status: 201, body: createdJson(record), headers: { Location: `${context.prefix}/events/${record.id}`, ETag: stateEtag(entry.seq, entry.atMs) } };
}

/**
 * `updated` (a valid PUT applied to `before`) with its status moved as API.md §14 allows (a 409 otherwise): the move
 * under `--approval`, a restored event's cancellation_reason dropped, and a reviewer's note dropped by any change.
 */
export function withMove(updated: EventRecord, before: EventRecord, principal: Principal, approval: ApprovalMode, what: string): EventRecord {
  const status = movedStatus(before.status ?? 'published', updated.status ?? 'published', principal, approval, what);
  const next: EventRecord = { ...updated, status };
  if (status !== 'cancelled') delete next.cancellation_reason;
  // The note stays only while nothing changes: a PUT that changes nothing writes nothing (API.md §5).
  if (next.review_note !== undefined && viewJson(next) !== viewJson(before)) delete next.review_note;
  return next;
}

/**
 * The list query with the drafts and pending events its caller may ask for (API.md §14): an admin's all, an
 * organizer's own; anyone else asking for them gets a 403.
 */
function withHiddenOwner(query: ParsedListQuery, principal: Principal): ParsedListQuery {
  if (query.statuses === undefined || !query.statuses.some(isHiddenStatus) || principal.role === 'admin') return query;
  refuseHiddenStatuses(principal.role);
  return { ...query, hiddenOwner: principal.email.toLowerCase() };
}

/** The 403 of a role that never sees drafts or pending events asking for them (API.md §14: reader and feed keys). */
export function refuseHiddenStatuses(role: Role): void {
  if (!canEver(role, 'update')) throw new ApiError('forbidden', `A ${role} key may not list drafts or pending events: only their organizers and admins see them. Ask for status=published or cancelled.`);
}

/** Unknown id, or a draft the caller may not see (404), then not the owner (403), then If-Match (412): the contract's order. */
export function checkAccess(current: StoredEvent | undefined, id: string, principal: Principal, action: 'update' | 'delete', context: RequestContext): EventRecord {
  if (current === undefined || !maySee(principal, current)) throw notFound(id);
  if (!mayActOn(principal, action, current.organizerEmail)) {
    throw new ApiError('forbidden', `Your key may ${action} only events you organise; event "${id}" is organised by someone else.`);
  }
  checkIfMatch(context.request.headers['if-match'], etagOf(current), `event "${id}"`);
  return toRecord(current);
}

/** The 404 of an event id (unknown, or a draft the caller may not see). */
export function notFound(id: string): ApiError {
  return new ApiError('not_found', `No event has id "${clip(id, 80)}".`);
}

export type { HandlerResult };
