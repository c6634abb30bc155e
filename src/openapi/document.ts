// The OpenAPI 3.1 document of the whole API, generated from the route table and the event schema.
import { EVENT_FIELDS } from '../events/schema.js';

/** Builds the document; `routes` comes from the router so every route is documented. */
export function openApiDocument(routes: { pattern: string; methods: string[] }[], limits: { rateLimit: number; rateWindow: number }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const item: Record<string, unknown> = {};
    for (const method of route.methods) item[method.toLowerCase()] = { responses: { default: { description: 'See the contract.' } } };
    paths[route.pattern.replace(/:(\w+)/g, '{$1}')] = item;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'campus-events', version: '1.0', description: `Rate limit: ${limits.rateLimit} requests per ${limits.rateWindow} s per key.` },
    paths,
    components: { schemas: { Event: { type: 'object', properties: Object.fromEntries(Object.entries(EVENT_FIELDS).map(([name, rule]) => [name, rule.schema])) } } },
  };
}
