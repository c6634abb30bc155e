// A failure to reach the database at all, as a sentence an operator can act on rather than `connect ECONNREFUSED`.

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'nothing accepts connections there',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'its name could not be looked up just now',
  EHOSTUNREACH: 'no route to that host',
  ENETUNREACH: 'no route to that network',
  ETIMEDOUT: 'it did not answer',
};

/**
 * The sentence for a connection that could not be made (refused, an unknown host, no route), naming where it went;
 * undefined for any other error. The address is the host and port the store's URL names, never its password.
 */
export function unreachableDatabase(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, syscall, address, port, hostname } = error as { code?: unknown; syscall?: unknown; address?: unknown; port?: unknown; hostname?: unknown };
  if (typeof code !== 'string' || REASONS[code] === undefined || (syscall !== 'connect' && syscall !== 'getaddrinfo')) return undefined;
  const where = syscall === 'getaddrinfo' ? String(hostname) : port === undefined ? String(address) : `${String(address)}:${String(port)}`;
  return `the database at ${where} cannot be reached: ${REASONS[code]} (${code}). Check the host and port in the store's URL, and that PostgreSQL runs there`;
}
