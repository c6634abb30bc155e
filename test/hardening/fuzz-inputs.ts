// Seeded generators of hostile requests for the fuzz test: a small PRNG (mulberry32), JSON bodies built and mutated as
// text and bytes, query strings, header sets, paths and raw request bytes. Same seed and case number, same request.
import { mulberry32 } from '../helpers/random.js';

/** The seed of case `index` of a run seeded `seed`, so any one case can be made again on its own. */
export function caseSeed(seed: number, index: number): number {
  let h = (seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Draws from a seeded PRNG. */
export class Random {
  readonly #next: () => number;
  constructor(seed: number) {
    this.#next = mulberry32(seed);
  }
  float(): number {
    return this.#next();
  }
  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.#next() * n);
  }
  chance(p: number): boolean {
    return this.#next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  /** Bytes for ids and keys: deterministic, so a seed replays the same ids. */
  bytes(size: number): Uint8Array {
    const out = new Uint8Array(size);
    for (let i = 0; i < size; i++) out[i] = this.int(256);
    return out;
  }
}

/** A request the fuzzer sends: through an HTTP client, or as raw bytes when `raw` is set. */
export interface FuzzRequest {
  kind: 'body' | 'query' | 'headers' | 'path' | 'raw';
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  raw?: Buffer;
  /** The worker's own event this request may change, for the model of what is stored. */
  targetId?: string;
}

/** What a generator may use: the keys of each role and the ids of events this worker owns. */
export interface FuzzContext {
  keys: { admin: string; organizer: string; other: string; reader: string };
  ownIds: readonly string[];
}

const CATEGORIES = ['academic', 'social', 'athletic', 'cultural'];
const WORDS = ['Intro', 'to', 'Distributed', 'Systems', 'Hall', 'A', 'Quiz', 'Night', '  padded  ', 'é', '中文', '😀', 'Ω', 'x'];

// ---- JSON text pieces -------------------------------------------------------------------------

function text(r: Random, maxWords = 6): string {
  return Array.from({ length: 1 + r.int(maxWords) }, () => r.pick(WORDS)).join(' ');
}

/** A JSON string literal (as text), sometimes with escapes JSON allows but the schema must refuse. */
export function jsonString(r: Random): string {
  switch (r.int(14)) {
    case 0: return '""';
    case 1: return `"${' '.repeat(1 + r.int(4))}"`;
    case 2: return `"${'a'.repeat(r.pick([199, 200, 201, 4999, 5000, 5001, 6000]))}"`;
    case 3: return `"${text(r)}\\u${r.pick(['0000', '0001', '001f', '007f', '0085', '009f', '2028', 'feff'])}${text(r)}"`;
    case 4: return `"${text(r)}\\u${r.pick(['d800', 'dbff', 'dc00', 'dfff'])}"`;
    case 5: return `"\\udc00\\ud800${text(r)}"`;
    case 6: return `"\\ud83d\\ude00 ${text(r)}"`;
    case 7: return `"${text(r)}\\n\\t\\r${text(r)}"`;
    case 8: return `"\\"\\\\\\/${text(r)}"`;
    case 9: return `"cek_${'A'.repeat(39)}"`;
    case 10: return JSON.stringify(r.pick(['2026-09-01T17:00:00Z', 'ada@campus.edu', 'academic', '120', 'null', 'true', 'evt_0000000000000000000000']));
    default: return JSON.stringify(text(r));
  }
}

/** A JSON number token, valid or not (`+1`, `.5`, `NaN` are not JSON). */
export function jsonNumber(r: Random): string {
  return r.pick(['0', '-0', '1', '2', '120', '100000', '100001', '1e5', '1E5', '1.0', '1.5', '-1', '9007199254740991', '9007199254740993', '-9007199254740993', '1e308', '1e400', '-1e400', '0.1e1', '1e-7', '1e-400', '100000.00000000001', '00', '+1', '.5', 'NaN', 'Infinity', '0x10', '1_000']);
}

/** Any JSON value as text, at most `depth` levels deep. */
export function jsonValue(r: Random, depth = 3): string {
  const choice = r.int(depth > 0 ? 9 : 6);
  switch (choice) {
    case 0: return 'null';
    case 1: return r.pick(['true', 'false']);
    case 2: case 3: return jsonNumber(r);
    case 4: case 5: return jsonString(r);
    case 6: case 7: return `{${Array.from({ length: r.int(4) }, () => `${jsonString(r)}:${jsonValue(r, depth - 1)}`).join(',')}}`;
    default: return `[${Array.from({ length: r.int(4) }, () => jsonValue(r, depth - 1)).join(',')}]`;
  }
}

function dateTime(r: Random): string {
  return JSON.stringify(r.pick([
    '2026-09-01T17:00:00Z', '2026-09-01T19:00:00.000Z', '2026-09-01T17:00:00+02:00', '2026-09-01T17:00:00.123456789012Z', '2026-09-01t17:00:00z',
    '2026-09-01T17:00:00', '2026-09-01 17:00:00Z', '2026-09-01T24:00:00Z', '2026-09-01T23:59:60Z', '2026-02-30T10:00:00Z', '2026-13-01T10:00:00Z',
    '1969-12-31T23:59:59Z', '1970-01-01T00:00:00+01:00', '9999-12-31T23:59:59.999Z', '9999-12-31T23:00:00-01:00', '10000-01-01T00:00:00Z',
    '2026-09-01T17:00:00+24:00', '2026-09-01T17:00:00-00:00', '2026-09-01', '', 'yesterday', '2026-09-01T17:00:00.Z',
  ]));
}

function organizer(r: Random): string {
  return r.pick([
    '{"name":"Ada Admin","email":"ada@campus.edu"}', '{"name":"Olivia Organizer","email":"OLIVIA@campus.edu"}', '{"name":"Oscar Other","email":"oscar@campus.edu"}',
    '{"name":"Olivia Organizer","email":"olivia@campus.edu"}', `{"name":${jsonString(r)},"email":"x@y.co"}`, '{"name":"A","email":"no-at-sign"}', '{"name":"A","email":"a@@b.co"}',
    '{"name":"A","email":"a b@c.co"}', `{"name":"A","email":"${'a'.repeat(250)}@b.co"}`, '{"name":"A"}', '{"email":"a@b.co"}', '{"name":"A","email":"a@b.co","role":"admin"}',
    '{}', 'null', '[]', '"Ada"',
  ]);
}

/** A value for `field` that is often valid for it, so validation is reached past the first check. */
function fieldValue(r: Random, field: string): string {
  if (r.chance(0.25)) return jsonValue(r);
  switch (field) {
    case 'title': case 'location': return r.chance(0.6) ? JSON.stringify(text(r)) : jsonString(r);
    case 'description': return r.chance(0.5) ? JSON.stringify(`${text(r)}\n${text(r)}`) : jsonString(r);
    case 'category': return JSON.stringify(r.pick([...CATEGORIES, 'Academic', ' social', 'sports', '']));
    case 'start_time': case 'end_time': return dateTime(r);
    case 'capacity': return jsonNumber(r);
    case 'organizer': return organizer(r);
    case 'registered_count': return r.pick(['0', '1', '-1', '0.0', '"0"', 'null', '9007199254740993']);
    case 'id': return r.pick(['"evt_0000000000000000000000"', '""', 'null', jsonString(r)]);
    case 'created_at': return dateTime(r);
    default: return jsonValue(r);
  }
}

const EVENT_FIELDS = ['title', 'description', 'category', 'location', 'start_time', 'end_time', 'capacity'];
const EXTRA_FIELDS = ['id', 'registered_count', 'created_at', 'organizer', '__proto__', 'constructor', 'prototype', 'role', 'Title', 'title ', '', 'organizer_email', 'extra'];

/** A JSON object body: a valid event, then fields replaced, dropped, duplicated or added. */
export function eventObjectText(r: Random, partial: boolean): string {
  const entries: [string, string][] = [
    ['title', '"Intro to Distributed Systems"'], ['description', '"Guest lecture"'], ['category', '"academic"'], ['location', '"Hall A"'],
    ['start_time', '"2026-09-01T17:00:00Z"'], ['end_time', '"2026-09-01T19:00:00Z"'], ['capacity', '120'],
  ].filter(() => !partial || r.chance(0.3)) as [string, string][];
  const out: [string, string][] = [];
  for (const [name, value] of entries) {
    if (r.chance(0.06)) continue;
    if (r.chance(0.05)) out.push([name, fieldValue(r, name)]);
    out.push([name, r.chance(0.15) ? fieldValue(r, name) : value]);
    if (r.chance(0.04)) out.push([name, fieldValue(r, name)]);
  }
  for (let extra = r.chance(0.2) ? 1 + r.int(3) : 0; extra > 0; extra--) {
    const name = r.pick([...EXTRA_FIELDS, ...EVENT_FIELDS]);
    out.splice(r.int(out.length + 1), 0, [name, fieldValue(r, name)]);
  }
  const space = r.chance(0.1) ? ' \n\t ' : '';
  return `${space}{${out.map(([name, value]) => `${JSON.stringify(name)}${space}:${value}`).join(',')}}${space}`;
}

/** Byte-level damage to a body: truncation, a flipped, dropped or inserted byte, invalid UTF-8, a BOM. */
export function mutateBytes(r: Random, body: Buffer): Buffer {
  const at = r.int(body.length + 1);
  switch (r.int(9)) {
    case 0: return body.subarray(0, at);
    case 1: return Buffer.concat([body.subarray(0, at), body.subarray(at + 1)]);
    case 2: return Buffer.concat([body.subarray(0, at), Buffer.from([r.int(256)]), body.subarray(at)]);
    case 3: return Buffer.concat([body.subarray(0, at), Buffer.from(r.pick(['{', '}', '[', ']', '"', ',', ':', '\\', '\0'])), body.subarray(at)]);
    case 4: return Buffer.concat([body.subarray(0, at), Buffer.from(r.pick([[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80], [0x80]])), body.subarray(at)]);
    case 5: return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]);
    case 6: return Buffer.concat([body, Buffer.from(r.pick(['garbage', '{}', ',', '\0', '\n\n']))]);
    case 7: return Buffer.from(`[${body.toString('latin1')}]`, 'latin1');
    default: {
      const copy = Buffer.from(body);
      const index = r.int(copy.length);
      if (copy.length > 0) copy[index] = copy[index]! ^ (1 << r.int(8));
      return copy;
    }
  }
}

// ---- requests ---------------------------------------------------------------------------------

function key(r: Random, context: FuzzContext): string | undefined {
  const roll = r.int(20);
  if (roll < 5) return context.keys.organizer;
  if (roll < 9) return context.keys.admin;
  if (roll < 12) return context.keys.other;
  if (roll < 15) return context.keys.reader;
  if (roll < 17) return undefined;
  return r.pick(['cek_wrong', `cek_${'A'.repeat(39)}`, `${context.keys.admin.slice(0, -1)}x`, '', ' ', context.keys.admin.toLowerCase()]);
}

function authorization(r: Random, context: FuzzContext): Record<string, string> {
  const secret = key(r, context);
  if (secret === undefined) return {};
  const scheme = r.chance(0.9) ? 'Bearer' : r.pick(['bearer', 'BEARER', 'Basic', 'Token', '', 'Bearer ']);
  return { authorization: `${scheme} ${secret}` };
}

function contentType(r: Random): Record<string, string> {
  if (r.chance(0.85)) return { 'content-type': 'application/json' };
  const value = r.pick([undefined, 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json;charset="UTF-8"', 'application/json; charset=latin1', 'text/plain', 'application/x-www-form-urlencoded', 'application/jsonx', '', ';', 'application/json; charset']);
  return value === undefined ? {} : { 'content-type': value };
}

function ownOrUnknownId(r: Random, context: FuzzContext): { id: string; own: boolean } {
  if (context.ownIds.length > 0 && r.chance(0.8)) return { id: r.pick(context.ownIds), own: true };
  return { id: r.pick(['evt_0000000000000000000000', 'evt_', 'evt_x', '__proto__', 'constructor', '%00', 'evt_' + 'z'.repeat(300)]), own: false };
}

function prefix(r: Random): string {
  return r.chance(0.2) ? '/v1' : '';
}

/** POST, PUT or DELETE with a fuzzed JSON body. */
export function bodyRequest(r: Random, context: FuzzContext): FuzzRequest {
  let body: Buffer;
  const roll = r.int(100);
  const method = roll < 55 ? 'POST' : roll < 95 ? 'PUT' : 'DELETE';
  if (r.chance(0.02)) body = Buffer.from(`{"title":${'['.repeat(1 + r.int(30_000))}`);
  else if (r.chance(0.01)) body = Buffer.from(`{"description":"${'d'.repeat(64 * 1024 + r.int(100))}"}`);
  else if (r.chance(0.05)) body = Buffer.from(jsonValue(r, 4));
  else body = Buffer.from(eventObjectText(r, method === 'PUT' && r.chance(0.7)));
  if (r.chance(0.12)) body = mutateBytes(r, body);
  const headers = { ...authorization(r, context), ...contentType(r) };
  if (r.chance(0.1)) headers['if-match'] = r.pick(['*', '"1"', '"999"', 'W/"1"', '', '"1", "2"']);
  if (method === 'POST') return { kind: 'body', method, path: `${prefix(r)}/events`, headers, body };
  const target = ownOrUnknownId(r, context);
  return { kind: 'body', method, path: `${prefix(r)}/events/${target.id}`, headers, body, ...(target.own ? { targetId: target.id } : {}) };
}

function percentJunk(r: Random): string {
  return r.pick(['%zz', '%E0%A4%A', '%00', '%FF', '%C0%AF', '%ED%A0%80', '%F0%9F%98%80', '%2F', '%2e%2e', '%25', '%', '+', '%20', '\u00e9']);
}

function queryValue(r: Random, name: string): string {
  if (r.chance(0.3)) return `${r.pick(['', 'x', '-1', '0', '1e2', '99999999999999999999', '9007199254740993', 'null', '[]'])}${r.chance(0.2) ? percentJunk(r) : ''}`;
  switch (name) {
    case 'category': return r.pick([...CATEGORIES, 'Academic', 'academic%00', 'sports', 'academic,social']);
    case 'start_date': case 'end_date': return r.pick(['2026-09-01', '2026-02-29', '2024-02-29', '1970-01-01', '1969-12-31', '9999-12-31', '0000-01-01', '2026-13-01', '2026-1-1', '2026-09-01T00:00:00Z', '20260901']);
    case 'limit': return r.pick(['1', '50', '100', '101', '0', '01', '1.0', '%205', '%35']);
    case 'page': return r.pick(['1', '2', '9007199254740991', '9007199254740992', '0', '-1', '1e3']);
    default: return percentJunk(r);
  }
}

/** GET or HEAD /events with a fuzzed query string. */
export function queryRequest(r: Random, context: FuzzContext): FuzzRequest {
  const names = ['category', 'start_date', 'end_date', 'limit', 'page'];
  const parts: string[] = [];
  for (let n = r.int(5); n >= 0; n--) {
    const name = r.chance(0.85) ? r.pick(names) : r.pick(['', '__proto__', 'constructor', 'Limit', 'category[]', '%6cimit', 'sort', 'q', percentJunk(r)]);
    parts.push(r.chance(0.05) ? name : `${name}=${queryValue(r, name)}`);
  }
  const separator = r.chance(0.95) ? '&' : r.pick([';', '&&', '&=&']);
  const query = parts.join(separator);
  return { kind: 'query', method: r.chance(0.9) ? 'GET' : 'HEAD', path: `${prefix(r)}/events?${query}`, headers: { ...authorization(r, context) } };
}

function headerValue(r: Random): string {
  const length = r.chance(0.05) ? 2000 : r.int(60);
  let out = '';
  for (let i = 0; i < length; i++) {
    const roll = r.int(20);
    out += String.fromCharCode(roll === 0 ? 9 : roll === 1 ? 0x80 + r.int(128) : 0x20 + r.int(95));
  }
  return out.trim();
}

/** Any method on any path with a fuzzed set of headers. */
export function headersRequest(r: Random, context: FuzzContext): FuzzRequest {
  const headers: Record<string, string> = { ...authorization(r, context) };
  const options: [string, () => string][] = [
    ['if-match', () => r.pick(['*', '"1"', 'W/"1"', '', ',,,', headerValue(r)])],
    ['if-none-match', () => r.pick(['*', '"1"', 'W/"1"', 'W/', ',,,', headerValue(r)])],
    ['x-request-id', () => r.pick(['ok-id', 'a'.repeat(128), 'a'.repeat(129), 'bad id', `cek_${'B'.repeat(39)}`, headerValue(r)])],
    ['origin', () => r.pick(['https://campus.edu', 'null', 'http://evil.example', headerValue(r)])],
    ['access-control-request-method', () => r.pick(['PUT', 'DELETE', 'FOO', headerValue(r)])],
    ['access-control-request-headers', () => headerValue(r)],
    ['x-forwarded-for', () => r.pick(['10.0.0.1', '::1, 10.0.0.2', headerValue(r)])],
    ['x-http-method-override', () => r.pick(['DELETE', 'PUT'])],
    ['x-original-url', () => '/events/evt_0000000000000000000000'],
    ['accept', () => r.pick(['application/json', 'text/html', '*/*', headerValue(r)])],
    ['accept-encoding', () => r.pick(['gzip', 'br', 'identity;q=0', headerValue(r)])],
    ['content-type', () => r.pick(['application/json', 'text/plain', headerValue(r)])],
    ['range', () => 'bytes=0-10'],
    ['cookie', () => headerValue(r)],
    ['expect', () => r.pick(['100-continue', 'teapot'])],
    ['x-custom', () => headerValue(r)],
  ];
  for (let n = 1 + r.int(5); n > 0; n--) {
    const [name, value] = r.pick(options);
    headers[name] = value();
  }
  const method = r.pick(['GET', 'GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'POST', 'PATCH', 'TRACE']);
  const target = ownOrUnknownId(r, context);
  const path = r.pick([`${prefix(r)}/events`, `${prefix(r)}/events/${target.id}`, '/health', '/openapi.json']);
  const request: FuzzRequest = { kind: 'headers', method, path, headers, ...(target.own && path.endsWith(target.id) ? { targetId: target.id } : {}) };
  if (method === 'POST' || method === 'PUT') {
    request.body = Buffer.from(eventObjectText(r, method === 'PUT'));
    headers['content-type'] ??= 'application/json';
  }
  return request;
}

/** An odd method and path. */
export function pathRequest(r: Random, context: FuzzContext): FuzzRequest {
  const target = ownOrUnknownId(r, context);
  const own = target.own ? target.id : 'evt_0000000000000000000000';
  const path = r.pick([
    '/', '/events', '/events/', `/events/${own}`, `/events/${own}/`, `/v1/events/${own}`, `/v1/v1/events`, '/v2/events', `/events/${own}/registrations`,
    '/health', '/health/', '/openapi.json', '/EVENTS', '/events/..', '/events/%2e%2e', '/events/%2F', `/events/${percentJunk(r)}`, '//events', '/events//x',
    '/%00', '/v1', '/v1/', `/events/${own}?x=1`, `/events/${own}%20`, '/events?', '/events#frag', `/${'a'.repeat(r.int(3000))}`, '/\\events', '/events;x=1',
    `/events/${own.toLowerCase()}`, '/__proto__', '/events/__proto__/x',
  ]);
  const method = r.pick(['GET', 'HEAD', 'OPTIONS', 'DELETE', 'PUT', 'POST', 'PATCH', 'TRACE', 'PROPFIND', 'FOO', 'M-SEARCH', 'get']);
  const request: FuzzRequest = { kind: 'path', method, path, headers: { ...authorization(r, context) } };
  if (target.own && path.includes(own)) request.targetId = own;
  if (method === 'PUT' || method === 'POST') {
    request.body = Buffer.from(eventObjectText(r, true));
    request.headers['content-type'] = 'application/json';
  }
  return request;
}

/** Raw bytes: templates of framing faults, and well-formed requests with a damaged head. Never with a key that can write. */
export function rawRequest(r: Random, context: FuzzContext): FuzzRequest {
  const reader = `Authorization: Bearer ${context.keys.reader}\r\n`;
  const body = '{"title":"x"}';
  const templates = [
    `GET /events HTTP/1.1\r\nHost: x\r\n${reader}Connection: close\r\n\r\n`,
    `POST /events HTTP/1.1\r\nHost: x\r\n${reader}Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    `POST /events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    `POST /events HTTP/1.1\r\nHost: x\r\n${reader}Content-Length: 70000\r\nExpect: 100-continue\r\n\r\n`,
    `CONNECT ${r.pick(['x:443', '/events', '/health', '*'])} HTTP/1.1\r\nHost: x\r\n\r\n`,
    'GET /health HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n',
    'GET /health HTTP/1.1\r\nConnection: close\r\n\r\n',
    'GET /health HTTP/1.0\r\n\r\n',
    'GET /events HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    `GET /health HTTP/1.1\r\nHost: x\r\nX-Pad: ${'p'.repeat(r.pick([100, 16 * 1024, 17 * 1024]))}\r\nConnection: close\r\n\r\n`,
    `GET /health HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade, close\r\n\r\n`,
    'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
    `${r.pick(['GET', 'get', 'G E T', 'GET\0', ''])} ${r.pick(['/health', '*', 'http://x/health', '/he alth', '/\xff'])} ${r.pick(['HTTP/1.1', 'HTTP/1.0', 'HTTP/2', 'HTTP/1.1 x', ''])}\r\nHost: x\r\nConnection: close\r\n\r\n`,
  ];
  let raw = Buffer.from(r.pick(templates), 'latin1');
  if (r.chance(0.4)) {
    // Damage only the head, and keep its final blank line, so the server does not wait for more (that is the time-out tests' job).
    const headEnd = raw.indexOf('\r\n\r\n');
    const head = headEnd === -1 ? raw : raw.subarray(0, headEnd);
    const rest = headEnd === -1 ? Buffer.alloc(0) : raw.subarray(headEnd);
    raw = Buffer.concat([mutateBytes(r, head).subarray(0, 20_000), rest.length > 0 ? rest : Buffer.from('\r\n\r\n')]);
  }
  return { kind: 'raw', method: 'RAW', path: '', headers: {}, raw };
}

/** One fuzz case: mostly bodies, then queries, header sets, paths and a few raw byte streams. */
export function fuzzRequest(r: Random, context: FuzzContext, allowRaw: boolean): FuzzRequest {
  const roll = r.int(100);
  if (roll < 50) return bodyRequest(r, context);
  if (roll < 68) return queryRequest(r, context);
  if (roll < 84) return headersRequest(r, context);
  if (roll < 97 || !allowRaw) return pathRequest(r, context);
  return rawRequest(r, context);
}

/** A printable form of a request, for a failure report a person can replay. */
export function describeRequest(request: FuzzRequest): string {
  if (request.raw !== undefined) return `raw bytes (latin1): ${JSON.stringify(request.raw.toString('latin1').slice(0, 2_000))}`;
  const body = request.body === undefined ? '' : `\n  body (latin1): ${JSON.stringify(request.body.toString('latin1').slice(0, 2_000))}${request.body.length > 2_000 ? ` ... (${request.body.length} bytes)` : ''}`;
  return `${request.method} ${request.path.slice(0, 300)}\n  headers: ${JSON.stringify(request.headers).slice(0, 1_000)}${body}`;
}
