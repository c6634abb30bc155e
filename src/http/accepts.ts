// Content negotiation on Accept (RFC 9110 §12.5.1): which of the media types a route offers the client prefers.

/**
 * True when `accept` prefers `wanted` to the route's usual JSON: `wanted` is listed (case aside) with a
 * quality above 0, above that of `application/json` when that is listed too, and at least that of a
 * wildcard (the named type is the more specific). `Accept: application/json, text/csv` stays JSON.
 */
export function prefers(accept: string | undefined, wanted: string): boolean {
  if (accept === undefined) return false;
  let wantedQuality = 0;
  let jsonQuality = 0;
  let wildcardQuality = 0;
  for (const part of accept.split(',')) {
    const [range = '', ...parameters] = part.split(';');
    const type = range.trim().toLowerCase();
    const q = quality(parameters);
    if (type === wanted) wantedQuality = Math.max(wantedQuality, q);
    else if (type === 'application/json') jsonQuality = Math.max(jsonQuality, q);
    else if (type === 'application/*' || type === '*/*') wildcardQuality = Math.max(wildcardQuality, q);
  }
  return wantedQuality > 0 && wantedQuality > jsonQuality && wantedQuality >= wildcardQuality;
}

function quality(parameters: readonly string[]): number {
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=');
    if (name.trim().toLowerCase() !== 'q') continue;
    const q = Number(value.trim());
    return Number.isFinite(q) && q >= 0 && q <= 1 ? q : 1;
  }
  return 1;
}
