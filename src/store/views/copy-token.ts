// Copy tokens of the change feed (API.md §9.2): where a paged full copy began, tamper-evident, and the same on any instance and after a restart.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Where a full copy began: the seq of the newest durable write when its first page was read, and when. */
export interface CopyStart {
  began: number;
  /** ms since the epoch, kept to the second. */
  startedMs: number;
}

/** A copy older than this is refused (410): the client starts again from since=0. */
export const COPY_TOKEN_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/**
 * The key of the checksum when the source is given none. The token protects nothing secret: a forged
 * one could only make its own client's copy skip a 410 it needed. The checksum catches tokens that
 * were cut, mistyped or edited, and lets every instance on one database and every restart read it.
 */
export const DEFAULT_COPY_KEY = 'campus-events change-feed copy v1';

/** `1_{began base 36}_{started seconds base 36}_{22 characters of HMAC-SHA-256}`: at most 46 characters of [A-Za-z0-9_-]. */
const TOKEN = /^1_([0-9a-z]{1,11})_([0-9a-z]{1,9})_([A-Za-z0-9_-]{22})$/;

/** The token of a copy that began at `start`. */
export function signCopyToken(start: CopyStart, key: string = DEFAULT_COPY_KEY): string {
  if (!Number.isSafeInteger(start.began) || start.began < 0) throw new RangeError(`a copy begins at a seq of at least 0, got ${start.began}`);
  const body = `1_${start.began.toString(36)}_${Math.floor(start.startedMs / 1000).toString(36)}`;
  return `${body}_${mac(body, key)}`;
}

/** The start a token stands for, or undefined when it is malformed or its checksum is wrong. */
export function readCopyToken(token: string, key: string = DEFAULT_COPY_KEY): CopyStart | undefined {
  const match = TOKEN.exec(token);
  if (match === null) return undefined;
  const body = token.slice(0, token.length - 23);
  const expected = Buffer.from(mac(body, key));
  if (!timingSafeEqual(Buffer.from(match[3]!), expected)) return undefined;
  const began = parseInt(match[1]!, 36);
  const startedMs = parseInt(match[2]!, 36) * 1000;
  // A token signed here always holds a safe integer; anything else was not made by signCopyToken.
  if (!Number.isSafeInteger(began) || !Number.isSafeInteger(startedMs)) return undefined;
  return { began, startedMs };
}

function mac(body: string, key: string): string {
  return createHmac('sha256', key).update(body).digest('base64url').slice(0, 22);
}
