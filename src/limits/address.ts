// Reduces a client's socket address to the key it is limited by: IPv4 as is, IPv6 by its /64.

const HEXTET = /^[0-9a-f]{1,4}$/;
const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/**
 * The key an address is throttled under. IPv4 comes back unchanged, an IPv4-mapped IPv6
 * address (`::ffff:1.2.3.4`) as its IPv4, and any other IPv6 address as its /64 prefix in
 * a normal form (`2001:db8:0:1::/64`), since one subscriber usually holds a whole /64.
 * Input that is not an address comes back unchanged.
 */
export function addressKey(remoteAddress: string): string {
  if (!remoteAddress.includes(":")) return remoteAddress;
  const hextets = parseIpv6(remoteAddress);
  if (hextets === undefined) return remoteAddress;
  const [h0, h1, h2, h3, h4, h5, h6 = 0, h7 = 0] = hextets;
  if (h0 === 0 && h1 === 0 && h2 === 0 && h3 === 0 && h4 === 0 && h5 === 0xffff) {
    return [h6 >> 8, h6 & 0xff, h7 >> 8, h7 & 0xff].join(".");
  }
  return `${hextets.slice(0, 4).map((h) => h.toString(16)).join(":")}::/64`;
}

/** The eight 16-bit groups of an IPv6 address (zone id ignored), or undefined if it is not one. */
function parseIpv6(text: string): number[] | undefined {
  const address = text.toLowerCase().replace(/%.*$/, "");
  const halves = address.split("::");
  if (halves.length > 2) return undefined;
  const compressed = halves.length === 2;
  const head = splitGroups(halves[0] ?? "", !compressed);
  const tail = compressed ? splitGroups(halves[1] ?? "", true) : [];
  if (head === undefined || tail === undefined) return undefined;
  if (!compressed) return head.length === 8 ? head : undefined;
  const missing = 8 - head.length - tail.length;
  if (missing < 1) return undefined;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}

/** Parses colon-separated hextets; a dotted IPv4 may end the part if it ends the address. */
function splitGroups(part: string, endsAddress: boolean): number[] | undefined {
  if (part === "") return [];
  const groups = part.split(":");
  const result: number[] = [];
  for (const [index, group] of groups.entries()) {
    if (HEXTET.test(group)) {
      result.push(parseInt(group, 16));
      continue;
    }
    const octets = endsAddress && index === groups.length - 1 ? parseIpv4(group) : undefined;
    if (octets === undefined) return undefined;
    const [a = 0, b = 0, c = 0, d = 0] = octets;
    result.push((a << 8) | b, (c << 8) | d);
  }
  return result;
}

function parseIpv4(text: string): number[] | undefined {
  const match = IPV4.exec(text);
  if (match === null) return undefined;
  const octets = match.slice(1).map(Number);
  return octets.every((octet) => octet <= 255) ? octets : undefined;
}

/**
 * The wider prefix an IPv6 address is also throttled under once many of its /64s misbehave:
 * its /48 (`2001:db8:1::/48`), the usual assignment of one site. Undefined for IPv4 (also
 * IPv4-mapped) and for text that is not an address.
 */
export function widerPrefixKey(remoteAddress: string): string | undefined {
  if (!remoteAddress.includes(":")) return undefined;
  const hextets = parseIpv6(remoteAddress);
  if (hextets === undefined) return undefined;
  const [h0, h1, h2, h3, h4, h5] = hextets;
  if (h0 === 0 && h1 === 0 && h2 === 0 && h3 === 0 && h4 === 0 && h5 === 0xffff) return undefined;
  return `${hextets.slice(0, 3).map((h) => h.toString(16)).join(":")}::/48`;
}
