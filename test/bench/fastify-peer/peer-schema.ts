// The Fastify peer's tables, beside ours in the same database: events and registrations as rows, the way such an app is usually written.
import type pg from 'pg';

const TABLES = [
  `CREATE TABLE IF NOT EXISTS peer_events (
    id text PRIMARY KEY, title text NOT NULL, description text NOT NULL DEFAULT '', category text NOT NULL,
    location text NOT NULL, start_time timestamptz NOT NULL, end_time timestamptz NOT NULL CHECK (end_time > start_time),
    capacity integer NOT NULL, registered_count integer NOT NULL DEFAULT 0 CHECK (registered_count <= capacity),
    organizer_name text NOT NULL, organizer_email text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`,
  'CREATE INDEX IF NOT EXISTS peer_events_order ON peer_events (start_time, id)',
  `CREATE TABLE IF NOT EXISTS peer_registrations (
    id text PRIMARY KEY, event_id text NOT NULL REFERENCES peer_events ON DELETE CASCADE, name text NOT NULL,
    email text NOT NULL, status text NOT NULL, created_at timestamptz NOT NULL DEFAULT clock_timestamp(), checked_in_at timestamptz)`,
  'CREATE UNIQUE INDEX IF NOT EXISTS peer_registrations_email ON peer_registrations (event_id, lower(email))',
];

/** Creates the peer's tables when missing (one peer process per database: no migration lock needed). */
export async function createPeerTables(pool: pg.Pool): Promise<void> {
  for (const statement of TABLES) await pool.query(statement);
}
