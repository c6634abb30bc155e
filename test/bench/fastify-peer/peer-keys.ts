// The peer's API-key check: our keys table (campus_keys), looked up by the SHA-256 of the Bearer secret, as our server does.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';

/** The key's owner, for the role check and as the organizer of the events it creates. */
export interface PeerPrincipal {
  id: string;
  name: string;
  email: string;
  role: 'admin' | 'organizer' | 'reader' | 'feed';
}

/** Our registry reloads keys every second; the peer caches each lookup as long, so a revoked key holds as soon on both. */
const CACHE_MS = 1_000;

declare module 'fastify' {
  interface FastifyRequest {
    principal: PeerPrincipal;
  }
}

/** An onRequest hook: 401 without a live key; otherwise `request.principal` is its owner. */
export function keyCheck(pool: pg.Pool): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  const cache = new Map<string, { principal: PeerPrincipal | undefined; at: number }>();
  return async (request, reply) => {
    const header = request.headers.authorization;
    const secret = header?.startsWith('Bearer ') === true ? header.slice(7) : '';
    const hash = createHash('sha256').update(secret).digest('hex');
    let entry = cache.get(hash);
    if (entry === undefined || Date.now() - entry.at > CACHE_MS) {
      const { rows } = await pool.query<PeerPrincipal>('SELECT id, name, email, role FROM campus_keys WHERE hash = $1 AND revoked_at IS NULL', [hash]);
      entry = { principal: rows[0], at: Date.now() };
      cache.set(hash, entry);
    }
    if (entry.principal === undefined) return void (await reply.code(401).send({ error: { code: 'unauthorized', message: 'A valid API key is required' } }));
    request.principal = entry.principal;
  };
}

/** A preHandler refusing roles not in `allowed` with 403. */
export function roles(...allowed: PeerPrincipal['role'][]): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  return async (request, reply) => {
    if (!allowed.includes(request.principal.role)) await reply.code(403).send({ error: { code: 'forbidden', message: `A ${request.principal.role} key may not do this` } });
  };
}
