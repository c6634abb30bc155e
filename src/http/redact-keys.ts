// Hides anything shaped like an API key in text bound for a log, so a key a client put in a URL is never written down.

const KEY_LIKE = /cek_[0-9A-Za-z_-]+/g;
const PERCENT = /%([0-9A-Fa-f]{2})/g;
/** Rounds of percent-decoding before giving up: a key encoded three times over is still found. */
const MAX_DECODINGS = 4;

/** The value of a `key` query parameter (in a target or a bare query), whatever it holds: a feed key travels there (API.md §9.1). */
const KEY_PARAMETER = /((?:^|[?&;])key=)[^&#;]*/g;
const HAS_KEY_PARAMETER = /(?:^|[?&;])key=/;

/** A request id as the log writes it: a key pasted into X-Request-Id by mistake is echoed to its sender, never logged. */
export function loggedRequestId(id: string): string {
  // The id's alphabet has no `%`, so a key in it shows as `cek_` itself; most ids are the server's own, without.
  return id.includes('cek_') ? redactKeys(id) : id;
}

/**
 * `text` with every `cek_…` run replaced by `cek_[redacted]` and the value of every `key=` query
 * parameter by `[redacted]`, also when percent-encoded (`cek%5F…`, `%63ek_…`, `%6Bey=`, or encoded
 * again): such a text is logged decoded, with the secret redacted. A text with neither comes back unchanged.
 */
export function redactKeys(text: string): string {
  let decoded = text;
  for (let round = 0; round < MAX_DECODINGS && decoded.includes('%'); round++) {
    const next = decoded.replace(PERCENT, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (next === decoded) break;
    decoded = next;
  }
  if (!decoded.includes('cek_') && !HAS_KEY_PARAMETER.test(decoded)) return text;
  return decoded.replace(KEY_PARAMETER, '$1[redacted]').replace(KEY_LIKE, 'cek_[redacted]');
}

