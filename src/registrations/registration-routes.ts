// The registration endpoints of API.md §8: register, list (JSON or CSV), read, cancel, check in.
import { ApiError } from '../http/errors.js';
import type { HandlerResult, RequestContext, Route } from '../http/route.js';
import { parsePaging } from '../events/list-query.js';
import { pageLinks } from '../http/page-links.js';
import { prefers } from '../http/accepts.js';
import { mayActOn, type Principal } from '../auth/principal.js';
import { maySee } from '../events/publishing.js';
import { notFound } from '../events/handlers.js';
import { randomId } from '../lib/random-id.js';
import { seatsOf } from '../store/views/served-event.js';
import type { StoredEvent } from '../events/event.js';
import type { EventStore } from '../store/event-store.js';
import type { Registration, RegistrationStatus, RosterView } from '../store/views/roster.js';
import { validateCheckIn, validateRegistration } from './registration-input.js';
import { CSV_TYPE, registrationEtag, registrationJson, registrationsCsv } from './registration-view.js';
import { checkIfMatch, matchesNoneMatch } from '../http/conditional.js';
import { IdempotencyGuard, withIdempotency } from '../feeds/idempotency.js';
import type { IdempotencyEntry, IdempotencyTag } from '../store/views/idempotency-table.js';
import { clip } from '../lib/clip.js';

export interface RegistrationRouteDeps {
  store: EventStore;
  now: () => number;
  randomBytes: (size: number) => Uint8Array;
  /** The Idempotency-Key checks (API.md §9.3), shared with the event routes. Default: one of its own. */
  idempotency?: IdempotencyGuard;
}

/** The waitlist of an event holds at most this many (API.md §8). */
export function waitlistBound(capacity: number): number {
  return Math.max(capacity, 1000);
}

/** The five registration routes, keyed by method and pattern. */
export function registrationRoutes(deps: RegistrationRouteDeps): { method: string; pattern: string; route: Route }[] {
  const { store, now } = deps;
  const idempotency = deps.idempotency ?? new IdempotencyGuard(store, now);

  const register: Route = {
    name: 'createRegistration',
    auth: true,
    action: 'register',
    body: true,
    handle(context) {
      const eventId = context.params['id']!;
      const event = store.get(eventId);
      // A retry of a registration whose event is gone since gets its first answer (API.md §9.3); any other request
      // with an unknown id answers 404 before an Idempotency-Key reuse (§3). The write checks the event again.
      if (event === undefined || !maySee(context.principal!, event)) {
        const replay = idempotency.replayOf(context, registeredAnswer);
        if (replay !== undefined) return replay;
      }
      visibleEvent(event, eventId, context.principal!);
      return withIdempotency(idempotency, context, registeredAnswer, (idem) => registerOne(context, eventId, idem));
    },
  };

  async function registerOne(context: RequestContext, eventId: string, idem: IdempotencyTag | undefined): Promise<HandlerResult> {
    {
      const { registration } = await store.changeRegistrations(eventId, (event, roster) => {
        visibleEvent(event, eventId, context.principal!);
        const input = validateRegistration(context.body!);
        refuseIfNotPublished(event!);
        refuseIfClosed(event!, now());
        if (roster.hasEmail(input.email)) {
          throw new ApiError('conflict', `${clip(input.email, 80)} is already registered for event "${eventId}"; cancel that registration first to register again.`);
        }
        const { capacity } = seatsOf(event!);
        if (roster.confirmed >= capacity && roster.waitlisted >= waitlistBound(capacity)) {
          throw new ApiError('conflict', `Event "${eventId}" is full and its waitlist holds its maximum of ${waitlistBound(capacity)}; no more registrations are taken.`);
        }
        let id = randomId('reg', deps.randomBytes);
        while (roster.get(id) !== undefined) id = randomId('reg', deps.randomBytes);
        return { op: 'register', registration: { id, name: input.name, email: input.email } };
      }, { idem });
      const body = registrationJson(registration!);
      return { status: 201, body, headers: { Location: `${context.prefix}/events/${eventId}/registrations/${registration!.id}`, ETag: registrationEtag(body) } };
    }
  }

  /** A registration's first answer again, from what the store remembered of it (API.md §9.3). */
  function registeredAnswer(entry: IdempotencyEntry, context: RequestContext): HandlerResult {
    if (entry.answer.kind !== 'registration') throw new Error(`the answer remembered for a registration is a ${entry.answer.kind}`);
    const registration = entry.answer.registration;
    const body = registrationJson(registration);
    return { status: 201, body, headers: { Location: `${context.prefix}/events/${registration.eventId}/registrations/${registration.id}`, ETag: registrationEtag(body) } };
  }

  const list: Route = {
    name: 'listRegistrations',
    auth: true,
    action: 'attendees',
    body: false,
    query: true,
    handle(context) {
      const query = parseRegistrationQuery(context.query);
      const eventId = context.params['id']!;
      const event = managedEvent(store.get(eventId), eventId, context);
      const offset = (query.page - 1) * query.limit;
      const { registrations, total } = store.roster(event.id).page(query.status, offset, query.limit);
      const headers: Record<string, string> = {};
      const filters: [string, string][] = query.status === undefined ? [] : [['status', query.status]];
      headers['Link'] = pageLinks({ path: `${context.prefix}/events/${eventId}/registrations`, filters, page: query.page, limit: query.limit, total });
      if (prefers(context.request.headers.accept, 'text/csv')) {
        headers['Content-Type'] = CSV_TYPE;
        return { status: 200, body: registrationsCsv(registrations), headers };
      }
      const body = `{"registrations":[${registrations.map(registrationJson).join(',')}],"total":${total},"page":${query.page}}`;
      return { status: 200, body, headers };
    },
  };

  const read: Route = {
    name: 'getRegistration',
    auth: true,
    action: 'register',
    actionWords: 'read registrations',
    body: false,
    handle(context) {
      const eventId = context.params['id']!;
      visibleEvent(store.get(eventId), eventId, context.principal!);
      const body = registrationJson(existing(store.roster(eventId), context.params['reg_id']!, eventId));
      const etag = registrationEtag(body);
      if (matchesNoneMatch(context.request.headers['if-none-match'], etag)) return { status: 304, body: null, headers: { ETag: etag } };
      return { status: 200, body, headers: { ETag: etag } };
    },
  };

  const cancel: Route = {
    name: 'cancelRegistration',
    auth: true,
    action: 'register',
    actionWords: 'cancel registrations',
    body: false,
    async handle(context) {
      const eventId = context.params['id']!;
      const registrationId = context.params['reg_id']!;
      await store.changeRegistrations(eventId, (event, roster) => {
        visibleEvent(event, eventId, context.principal!);
        const found = existing(roster, registrationId, eventId);
        ifMatch(context, found);
        return { op: 'cancel', id: found.id };
      });
      return { status: 204, body: null };
    },
  };

  const checkIn: Route = {
    name: 'checkInRegistration',
    auth: true,
    action: 'attendees',
    body: 'optional',
    async handle(context) {
      const eventId = context.params['id']!;
      const registrationId = context.params['reg_id']!;
      let found: Registration | undefined;
      const result = await store.changeRegistrations(eventId, (event, roster) => {
        // An unknown id (the event, then its registration) answers before "not the owner" (API.md §3 and §8).
        visibleEvent(event, eventId, context.principal!);
        found = existing(roster, registrationId, eventId);
        managedEvent(event, eventId, context);
        ifMatch(context, found);
        validateCheckIn(context.body!);
        if (found.status !== 'confirmed') {
          throw new ApiError('conflict', `Registration "${registrationId}" is waitlisted: only a confirmed registration can be checked in.`);
        }
        return { op: 'checkIn', id: found.id };
      });
      const body = registrationJson(result.registration ?? found!);
      return { status: 200, body, headers: { ETag: registrationEtag(body) } };
    },
  };

  const base = '/events/:id/registrations';
  return [
    { method: 'POST', pattern: base, route: register },
    { method: 'GET', pattern: base, route: list },
    { method: 'GET', pattern: `${base}/:reg_id`, route: read },
    { method: 'DELETE', pattern: `${base}/:reg_id`, route: cancel },
    { method: 'POST', pattern: `${base}/:reg_id/check-in`, route: checkIn },
  ];
}

/** The event, if it exists and the caller may see it (a draft or pending one: its organizer and admins); else a 404 naming the id. */
function visibleEvent(event: StoredEvent | undefined, eventId: string, principal: Principal): StoredEvent {
  if (event === undefined || !maySee(principal, event)) throw notFound(eventId);
  return event;
}

/** The 412 of an If-Match (when sent) that is not `registration`'s ETag as the write finds it (API.md §3). */
function ifMatch(context: RequestContext, registration: Registration): void {
  const header = context.request.headers['if-match'];
  if (header !== undefined) checkIfMatch(header, registrationEtag(registrationJson(registration)), `registration "${registration.id}"`);
}

/** Only a published event takes registrations (API.md §14); a cancelled one keeps those it has. */
function refuseIfNotPublished(event: StoredEvent): void {
  if (event.status === undefined || event.status === 'published') return;
  const why = event.status === 'cancelled' ? 'it was cancelled (its registrations stay, readable and exportable)' : 'only a published event does';
  throw new ApiError('conflict', `Event "${event.id}" is "${event.status}": it takes no registrations; ${why}.`);
}

/** An event that has ended takes no registrations. */
function refuseIfClosed(event: StoredEvent, nowMs: number): void {
  if (event.endMs <= nowMs) {
    throw new ApiError('conflict', `Event "${event.id}" ended at ${new Date(event.endMs).toISOString()}; it takes no more registrations.`);
  }
}

/** The event, if it exists (404) and the caller organises it or is an admin (403). */
function managedEvent(event: StoredEvent | undefined, eventId: string, context: RequestContext): StoredEvent {
  visibleEvent(event, eventId, context.principal!);
  if (event === undefined) throw notFound(eventId);
  if (!mayActOn(context.principal!, 'attendees', event.organizerEmail)) {
    throw new ApiError('forbidden', `Only the organizer of event "${eventId}" or an admin may see its attendees or check them in.`);
  }
  return event;
}

function existing(roster: RosterView, registrationId: string, eventId: string): Registration {
  const registration = roster.get(registrationId);
  if (registration === undefined) throw new ApiError('not_found', `Event "${eventId}" has no registration with id "${clip(registrationId, 80)}".`);
  return registration;
}

interface RegistrationQuery {
  status: RegistrationStatus | undefined;
  limit: number;
  page: number;
}

/** Parses `status`, `limit`, `page` of the attendee list; anything else is a 400. */
function parseRegistrationQuery(query: string): RegistrationQuery {
  const result: RegistrationQuery = { status: undefined, limit: 50, page: 1 };
  const seen = new Set<string>();
  for (const [name, value] of new URLSearchParams(query)) {
    if (seen.has(name)) throw new ApiError('bad_request', `Query parameter ${clip(name, 80)} is given more than once.`);
    seen.add(name);
    if (name === 'status') {
      if (value !== 'confirmed' && value !== 'waitlisted') throw new ApiError('bad_request', `Query parameter status must be "confirmed" or "waitlisted", got "${clip(value, 80)}".`);
      result.status = value;
    } else if (name === 'limit' || name === 'page') {
      result[name] = parsePaging(name, value);
    } else {
      throw new ApiError('bad_request', `Unknown query parameter "${clip(name, 80)}"; the attendee list takes status, limit and page.`);
    }
  }
  return result;
}
