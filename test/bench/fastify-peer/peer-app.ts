// The Fastify 5 peer: the routes the PostgreSQL bench drives, written as a Fastify app usually is (JSON schemas, a pg pool, SQL per request).
import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import type pg from 'pg';
import { keyCheck, roles } from './peer-keys.js';

const text = (max: number) => ({ type: 'string', minLength: 1, maxLength: max }) as const;
const EVENT_BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['title', 'category', 'location', 'start_time', 'end_time', 'capacity'],
  properties: {
    title: text(200),
    description: { type: 'string', maxLength: 5000 },
    category: { enum: ['academic', 'social', 'athletic', 'cultural'] },
    location: text(200),
    start_time: { type: 'string', format: 'date-time' },
    end_time: { type: 'string', format: 'date-time' },
    capacity: { type: 'integer', minimum: 1, maximum: 100_000 },
  },
} as const;
const EVENT = {
  type: 'object',
  properties: {
    id: { type: 'string' }, title: { type: 'string' }, description: { type: 'string' }, category: { type: 'string' }, location: { type: 'string' },
    start_time: { type: 'string', format: 'date-time' }, end_time: { type: 'string', format: 'date-time' }, capacity: { type: 'integer' },
    registered_count: { type: 'integer' }, organizer: { type: 'object', properties: { name: { type: 'string' }, email: { type: 'string' } } },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const;
const REGISTRATION = {
  type: 'object',
  properties: {
    id: { type: 'string' }, event_id: { type: 'string' }, name: { type: 'string' }, email: { type: 'string' }, status: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' }, checked_in_at: { type: ['string', 'null'], format: 'date-time' },
  },
} as const;

interface EventBody { title: string; description?: string; category: string; location: string; start_time: string; end_time: string; capacity: number }
interface EventRow { id: string; title: string; description: string; category: string; location: string; start_time: Date; end_time: Date; capacity: number; registered_count: number; organizer_name: string; organizer_email: string; created_at: Date }

const COLUMNS = 'id, title, description, category, location, start_time, end_time, capacity, registered_count, organizer_name, organizer_email, created_at';
const asEvent = ({ organizer_name, organizer_email, ...row }: EventRow) => ({ ...row, organizer: { name: organizer_name, email: organizer_email } });
const newId = (prefix: string): string => `${prefix}${randomBytes(16).toString('base64url').replace(/[-_]/g, 'x')}`;
const notFound = (id: string) => ({ error: { code: 'not_found', message: `No event with id ${id}` } });

/** One seat or a waitlist place in one statement: the conditional UPDATE takes the event's row lock, so seats go in commit order. */
const REGISTER = `WITH seat AS (
  UPDATE peer_events SET registered_count = registered_count + 1 WHERE id = $1 AND end_time > now() AND registered_count < capacity RETURNING id)
INSERT INTO peer_registrations (id, event_id, name, email, status)
  SELECT $2, e.id, $3, $4, CASE WHEN EXISTS (SELECT 1 FROM seat) THEN 'confirmed' ELSE 'waitlisted' END FROM peer_events e WHERE e.id = $1 AND e.end_time > now()
RETURNING id, event_id, name, email, status, created_at, checked_in_at`;

/** The app on `pool`; every route needs a live key from campus_keys. */
export function buildPeer(pool: pg.Pool): FastifyInstance {
  const app = Fastify({ logger: false });
  app.decorateRequest('principal');
  app.addHook('onRequest', keyCheck(pool));

  app.get<{ Params: { id: string } }>('/events/:id', { schema: { response: { 200: EVENT } } }, async (request, reply) => {
    const { rows } = await pool.query<EventRow>(`SELECT ${COLUMNS} FROM peer_events WHERE id = $1`, [request.params.id]);
    return rows[0] === undefined ? reply.code(404).send(notFound(request.params.id)) : asEvent(rows[0]);
  });

  const listQuery = { type: 'object', additionalProperties: false, properties: { limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 }, page: { type: 'integer', minimum: 1, default: 1 } } } as const;
  const listAnswer = { type: 'object', properties: { events: { type: 'array', items: EVENT }, total: { type: 'integer' }, page: { type: 'integer' } } } as const;
  app.get<{ Querystring: { limit: number; page: number } }>('/events', { schema: { querystring: listQuery, response: { 200: listAnswer } } }, async (request) => {
    const { limit, page } = request.query;
    const [{ rows }, count] = await Promise.all([
      pool.query<EventRow>(`SELECT ${COLUMNS} FROM peer_events ORDER BY start_time, id LIMIT $1 OFFSET $2`, [limit, (page - 1) * limit]),
      pool.query<{ total: number }>('SELECT count(*)::int AS total FROM peer_events'),
    ]);
    return { events: rows.map(asEvent), total: count.rows[0]!.total, page };
  });

  app.post<{ Body: EventBody }>('/events', { preHandler: roles('admin', 'organizer'), schema: { body: EVENT_BODY, response: { 201: EVENT } } }, async (request, reply) => {
    const body = request.body;
    if (Date.parse(body.end_time) <= Date.parse(body.start_time)) return reply.code(400).send({ error: { code: 'validation_failed', message: 'end_time must be after start_time' } });
    const { rows } = await pool.query<EventRow>(
      `INSERT INTO peer_events (id, title, description, category, location, start_time, end_time, capacity, organizer_name, organizer_email)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${COLUMNS}`,
      [newId('evt_'), body.title.trim(), body.description ?? '', body.category, body.location.trim(), body.start_time, body.end_time, body.capacity, request.principal.name, request.principal.email],
    );
    return reply.code(201).header('location', `/events/${rows[0]!.id}`).send(asEvent(rows[0]!));
  });

  const registrationBody = { type: 'object', additionalProperties: false, required: ['name', 'email'], properties: { name: text(200), email: { type: 'string', format: 'email', maxLength: 254 } } } as const;
  app.post<{ Params: { id: string }; Body: { name: string; email: string } }>('/events/:id/registrations', { preHandler: roles('admin', 'organizer', 'reader'), schema: { body: registrationBody, response: { 201: REGISTRATION } } }, async (request, reply) => {
    const { id } = request.params;
    try {
      const { rows } = await pool.query(REGISTER, [id, newId('reg_'), request.body.name.trim(), request.body.email]);
      if (rows[0] !== undefined) return reply.code(201).header('location', `/events/${id}/registrations/${rows[0].id}`).send(rows[0]);
    } catch (error) {
      if ((error as { code?: string }).code === '23505') return reply.code(409).send({ error: { code: 'conflict', message: `${request.body.email} is already registered` } });
      throw error;
    }
    const { rows } = await pool.query('SELECT 1 FROM peer_events WHERE id = $1', [id]);
    return rows.length === 0 ? reply.code(404).send(notFound(id)) : reply.code(409).send({ error: { code: 'conflict', message: `Event ${id} has ended` } });
  });
  return app;
}
