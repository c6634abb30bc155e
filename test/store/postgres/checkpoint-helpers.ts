// Shared by the checkpoint tests: the whole state a PostgreSQL store serves, as plain data to compare, and waiting for a condition.
import type { PostgresStore } from '../../../src/store/postgres/postgres-store.js';

/** Everything a store answers from memory: events (JSON, seq, time), rosters, series, the change feed and where it stands. */
export function storeState(store: PostgresStore): Record<string, unknown> {
  const live = store.changes.after(0, Number.MAX_SAFE_INTEGER).changes;
  return {
    events: live.map(({ seq, id, event }) => ({ seq, id, json: event!.json, modifiedMs: event!.modifiedMs, createdAt: event!.createdAt })),
    rosters: live.map(({ id }) => [id, [...store.roster(id).values()]]).filter(([, registrations]) => (registrations as unknown[]).length > 0),
    series: store.documents('series').sort((a, b) => (a.id < b.id ? -1 : 1)),
    feed: {
      lastSeq: store.changes.lastSeq,
      horizon: store.changes.horizon,
      // Deletions still answered to a follower after `horizon`.
      tombstones: [...store.changes.tombstones].filter(([, seq]) => seq > store.changes.horizon).sort((a, b) => a[1] - b[1]),
    },
  };
}

/** Resolves once `condition` holds; rejects with `what` after `timeoutMs`. */
export async function waitUntil(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
