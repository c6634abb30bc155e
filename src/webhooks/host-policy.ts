// Which hosts webhooks may call (--webhook-hosts): checked on the URL's host when a webhook is saved, and on the address it resolves to at each delivery.
import { isIP } from 'node:net';

/** The parsed `--webhook-hosts` list. */
export interface HostPolicy {
  /** True when a URL's host name (or IP literal) is allowed. */
  allowsHost(host: string): boolean;
  /**
   * True when an allowed host may be reached at `address` (what it resolved to): any address for `*`; else an
   * address listed itself, or one that is not loopback, link-local, unspecified or multicast (so a listed name
   * cannot be pointed at this machine or a cloud metadata service), or loopback for a listed `localhost`.
   */
  allowsAddress(host: string, address: string): boolean;
  /** The list as given, for messages. */
  readonly description: string;
}

/** Parses a list of host names, IP addresses, `*.domain` suffixes, or `*` for any; empty allows none. */
export function hostPolicy(entries: readonly string[]): HostPolicy {
  const list = entries.map((entry) => normalHost(entry.trim())).filter((entry) => entry !== '');
  const any = list.includes('*');
  const allowsHost = (host: string): boolean => {
    const name = normalHost(host);
    // A suffix matches a name of its own: not one with an empty label (".signage.campus.edu", "a..signage…").
    const named = (suffix: string): boolean => name.endsWith(suffix) && name.length > suffix.length && !name.slice(0, -suffix.length).split('.').includes('');
    return any || list.some((entry) => entry === name || (entry.startsWith('*.') && named(entry.slice(1))));
  };
  return {
    description: list.length === 0 ? 'none' : list.join(', '),
    allowsHost,
    allowsAddress(host, address) {
      if (any || list.includes(normalHost(address))) return true;
      if (!allowsHost(host)) return false;
      if (isLoopback(address)) return normalHost(host) === 'localhost';
      return !isInternal(address);
    },
  };
}

/** Lower case, without the brackets of an IPv6 literal or a trailing dot. */
function normalHost(host: string): string {
  return host.toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
}

function isLoopback(address: string): boolean {
  const v4 = mappedV4(address);
  if (v4 !== undefined) return v4.startsWith('127.');
  return address === '::1';
}

/** Link-local (169.254/16 holds cloud metadata services, fe80::/10), unspecified or multicast. */
function isInternal(address: string): boolean {
  const v4 = mappedV4(address);
  if (v4 !== undefined) {
    const first = Number(v4.split('.')[0]);
    return v4.startsWith('169.254.') || v4.startsWith('0.') || (first >= 224 && first <= 255);
  }
  const lower = address.toLowerCase();
  return lower === '::' || /^fe[89ab]/.test(lower) || lower.startsWith('ff');
}

/** The IPv4 address of a v4 or v4-mapped v6 address; undefined for other v6 ones. */
function mappedV4(address: string): string | undefined {
  if (isIP(address) === 4) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1];
}
