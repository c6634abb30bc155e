// Hides anything shaped like an API key in text bound for a log, so a key a client put in a URL is never written down.

const KEY_LIKE = /cek_[0-9A-Za-z_-]+/g;

/** `text` with every `cek_…` run replaced by `cek_[redacted]`. */
export function redactKeys(text: string): string {
  return text.includes('cek_') ? text.replace(KEY_LIKE, 'cek_[redacted]') : text;
}

/** True when `text` holds something shaped like an API key (so it must not be echoed or logged). */
export function containsKey(text: string): boolean {
  return text.includes('cek_') && /cek_[0-9A-Za-z_-]{8,}/.test(text);
}
