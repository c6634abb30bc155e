// The body of a list page and its ETag, from each event's served bytes measured once (not the page read again per request).
import { crc32, crc32Byte } from '../lib/crc32.js';
import { crc32Combine } from '../lib/crc32-combine.js';
import { viewBytes, viewCrc } from '../store/views/served-event.js';
import type { StoredEvent } from './event.js';

const HEAD = '{"events":[';
const HEAD_CRC = crc32(HEAD);
const COMMA = 0x2c;

/** A page: its JSON, its strong ETag and its length in UTF-8 bytes (the Content-Length). */
export interface ListPage {
  body: string;
  etag: string;
  bytes: number;
}

/**
 * `{"events":[…],"total":N,"page":P}` of `events`, with the tag `"l<crc>-<length>"`: the CRC-32 of the page's
 * UTF-8 bytes and its length in characters, both base 36. The CRC is folded from each event's own (kept with
 * the event), so a request costs one polynomial product per event rather than a pass over the page's bytes.
 */
export function listPage(events: readonly StoredEvent[], total: number, page: number): ListPage {
  let body = HEAD;
  let crc = HEAD_CRC;
  let bytes = HEAD.length;
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    if (i > 0) {
      body += ',';
      crc = crc32Byte(crc, COMMA);
      bytes++;
    }
    const size = viewBytes(event);
    body += event.json;
    crc = crc32Combine(crc, viewCrc(event), size);
    bytes += size;
  }
  const tail = `],"total":${total},"page":${page}}`;
  body += tail;
  crc = crc32(tail, crc);
  bytes += tail.length;
  return { body, etag: `"l${crc.toString(36)}-${body.length.toString(36)}"`, bytes };
}
