// Hides anything shaped like an API key in text bound for a log, so a key a client put in a URL is never written down.

const KEY_LIKE = /cek_[0-9A-Za-z_-]+/g;
const PERCENT = /%([0-9A-Fa-f]{2})/g;
/** Rounds of percent-decoding before giving up: a key encoded three times over is still found. */
const MAX_DECODINGS = 4;

/**
 * `text` with every `cek_…` run replaced by `cek_[redacted]`, also when the key is
 * percent-encoded (`cek%5F…`, `%63ek_…`, or encoded again): such a text is logged decoded,
 * with the key redacted (issue 12.6). A text with no key comes back unchanged.
 */
export function redactKeys(text: string): string {
  if (!text.includes('%')) return text.includes('cek_') ? text.replace(KEY_LIKE, 'cek_[redacted]') : text;
  let decoded = text;
  for (let round = 0; round < MAX_DECODINGS && decoded.includes('%'); round++) {
    const next = decoded.replace(PERCENT, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (next === decoded) break;
    decoded = next;
  }
  return decoded.includes('cek_') ? decoded.replace(KEY_LIKE, 'cek_[redacted]') : text;
}

/** True when `text` holds something shaped like an API key (so it must not be echoed or logged). */
export function containsKey(text: string): boolean {
  return text.includes('cek_') && /cek_[0-9A-Za-z_-]{8,}/.test(text);
}
