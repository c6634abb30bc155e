// The Idempotency-Key of a create (API.md §9.3): the same for a retry of the same request, so a create whose answer
// was lost on the way (a dropped link, a server stopped after its write) is answered again rather than made twice.
// A request changed since (the person fixed a field) gets a new key: the old one with another body is refused.

export interface RetryKey {
  /** The header for a request to `path` with `body`: the last key again while neither changed and none succeeded. */
  header(path: string, body: unknown): Record<string, string>;
  /** The last request succeeded: the same one made again is a new request (register someone cancelled since). */
  succeeded(): void;
}

export function retryKey(): RetryKey {
  let last: { request: string; key: string } | undefined;
  return {
    header(path, body) {
      const request = `${path}\n${JSON.stringify(body)}`;
      if (last?.request !== request) last = { request, key: newKey() };
      return { 'Idempotency-Key': last.key };
    },
    succeeded() {
      last = undefined;
    },
  };
}

/** 128 random bits in hex (crypto.randomUUID needs a secure context; a campus may serve the console over http). */
function newKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}
