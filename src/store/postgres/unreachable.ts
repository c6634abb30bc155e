// A failure to reach the database at all, as a sentence an operator can act on rather than `connect ECONNREFUSED`.

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'nothing accepts connections there',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'its name could not be looked up just now',
  EHOSTUNREACH: 'no route to that host',
  ENETUNREACH: 'no route to that network',
  ETIMEDOUT: 'it did not answer',
};

interface ConnectFailure {
  code?: unknown;
  syscall?: unknown;
  address?: unknown;
  port?: unknown;
  hostname?: unknown;
}

/** Why a connection could not be made (refused, an unknown host, no route), in words; undefined for any other error. */
export function unreachableWhy(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, syscall } = error as ConnectFailure;
  if (typeof code !== 'string' || REASONS[code] === undefined || (syscall !== 'connect' && syscall !== 'getaddrinfo')) return undefined;
  return `${REASONS[code]} (${code})`;
}

/**
 * The sentence for a connection that could not be made, naming where it went; undefined for any other error. The
 * address is the host and port the store's URL names (as resolved), never its password.
 */
export function unreachableDatabase(error: unknown): string | undefined {
  const why = unreachableWhy(error);
  if (why === undefined) return undefined;
  const { syscall, address, port, hostname } = error as ConnectFailure;
  const host = String(syscall === 'getaddrinfo' ? hostname : address);
  const where = syscall === 'getaddrinfo' || port === undefined ? host : `${host.includes(':') ? `[${host}]` : host}:${String(port)}`;
  return `the database at ${where} cannot be reached: ${why}. Check the host and port in the store's URL, and that PostgreSQL runs there`;
}
