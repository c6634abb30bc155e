// Shared by the publishing tests (API.md §14): events in the future, the newest durable write, and checks that a
// refused request wrote nothing.
import assert from 'node:assert/strict';
import type { Harness, TestResponse } from '../helpers/harness.js';
import { eventBody } from '../helpers/harness.js';

/** A valid event body a year ahead (registrations stay open), with `overrides`. */
export function futureEvent(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const start = new Date(Date.now() + 365 * 86_400_000);
  start.setUTCMinutes(0, 0, 0);
  return eventBody({ start_time: start.toISOString(), end_time: new Date(start.getTime() + 2 * 3_600_000).toISOString(), ...overrides });
}

/** Creates an event with `key`, asserting 201, and returns the answer's body. */
export async function create(h: Harness, key: string, overrides: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const response = await h.request('POST', '/events', { key, body: futureEvent(overrides) });
  assert.equal(response.status, 201, response.text ?? '');
  return response.json;
}

/** The seq of the newest durable write (the change feed's next_since of a full read): it moves with every write, drafts' too. */
export async function newestWrite(h: Harness): Promise<number> {
  const response = await h.request('GET', '/changes?since=0&limit=1000', { key: h.keys.admin });
  assert.equal(response.status, 200);
  assert.equal(response.json.more, false);
  return response.json.next_since;
}

/** `response` is the error `code` at `status` whose message holds every one of `parts`, and (for a 400) names `field` in details. */
export function assertRefused(response: TestResponse, status: number, code: string, parts: readonly string[], field?: string): void {
  assert.equal(response.status, status, `expected ${status}, got ${response.status}: ${response.text}`);
  assert.equal(response.json.error, code);
  for (const part of parts) assert.ok(response.json.message.includes(part), `message ${JSON.stringify(response.json.message)} lacks ${JSON.stringify(part)}`);
  if (field !== undefined) assert.ok(response.json.details.some((detail: { field: string }) => detail.field === field), `details name ${field}: ${response.text}`);
}

/** Runs `request`, asserting it wrote nothing: the newest durable write and the event's ETag (when given) stay. */
export async function writesNothing(h: Harness, eventId: string | undefined, request: () => Promise<TestResponse>): Promise<TestResponse> {
  const before = await newestWrite(h);
  const etag = eventId === undefined ? undefined : (await h.request('GET', `/events/${eventId}`, { key: h.keys.admin })).headers['ETag'];
  const response = await request();
  assert.equal(await newestWrite(h), before, `a refused request wrote nothing: ${response.status} ${response.text}`);
  if (eventId !== undefined) assert.equal((await h.request('GET', `/events/${eventId}`, { key: h.keys.admin })).headers['ETag'], etag);
  return response;
}
