// The shape of an operation's description in the OpenAPI document, which the tables of operations (events,
// series, webhooks) fill in and the document reads: apart from the tables, so none of them imports another.
import type { Example } from './examples.js';

/** A success (or 304) response of an operation. */
export interface SuccessSpec {
  description: string;
  /** The component schema of the JSON body; none for an empty body. */
  schema?: string;
  /** Component headers it carries besides the common and rate-limit ones. */
  headers?: readonly string[];
  /** A body that is not JSON: its media type and a description of it (then `schema` is unused). */
  text?: { mediaType: string; description: string };
  /** The same body may come as CSV (`Accept: text/csv`). */
  csv?: boolean;
  /** Another media type the same answer may come as (asked for with Accept), besides the JSON schema. */
  alternative?: { mediaType: string; description: string };
}

/** One operation, keyed in OPERATIONS by `METHOD /openapi/{template}`. */
export interface OperationSpec {
  /** Stable: the route's name in the route table where it has one. */
  operationId: string;
  summary: string;
  description: string;
  tag: 'events' | 'registrations' | 'series' | 'service' | 'webhooks';
  /** Needs an API key: 401 and 429, the rate-limit headers, the global security requirement. */
  auth: boolean;
  /** Component parameters, by name. */
  parameters?: readonly string[];
  /** Security schemes, any one of which will do, when not only the global Bearer key. */
  security?: readonly string[];
  /** A JSON object body: its component schema and examples (415, 413 and 400 come with it). */
  requestBody?: { schema: string; description: string; examples: Readonly<Record<string, Example>>; optional?: boolean };
  responses: Readonly<Record<string, SuccessSpec>>;
  /** Error statuses particular to this operation, beyond those every request (and every keyed request) can get. */
  errors: readonly number[];
  /** Answered before any body is looked at (OPTIONS, a 405): only the request-level errors, not 413 and 415. */
  requestErrors?: boolean;
  /** A method the path does not serve: every answer but a request-level error is a 405 (the default response). */
  refused?: boolean;
  /** Every role's key may call it, so no 403 is listed with the key's other errors (GET /me). */
  everyRole?: boolean;
}
