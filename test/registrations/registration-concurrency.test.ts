// The seat guarantee of API.md §8 against the real server: 500 simultaneous registrations for 100 seats, then cancels and a capacity change racing.
import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { tempDir } from '../helpers/harness.js';
import { mulberry32 } from '../helpers/random.js';
import { createKey, eventBody, serverArgs, startServer, type Server } from '../durability/support.js';
import { assertSeatRule, type Attendee } from './seat-rule.js';

const REGISTRATIONS = 500;
const SEATS = 100;
const CANCELS = 50;
const RAISED_CAPACITY = 120;

interface Answer {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

/** One request over `agent` (a pool of keep-alive sockets, one per request in flight). */
function request(agent: http.Agent, url: string, key: string, method: string, target: string, body?: unknown): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (payload !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) });
  return new Promise((resolve, reject) => {
    const sent = http.request(`${url}${target}`, { agent, method, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text, headers: response.headers }));
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.end(payload);
  });
}

/** Every registration of an event in the server's order (creation order), walking the pages. */
async function attendees(agent: http.Agent, url: string, key: string, eventId: string): Promise<Attendee[]> {
  const all: Attendee[] = [];
  for (let page = 1; ; page++) {
    const answer = await request(agent, url, key, 'GET', `/events/${eventId}/registrations?limit=100&page=${page}`);
    assert.equal(answer.status, 200, answer.body);
    const body = JSON.parse(answer.body) as { registrations: Attendee[]; total: number };
    all.push(...body.registrations);
    if (body.registrations.length === 0 || all.length >= body.total) return all;
  }
}

async function seatsOf(agent: http.Agent, url: string, key: string, eventId: string): Promise<{ capacity: number; registered_count: number }> {
  const answer = await request(agent, url, key, 'GET', `/events/${eventId}`);
  assert.equal(answer.status, 200, answer.body);
  return JSON.parse(answer.body) as { capacity: number; registered_count: number };
}

test('500 simultaneous registrations for 100 seats confirm exactly 100; 50 cancels racing a capacity raise keep the count, the seats and the waitlist order', { timeout: 120_000 }, async (t) => {
  const seed = Number(process.env['REGISTRATION_SEED'] ?? Date.now() % 1_000_000);
  const random = mulberry32(seed);
  t.diagnostic(`seed ${seed} (REGISTRATION_SEED=${seed} repeats this run)`);
  const { dir, remove } = tempDir('campus-registration-concurrency-');
  const key = createKey(dir);
  let server: Server = await startServer(serverArgs(dir));
  // One socket per request in flight: all 500 are on the wire together.
  const agent = new http.Agent({ keepAlive: true, maxSockets: REGISTRATIONS, timeout: 30_000 });
  t.after(async () => {
    agent.destroy();
    server.child.kill('SIGKILL');
    await server.exited;
    remove();
  });
  const created = await request(agent, server.url, key, 'POST', '/events', eventBody('The seat race', { capacity: SEATS, start_time: '2030-05-01T18:00:00Z', end_time: '2030-05-01T21:00:00Z' }));
  assert.equal(created.status, 201, created.body);
  const eventId = (JSON.parse(created.body) as { id: string }).id;

  const answers = await Promise.all(
    Array.from({ length: REGISTRATIONS }, (_, k) => request(agent, server.url, key, 'POST', `/events/${eventId}/registrations`, { name: `Attendee ${k}`, email: `attendee${k}@campus.edu` })),
  );
  const made = answers.map((answer) => {
    assert.equal(answer.status, 201, answer.body);
    return JSON.parse(answer.body) as Attendee;
  });
  assert.equal(made.filter((registration) => registration.status === 'confirmed').length, SEATS, 'exactly 100 answers say confirmed');
  assert.equal(made.filter((registration) => registration.status === 'waitlisted').length, REGISTRATIONS - SEATS, 'the other 400 say waitlisted');
  const list = await attendees(agent, server.url, key, eventId);
  assert.equal(list.length, REGISTRATIONS);
  assert.deepEqual(new Set(list.map((attendee) => attendee.id)), new Set(made.map((registration) => registration.id)));
  // First come, first served: the list is in creation order, so its first 100 are the confirmed ones.
  assertSeatRule(list, SEATS, (await seatsOf(agent, server.url, key, eventId)).registered_count, `after the registrations (seed ${seed})`);
  const statusById = new Map(made.map((registration) => [registration.id, registration.status]));
  for (const attendee of list) assert.equal(attendee.status, statusById.get(attendee.id), `${attendee.id} is listed with the status its 201 said`);

  // 50 distinct registrations picked by the seeded PRNG, cancelled at once, with the capacity raised in the middle of them.
  const order = list.map((attendee) => attendee.id);
  const cancelled = new Set<string>();
  while (cancelled.size < CANCELS) cancelled.add(order[Math.floor(random() * order.length)]!);
  const cancels = [...cancelled].map((id) => request(agent, server.url, key, 'DELETE', `/events/${eventId}/registrations/${id}`));
  const raise = request(agent, server.url, key, 'PUT', `/events/${eventId}`, { capacity: RAISED_CAPACITY });
  const [raised, ...cancelAnswers] = await Promise.all([raise, ...cancels]);
  assert.equal(raised!.status, 200, raised!.body);
  for (const answer of cancelAnswers) assert.equal(answer.status, 204, answer.body);

  const remaining = order.filter((id) => !cancelled.has(id));
  const check = async (context: string): Promise<void> => {
    const after = await attendees(agent, server.url, key, eventId);
    const seats = await seatsOf(agent, server.url, key, eventId);
    assert.equal(seats.capacity, RAISED_CAPACITY);
    assert.deepEqual(after.map((attendee) => attendee.id), remaining, `${context}: the cancelled ones are gone, the others keep their order`);
    assertSeatRule(after, seats.capacity, seats.registered_count, context);
    // Each registration read alone says what the list says.
    for (const attendee of after.filter((_, k) => k % 25 === 0)) {
      const one = await request(agent, server.url, key, 'GET', `/events/${eventId}/registrations/${attendee.id}`);
      assert.equal(one.status, 200, one.body);
      assert.equal((JSON.parse(one.body) as Attendee).status, attendee.status);
    }
  };
  await check(`after the cancels and the raise (seed ${seed})`);

  // The same after a restart: what the log replays is what was served.
  assert.equal(await new Promise<number | string>((resolve) => {
    void server.exited.then(resolve);
    server.child.kill('SIGTERM');
  }), 0);
  agent.destroy();
  server = await startServer(serverArgs(dir));
  await check(`after a restart (seed ${seed})`);
});
