// The messages of API.md §13, derived from durable log lines: what happened to an event or a registration, in write order.
import type { CommittedChange } from '../store/views/change-history.js';
import type { Registration } from '../store/views/roster.js';
import { registrationJson } from '../registrations/registration-view.js';
import { isHidden, type StoredEvent } from '../events/event.js';
import { crc32 } from '../lib/crc32.js';

/** Every message type a webhook may ask for (API.md §13), in the contract's order. */
export const MESSAGE_TYPES = [
  'event.created',
  'event.updated',
  'event.deleted',
  'registration.created',
  'registration.cancelled',
  'registration.promoted',
  'registration.checked_in',
] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

/**
 * One message: where it sits in the log, and its body as sent. The body is built when sent: a held message keeps
 * only its data, which for an event is the very string the store serves (shared, not copied).
 */
export class WebhookMessage {
  /** The CRC-32 of the body (-1 until asked for): part of the message's id. */
  #crc = -1;
  /** The body as sent while the message is in the cache of recent bodies. */
  #sent: SentBody | undefined;

  constructor(
    /** The seq of the line it comes from, and its place among that line's messages: together its position. */
    readonly seq: number,
    readonly index: number,
    readonly type: MessageType,
    readonly timeMs: number,
    /** The JSON of `data`. */
    readonly data: string,
  ) {}

  /**
   * The `webhook-id` in the log named `logId`: the same on every attempt, and after a restart (it is made from the
   * position and the body, both the same for one message). The body's CRC-32 tells apart two messages at one position:
   * a folder restored from an older backup gives the lost writes' seqs again, and a receiver that drops repeats by id
   * would have dropped the new ones.
   */
  idIn(logId: string): string {
    // Of the body as sent (built once and shared with the send), not built again here.
    if (this.#crc === -1) this.#crc = crc32(this.sentBody().text);
    return `msg_${logId}_${this.seq}_${this.index}_${this.#crc.toString(36)}`;
  }

  /** `{type, timestamp, data}` as JSON. */
  get body(): string {
    return `{"type":"${this.type}","timestamp":"${new Date(this.timeMs).toISOString()}","data":${this.data}}`;
  }

  /** The body and its length in UTF-8 bytes, made once for every webhook sending it while it is among the last few messages sent. */
  sentBody(): SentBody {
    if (this.#sent !== undefined) return this.#sent;
    const text = this.body;
    return (this.#sent = cacheBody(this, { text, length: Buffer.byteLength(text) }));
  }

  /** Drops the cached body (the cache has moved on). */
  forgetBody(): void {
    this.#sent = undefined;
  }
}

/** A message's body as sent: its text, and its length in UTF-8 bytes (Content-Length). */
export interface SentBody {
  text: string;
  length: number;
}

/**
 * Messages whose body is kept, in a ring: webhooks keeping up send the same message close together and share it; one
 * far behind (paused, its receiver down) makes it again rather than have every held message keep its body (500,000
 * held messages would keep hundreds of MB).
 */
const BODY_CACHE_SIZE = 1024;
const cachedBodies: (WebhookMessage | undefined)[] = [];
let nextCacheSlot = 0;

function cacheBody(message: WebhookMessage, body: SentBody): SentBody {
  cachedBodies[nextCacheSlot]?.forgetBody();
  cachedBodies[nextCacheSlot] = message;
  nextCacheSlot = (nextCacheSlot + 1) % BODY_CACHE_SIZE;
  return body;
}

/** A position in the message stream: after the message at (seq, index). */
export interface Cursor {
  seq: number;
  index: number;
}

/** True when the message comes after the cursor. */
export function isAfter(message: { seq: number; index: number }, cursor: Cursor): boolean {
  return message.seq > cursor.seq || (message.seq === cursor.seq && message.index > cursor.index);
}

/**
 * The messages of one durable line, in a fixed order (so a line read back after a restart gives the same ids):
 * the registration's own message first, then those it confirmed from the waitlist, then the event's.
 */
export function messagesOf(change: CommittedChange): WebhookMessage[] {
  const { record, before, after } = change;
  // Webhooks carry the public view (API.md §14): a draft or pending event is nobody else's; making one public is its
  // creation, taking one out of view its deletion, and its registrations' changes meanwhile no message.
  const shownBefore = isShown(before);
  if (record.op !== 'put' && record.op !== 'del' && before !== undefined && !shownBefore) return [];
  const parts: { type: MessageType; timeMs: number; data: string }[] = [];
  const registrationPart = (type: MessageType, registration: Registration, timeMs: number): void => {
    parts.push({ type, timeMs, data: `{"event_id":${JSON.stringify(registration.eventId)},"registration":${registrationJson(registration)}}` });
  };
  const promotions = (ids: readonly string[] | undefined, timeMs: number): void => {
    for (const id of ids ?? []) {
      const registration = change.touched.find((touched) => touched.id === id);
      if (registration !== undefined) registrationPart('registration.promoted', { ...registration, status: 'confirmed' }, timeMs);
    }
  };
  switch (record.op) {
    case 'put':
      if (!isShown(record.stored)) {
        if (shownBefore) parts.push({ type: 'event.deleted', timeMs: record.stored.modifiedMs, data: `{"id":${JSON.stringify(record.stored.id)}}` });
        break;
      }
      parts.push({ type: shownBefore ? 'event.updated' : 'event.created', timeMs: record.stored.modifiedMs, data: restored(before, record.stored) ? `${record.stored.json.slice(0, -1)},"status":"published"}` : record.stored.json });
      promotions(record.promoted, record.stored.modifiedMs);
      break;
    case 'del':
      // A draft's deletion is nobody else's (an unknown event's, a deletion as ever).
      // The line's own time (when it has one), so a message read back after a restart is the one first sent, byte for byte.
      if (before === undefined || shownBefore) parts.push({ type: 'event.deleted', timeMs: record.atMs ?? change.atMs, data: `{"id":${JSON.stringify(record.id)}}` });
      break;
    case 'reg':
      registrationPart('registration.created', record.registration, Date.parse(record.registration.createdAt));
      break;
    case 'cancel': {
      const cancelled = change.touched.find((registration) => registration.id === record.id);
      if (cancelled !== undefined) registrationPart('registration.cancelled', cancelled, record.atMs);
      promotions(record.promoted, record.atMs);
      break;
    }
    case 'checkin': {
      const checkedIn = change.touched.find((registration) => registration.id === record.id);
      if (checkedIn !== undefined) registrationPart('registration.checked_in', { ...checkedIn, checkedInAt: record.at }, Date.parse(record.at));
      break;
    }
    case 'regstate':
      // Written only by compaction: a registration's state, not something that happened.
      break;
  }
  if (record.op !== 'put' && record.op !== 'del' && after !== undefined && after !== null) {
    parts.push({ type: 'event.updated', timeMs: after.modifiedMs, data: after.json });
  }
  return parts.map((part, index) => new WebhookMessage(record.seq, index, part.type, part.timeMs, part.data));
}

/**
 * Whether a write restored a cancelled event: its event.updated carries the new status (API.md §14), `published`,
 * which a published event's view leaves out (it comes last there, as a status always does).
 */
function restored(before: StoredEvent | null | undefined, after: StoredEvent): boolean {
  return before?.status === 'cancelled' && after.status === undefined;
}

/** Whether an event is in the public view: live, and published or cancelled. */
function isShown(event: StoredEvent | null | undefined): boolean {
  return event !== undefined && event !== null && !isHidden(event);
}
