// The shape of a running app, which createApp resolves to: apart from app.ts, so the app that follows a promoted
// standby (following-app.ts) can wrap one without importing the wiring that makes it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { PlainRequest } from './http/types.js';
import type { CoreResponse } from './pipeline.js';
import type { EventStore } from './store/event-store.js';
import type { Role } from './auth/principal.js';

/** Who a new key belongs to; `role` defaults to `organizer`. */
export interface KeyOwner {
  name: string;
  email: string;
  role?: Role;
}

/** A key just made: its id, and its secret, shown only this once. */
export interface NewKey {
  id: string;
  key: string;
  name: string;
  email: string;
  role: Role;
}

/** A running app: a node:http request listener and a way to stop it. */
export interface App {
  /** A node:http request listener: `http.createServer(app.handler)`. */
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  /** The server's `checkContinue` listener: invites a body (100 Continue) only from a request with a good key on a known route. */
  checkContinue: (req: IncomingMessage, res: ServerResponse) => void;
  /** The server's `clientError` listener: what node's own parser refuses (bad framing, headers over 16 KiB) gets a JSON error. */
  clientError: (error: NodeJS.ErrnoException, socket: Socket) => void;
  /** The pure core: a plain request in, a plain response out. */
  handle: (request: PlainRequest) => CoreResponse | Promise<CoreResponse>;
  /** The secret of the admin key created on this start, if one was; shown once. */
  initialAdminKey: string | undefined;
  /** Answers 503 to new requests while in-flight ones finish (for graceful shutdown). */
  drain(): void;
  /**
   * Once draining has waited long enough: answers 503 to every request whose body is still arriving (its connection
   * then closes), and resolves when those answers are written.
   */
  answerUnfinished(): Promise<void>;
  /** Waits for queued writes, closes the store and releases the data folder. */
  close(): Promise<void>;
  /** The event store (for embedders' tests and tools). */
  store: EventStore;
  /**
   * Creates an API key: in the folder's keys.json, as `campus-events-cli keys create` does, or in memory with
   * `store: 'memory'`. Rejects a bad name, e-mail or role with a TypeError naming it, and any key once close() was called.
   */
  createKey(owner: KeyOwner): Promise<NewKey>;
}
