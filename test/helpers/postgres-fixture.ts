// One throwaway PostgreSQL server per test file: started before its tests, stopped and removed after them.
import { after, before } from 'node:test';
import { skipWithoutPostgres, startPostgres, type PostgresServer } from './postgres-server.js';

/** `{ skip }` for the file's tests: a reason when no server can start here (never under CI=true). */
export const skip = skipWithoutPostgres();

/** The file's server, started by a `before` hook; its `createDatabase` gives each test an empty database. */
export function usePostgres(): { server(): PostgresServer; database(name: string): Promise<string> } {
  let server: PostgresServer | undefined;
  if (skip === false) {
    before(async () => {
      server = await startPostgres();
    });
    after(() => server?.stop());
  }
  return {
    server: () => server ?? assertStarted(),
    database: (name) => (server ?? assertStarted()).createDatabase(name),
  };
}

function assertStarted(): never {
  throw new Error('the PostgreSQL server of this test file did not start');
}
