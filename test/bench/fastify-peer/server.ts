// Starts the Fastify peer: `node --import tsx test/bench/fastify-peer/server.ts --store postgres://… [--port N]`; prints `listening on URL`.
import { parseArgs } from 'node:util';
import pg from 'pg';
import { buildPeer } from './peer-app.js';
import { createPeerTables } from './peer-schema.js';

const { values } = parseArgs({ options: { store: { type: 'string' }, port: { type: 'string', default: '0' } } });
if (values.store === undefined) {
  process.stderr.write('fastify peer: --store postgres://… is required\n');
  process.exit(2);
}
// pg's default pool (10 connections): what a Fastify app gets unless it tunes it.
const pool = new pg.Pool({ connectionString: values.store });
await createPeerTables(pool);
const app = buildPeer(pool);
const url = await app.listen({ host: '127.0.0.1', port: Number(values.port) });
process.stdout.write(`listening on ${url}\n`);
const stop = (): void => void app.close().then(() => pool.end()).then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
