// Safe retries (API.md §9.3): an Idempotency-Key on a POST gets its first answer again, a reuse 422, a race 409.
import { createHash } from 'node:crypto';
import { ApiError } from '../http/errors.js';
import type { HandlerResult, RequestContext } from '../http/route.js';
import { decodeSegment } from '../http/router.js';
import type { EventStore } from '../store/event-store.js';
import { IDEMPOTENCY_TTL_MS, type IdempotencyEntry, type IdempotencyTag } from '../store/views/idempotency-table.js';
import { AlreadyAnswered } from '../store/store-errors.js';
import { clip } from '../lib/clip.js';

/** 1–255 printable ASCII characters (space to tilde). */
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/** How a POST with an Idempotency-Key goes on: write with `tag`, and call `done` once the write settled either way. */
export interface IdempotentWrite {
  tag: IdempotencyTag;
  done: () => void;
}

/** Renders a remembered answer again (the routes know their own bodies and Location). */
export type RenderAnswer = (entry: IdempotencyEntry, context: RequestContext) => HandlerResult;

/**
 * The Idempotency-Key checks of the POST routes. Requests still being written are held here (per API
 * key and Idempotency-Key) so a second one gets 409; answers are remembered by the store once durable.
 */
export class IdempotencyGuard {
  readonly #store: EventStore;
  readonly #now: () => number;
  /** In-flight requests: API key and Idempotency-Key → the hash of the request. */
  readonly #inFlight = new Map<string, string>();
  /** In-flight requests per API key, counted against its quota with its remembered answers. */
  readonly #inFlightPerKey = new Map<string, number>();
  readonly #quota: number;

  /** @param options.quota live Idempotency-Keys per API key (remembered answers and requests in flight); default no limit. */
  constructor(store: EventStore, now: () => number, options: { quota?: number } = {}) {
    this.#store = store;
    this.#now = now;
    this.#quota = options.quota ?? Infinity;
  }

  /**
   * Checks the request's Idempotency-Key, in the order of API.md §3 (after If-Match, before fields):
   * no header → undefined (a plain write); a bad one → 400; the same key with another request → 422;
   * the first one still in flight → 409; a remembered answer → that answer, replayed; else a write to make.
   */
  begin(context: RequestContext, render: RenderAnswer): { replay: HandlerResult } | IdempotentWrite | undefined {
    const key = context.request.headers['idempotency-key'];
    if (key === undefined) return undefined;
    // Two lines would be one key joined by node ("a, a"), one the client never chose (an embedding passes an array).
    if (typeof key !== 'string' || (context.request.idempotencyKeyLines ?? 1) > 1) throw new ApiError('bad_request', 'The request has more than one Idempotency-Key header; send exactly one.');
    if (!KEY_PATTERN.test(key)) {
      throw new ApiError('bad_request', `The Idempotency-Key header must be 1 to 255 printable ASCII characters, got ${quotedKey(key)}.`);
    }
    const keyId = context.principal!.keyId;
    const requestHash = hashRequest(context);
    const remembered = this.#store.rememberedAnswer(keyId, key, this.#now());
    const name = slot(keyId, key);
    const pending = this.#inFlight.get(name);
    const firstHash = remembered?.requestHash ?? pending;
    if (firstHash !== undefined && firstHash !== requestHash) {
      throw new ApiError('idempotency_key_reused', `Idempotency-Key "${clip(key)}" was already used with another request (a different path or body); use a new key for a new request.`);
    }
    if (remembered !== undefined) return { replay: replayed(render, remembered, context) };
    if (pending !== undefined) {
      throw new ApiError('conflict', `A request with Idempotency-Key "${clip(key)}" is still being written; retry in a moment to get its answer.`, { headers: { 'Retry-After': '1' } });
    }
    this.#checkQuota(keyId);
    this.#inFlight.set(name, requestHash);
    this.#inFlightPerKey.set(keyId, (this.#inFlightPerKey.get(keyId) ?? 0) + 1);
    return {
      tag: { key, keyId, requestHash },
      done: () => {
        this.#inFlight.delete(name);
        const left = this.#inFlightPerKey.get(keyId)! - 1;
        if (left === 0) this.#inFlightPerKey.delete(keyId);
        else this.#inFlightPerKey.set(keyId, left);
      },
    };
  }

  /**
   * The remembered answer to this very request (its Idempotency-Key, from the same API key, with the same request),
   * replayed; else undefined, with nothing checked or refused. For a route whose target may be gone since its first
   * answer (a registration's event deleted): the retry still gets that answer (API.md §9.3), as a create's does.
   */
  replayOf(context: RequestContext, render: RenderAnswer): HandlerResult | undefined {
    const key = context.request.headers['idempotency-key'];
    if (typeof key !== 'string' || (context.request.idempotencyKeyLines ?? 1) > 1 || !KEY_PATTERN.test(key)) return undefined;
    const remembered = this.#store.rememberedAnswer(context.principal!.keyId, key, this.#now());
    if (remembered === undefined || remembered.requestHash !== hashRequest(context)) return undefined;
    return replayed(render, remembered, context);
  }

  /** A new Idempotency-Key past the API key's quota: 429 until its oldest answer is forgotten (API.md §9.3, README "Safe retries"). */
  #checkQuota(keyId: string): void {
    if (this.#quota === Infinity) return;
    const nowMs = this.#now();
    const use = this.#store.idempotencyUse(keyId, nowMs);
    const inFlight = this.#inFlightPerKey.get(keyId) ?? 0;
    if (use.live + inFlight < this.#quota) return;
    const retry = Math.max(1, Math.ceil(((use.oldestExpiresMs ?? nowMs + 1000) - nowMs) / 1000));
    throw new ApiError(
      'rate_limited',
      `This key already holds ${this.#quota} Idempotency-Key answers from the last 24 hours, its quota: a request with a new Idempotency-Key header is refused for ${retry} s, until the oldest is forgotten. Retries with a key already used still get their answer; a request without the Idempotency-Key header is not held by this quota.`,
      { headers: { 'Retry-After': String(retry), 'Cache-Control': 'no-store' } },
    );
  }
}

/**
 * The quota of live Idempotency-Keys per API key: as many requests as the rate limit lets one key make in
 * 24 hours (the time an answer is kept), so a client within its rate limit never meets it; only a key whose
 * count outlived the limiter's memory (a restart) or a lowered limit can. Default 1000 per 3600 s: 24,000.
 */
export function idempotencyQuota(rateLimit: number, rateWindowSeconds: number): number {
  return Math.max(1, Math.ceil((rateLimit * IDEMPOTENCY_TTL_MS) / (rateWindowSeconds * 1000)));
}

/** Writes under an Idempotency-Key, or answers again: what both POST routes do around their own write. */
export async function withIdempotency(
  guard: IdempotencyGuard,
  context: RequestContext,
  render: RenderAnswer,
  write: (tag: IdempotencyTag | undefined) => Promise<HandlerResult>,
): Promise<HandlerResult> {
  const checked = guard.begin(context, render);
  if (checked === undefined) return write(undefined);
  if ('replay' in checked) return checked.replay;
  try {
    return await write(checked.tag);
  } catch (error) {
    // Another instance answered this key while the write waited for the database (API.md §12): replay that answer.
    if (!(error instanceof AlreadyAnswered)) throw error;
    if (error.entry.requestHash !== checked.tag.requestHash) {
      throw new ApiError('idempotency_key_reused', `Idempotency-Key "${clip(checked.tag.key)}" was already used with another request (a different path or body); use a new key for a new request.`);
    }
    return replayed(render, error.entry, context);
  } finally {
    checked.done();
  }
}

/** A remembered answer as a retry gets it: marked `Idempotent-Replayed: true`. */
function replayed(render: RenderAnswer, entry: IdempotencyEntry, context: RequestContext): HandlerResult {
  const replay = render(entry, context);
  return { ...replay, headers: { ...replay.headers, 'Idempotent-Replayed': 'true' } };
}

/** A hash of method, path (without /v1 or a base path) and body bytes: a retry must send the same. */
export function hashRequest(context: RequestContext): string {
  const hash = createHash('sha256');
  const target = context.request.target;
  const queryAt = target.indexOf('?');
  const path = queryAt === -1 ? target : target.slice(0, queryAt);
  // As the router reads it: /events/%65vt_1 is /events/evt_1, so a retry that encodes the id differently replays.
  hash.update(`${context.request.method} ${decodeSegment(path.slice(context.prefix.length))}\n`);
  if (context.request.body !== null) hash.update(context.request.body);
  return hash.digest('base64url').slice(0, 32);
}

function slot(keyId: string, key: string): string {
  return `${keyId} ${key}`;
}

/**
 * A refused key as the message quotes it: node reads a header's bytes as Latin-1, so a key a client sent in UTF-8
 * (`kéy`) is shown as it was written, not as `kÃ©y`; bytes that are no UTF-8 are shown as node read them.
 */
function quotedKey(key: string): string {
  if (key.length === 0) return 'an empty one';
  const bytes = Buffer.from(key, 'latin1');
  const utf8 = bytes.toString('utf8');
  return `"${clip(Buffer.from(utf8, 'utf8').equals(bytes) ? utf8 : key)}"`;
}
