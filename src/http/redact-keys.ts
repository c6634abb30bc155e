// Hides anything shaped like an API key in text bound for a log, so a key a client put in a URL is never written down.

/** `cek_` and the key's characters, any of them possibly percent-encoded (`%63ek_…`, `cek%5F…`), as a URL may carry them. */
const KEY_LIKE = /(?:c|%63)(?:e|%65)(?:k|%6[bB])(?:_|%5[fF])(?:[0-9A-Za-z_-]|%[0-9A-Fa-f]{2})+/g;

/** The value of a `key` query parameter (the name possibly percent-encoded; in a target or a bare query), whatever it holds: a feed key travels there (API.md §9.1). */
const KEY_PARAMETER = /((?:^|[?&;])(?:k|%6[bB])(?:e|%65)(?:y|%79)=)[^&#;]*/g;

/** `text` with every `cek_…` run replaced by `cek_[redacted]`, and the value of every `key=` query parameter by `[redacted]`. */
export function redactKeys(text: string): string {
  if (!text.includes('cek_') && !text.includes('%') && !text.includes('=')) return text;
  return text.replace(KEY_PARAMETER, '$1[redacted]').replace(KEY_LIKE, 'cek_[redacted]');
}

/** True when `text` holds something shaped like an API key (so it must not be echoed or logged). */
export function containsKey(text: string): boolean {
  return text.includes('cek_') && /cek_[0-9A-Za-z_-]{8,}/.test(text);
}
