// Checks real requests and responses against the app's own /openapi.json with Ajv, a JSON Schema validator nobody
// here wrote: the status is documented for the operation, the body matches its schema, documented headers match
// theirs, and a body the server accepted passes the request schema the way validating proxies read it.
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is arbitrary JSON
type Json = any;

// ajv-formats is CommonJS: under Node's ESM loader its default export is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

/** One exchange as the core saw it. */
export interface Exchange {
  method: string;
  target: string;
  /** The JSON request body, when one was sent. */
  requestBody?: unknown;
  status: number;
  headers: Record<string, string>;
  body: string | null;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** A checker over one document; `problems(exchange)` lists every way an exchange departs from it. */
export class OpenApiChecker {
  readonly #doc: Json;
  readonly #ajv: Ajv2020;
  readonly #compiled = new Map<string, ValidateFunction>();
  readonly #paths: { template: string; pattern: RegExp }[];
  readonly #prefixes: string[];

  constructor(doc: Json) {
    this.#doc = doc;
    this.#ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.#ajv);
    this.#ajv.addSchema({ ...doc, $id: 'openapi' });
    this.#paths = Object.keys(doc.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }));
    // Longest first, so /api/v1 is stripped before /api.
    this.#prefixes = (doc.servers as { url: string }[]).map((server) => server.url.replace(/\/+$/, '')).sort((a, b) => b.length - a.length);
  }

  /** Every problem of one exchange; empty when the document describes it exactly. */
  problems(exchange: Exchange): string[] {
    const { method, target, status } = exchange;
    const where = `${method} ${target.slice(0, 80)} → ${status}`;
    const path = this.#documentedPath(target);
    if (path === undefined) {
      // An unknown path has no operation; its 404 (or a request-level error) is described in info.
      return [404, 400, 408, 431, 503].includes(status) ? [] : [`${where}: no documented path matches`];
    }
    const item = this.#doc.paths[path];
    // Methods are case-sensitive (RFC 9110 §9.1): `get` or `FOO` is no operation, and the router refuses it.
    const operation = HTTP_METHODS.includes(method.toLowerCase()) && method === method.toUpperCase() ? item[method.toLowerCase()] : undefined;
    if (operation === undefined) {
      if (status === 405) return this.#checkMethodNotAllowed(exchange, where);
      return [400, 408, 431, 500, 503].includes(status) ? [] : [`${where}: ${method} is not documented on ${path}`];
    }
    const key = operation.responses[String(status)] !== undefined ? String(status) : 'default';
    const raw = operation.responses[key];
    if (raw === undefined) return [`${where}: status ${status} is not documented for ${operation.operationId}`];
    const response = this.#deref(raw);
    const pointer = typeof raw.$ref === 'string' ? `openapi${raw.$ref}` : `openapi#/paths/${escape(path)}/${method.toLowerCase()}/responses/${key}`;
    const problems: string[] = [];
    this.#checkBody(exchange, response, pointer, where, problems);
    this.#checkHeaders(exchange, response, where, problems);
    if (status >= 200 && status < 300 && exchange.requestBody !== undefined) this.#checkRequest(exchange, operation, path, where, problems);
    return problems;
  }

  /** A refused method that no operation names: the answer must be the MethodNotAllowed response. */
  #checkMethodNotAllowed(exchange: Exchange, where: string): string[] {
    const problems: string[] = [];
    const response = this.#doc.components.responses.MethodNotAllowed;
    this.#checkBody(exchange, response, 'openapi#/components/responses/MethodNotAllowed', where, problems);
    this.#checkHeaders(exchange, response, where, problems);
    return problems;
  }

  #documentedPath(target: string): string | undefined {
    const at = target.indexOf('?');
    let path = at === -1 ? target : target.slice(0, at);
    for (const prefix of this.#prefixes) {
      if (prefix !== '' && (path === prefix || path.startsWith(`${prefix}/`))) {
        path = path.slice(prefix.length);
        break;
      }
    }
    return this.#paths.find((candidate) => candidate.pattern.test(path))?.template;
  }

  #checkBody(exchange: Exchange, response: Json, pointer: string, where: string, problems: string[]): void {
    const silent = exchange.method === 'HEAD' || exchange.status === 204 || exchange.status === 304;
    if (silent || exchange.body === null) return;
    const type = (Object.entries(exchange.headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? 'application/json').split(';')[0]!.trim();
    const media = response.content?.[type];
    if (media === undefined) {
      problems.push(`${where}: a ${type} body was sent but the document describes ${Object.keys(response.content ?? {}).join(', ') || 'none'}`);
      return;
    }
    if (type !== 'application/json' || media.schema === undefined) return;
    const validate = this.#validator(`${pointer}/content/application~1json/schema`);
    if (!validate(JSON.parse(exchange.body))) problems.push(`${where}: body does not match the schema: ${this.#ajv.errorsText(validate.errors)}`);
  }

  #checkHeaders(exchange: Exchange, response: Json, where: string, problems: string[]): void {
    const sent = Object.fromEntries(Object.entries(exchange.headers).map(([name, value]) => [name.toLowerCase(), value]));
    for (const [name, raw] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
      const header = this.#deref(raw);
      const value = sent[name.toLowerCase()];
      if (value === undefined) {
        if (header.required === true) problems.push(`${where}: required header ${name} is missing`);
        continue;
      }
      const schema = header.schema ?? {};
      const typed = schema.type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value;
      if (!this.#ajv.validate(schema, typed)) problems.push(`${where}: header ${name}: ${JSON.stringify(value)} does not match ${JSON.stringify(schema)}`);
    }
  }

  /** A request body the server accepted must pass the request schema, with no readOnly property in it (validators refuse those). */
  #checkRequest(exchange: Exchange, operation: Json, path: string, where: string, problems: string[]): void {
    const media = operation.requestBody?.content?.['application/json'];
    if (media === undefined) return;
    const validate = this.#validator(`openapi#/paths/${escape(path)}/${exchange.method.toLowerCase()}/requestBody/content/application~1json/schema`);
    if (!validate(exchange.requestBody)) problems.push(`${where}: the accepted request body does not match the request schema: ${this.#ajv.errorsText(validate.errors)}`);
    const schema = this.#deref(media.schema);
    const body = exchange.requestBody;
    if (body !== null && typeof body === 'object') {
      for (const field of Object.keys(body)) {
        if (this.#deref(schema.properties?.[field])?.readOnly === true) problems.push(`${where}: the accepted request body has ${field}, which the request schema marks readOnly`);
      }
    }
  }

  #validator(ref: string): ValidateFunction {
    let validate = this.#compiled.get(ref);
    if (validate === undefined) {
      validate = this.#ajv.compile({ $ref: ref });
      this.#compiled.set(ref, validate);
    }
    return validate;
  }

  #deref(node: Json): Json {
    if (typeof node?.$ref !== 'string') return node;
    let current: Json = this.#doc;
    for (const token of node.$ref.slice(2).split('/')) current = current?.[token.replaceAll('~1', '/').replaceAll('~0', '~')];
    return current;
  }
}

/** A path as a JSON Pointer token inside a URI fragment. */
function escape(path: string): string {
  return path.replaceAll('~', '~0').replaceAll('/', '~1').replaceAll('{', '%7B').replaceAll('}', '%7D');
}
