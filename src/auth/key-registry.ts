// The server's view of keys.json: a hash → principal map, reloaded when the file changes (polled); or keys held in memory only.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { hashSecret, looksLikeKey, newKeyId, newSecret, sameHash } from './api-key.js';
import { KEY_FILE, type KeyRecord, readKeys, updateKeys } from './key-file.js';
import type { Principal } from './principal.js';

const RECENT_KEYS = 10_000;
/** The least time between the starts of two looks at keys.json made for unknown keys. */
const LOOK_SPACING_MS = 100;

/** Keys kept somewhere other than keys.json (the PostgreSQL store's table): read whole on each poll. */
export interface KeySource {
  read(): Promise<KeyRecord[]>;
  add(record: KeyRecord): Promise<void>;
}

interface Entry {
  hash: string;
  principal: Principal;
}

/** How the registry tells the operator about keys.json (a logger's warn). */
export type KeyFileWarning = (message: string, fields: Record<string, string>) => void;

/** Honours keys created and refuses keys revoked by the CLI within `pollMs` (default 1 s). */
export class KeyRegistry {
  /** The folder of keys.json; undefined for a registry in memory, which never touches the disk. */
  readonly #dataDir: string | undefined;
  /** Where keys live when not in a folder's keys.json. */
  #source: KeySource | undefined;
  #memoryKeys: KeyRecord[] = [];
  #byHash = new Map<string, Entry>();
  /** Ids of the keys not revoked, so open streams can be checked against keys.json. */
  #liveIds = new Set<string>();
  /** Keys that matched since the last reload (at most RECENT_KEYS); emptied whenever keys.json changes, so a revoked key is refused at once. */
  #recent = new Map<string, Principal>();
  #fingerprint = '';
  #timer: NodeJS.Timeout | undefined;
  #refreshing: Promise<void> | undefined;
  /** When the look at keys.json in flight (or the last one) began, on performance.now(): a clock that never steps. */
  #lookStartedAt = -Infinity;
  /** The look that those asking now will share: it begins once the one in flight is done. */
  #nextLook: Promise<void> | undefined;
  /** True while the last read of the database's keys failed: a look for an unknown key would only wait to fail too. */
  #sourceAway = false;
  /** Tells the operator when keys.json goes missing or cannot be read while the server runs, and when it is back. */
  #warn: KeyFileWarning = () => undefined;
  /** The fingerprint of a keys.json already reported as gone or unreadable, so each state is reported once. */
  #reported: string | undefined;

  private constructor(dataDir: string | undefined) {
    this.#dataDir = dataDir;
  }

  /**
   * Loads the keys of a folder and starts watching the file. `warn` hears of a keys.json that goes missing or
   * unreadable later (at start, an unreadable one is an error), and of its coming back.
   */
  static async open(dataDir: string, options: { pollMs?: number; warn?: KeyFileWarning } = {}): Promise<KeyRegistry> {
    const registry = new KeyRegistry(dataDir);
    await registry.refresh();
    if (options.warn !== undefined) registry.#warn = options.warn;
    const pollMs = options.pollMs ?? 1_000;
    if (pollMs > 0) {
      registry.#timer = setInterval(() => void registry.refresh().catch(() => undefined), pollMs);
      registry.#timer.unref();
    }
    return registry;
  }

  /** Loads the keys of `source` and polls it every `pollMs` (default 1 s), as open() polls keys.json. */
  static async fromSource(source: KeySource, options: { pollMs?: number } = {}): Promise<KeyRegistry> {
    const registry = new KeyRegistry(undefined);
    registry.#source = source;
    registry.#load(await source.read());
    const pollMs = options.pollMs ?? 1_000;
    if (pollMs > 0) {
      registry.#timer = setInterval(() => void registry.refresh().catch(() => undefined), pollMs);
      registry.#timer.unref();
    }
    return registry;
  }

  /** A registry whose keys live in memory only (for an app with `store: 'memory'`): nothing is read or written. */
  static inMemory(): KeyRegistry {
    return new KeyRegistry(undefined);
  }

  /** Creates a key in keys.json (under its lock), or in memory for a registry in memory; its secret is returned once. */
  async create(owner: { name: string; email: string; role: KeyRecord['role'] }, deps: { randomBytes: (size: number) => Uint8Array; now: () => number }): Promise<CreatedKey> {
    if (this.#source !== undefined) {
      const created = await createKeyIn(this.#source, owner, deps);
      await this.refresh();
      return created;
    }
    if (this.#dataDir !== undefined) {
      const created = await createKey(this.#dataDir, owner, deps);
      await this.refresh();
      return created;
    }
    const secret = newSecret(deps.randomBytes);
    const record = keyRecord(owner, secret, deps);
    this.#memoryKeys = [...this.#memoryKeys, record];
    this.#load(this.#memoryKeys);
    return { record, secret };
  }

  /** The principal of a live key, or undefined for an unknown, malformed or revoked one. */
  lookup(secret: string): Principal | undefined {
    // Hot path: a key seen since the last reload skips the checksum and the hash.
    const cached = this.#recent.get(secret);
    if (cached !== undefined) return cached;
    if (!looksLikeKey(secret)) return undefined;
    const hash = hashSecret(secret);
    const entry = this.#byHash.get(hash);
    if (entry === undefined || !sameHash(entry.hash, hash)) return undefined;
    if (this.#recent.size >= RECENT_KEYS) this.#recent.clear();
    this.#recent.set(secret, entry.principal);
    return entry.principal;
  }

  /** True when an unknown secret is well-formed: it may be a key the CLI has just made, worth a look at keys.json. */
  mayBeNew(secret: string): boolean {
    return looksLikeKey(secret);
  }

  /**
   * Resolves once keys.json (or the database's keys) has been read by a look that began after this call, so a key made
   * before the request was sent is found, however many requests bring it at once. Looks are shared: everyone who asks
   * while one runs waits for the next, which begins at least LOOK_SPACING_MS after the one before (a flood of made-up
   * keys costs at most ten reads a second, and a new key at most that long a wait).
   */
  lookAgain(): Promise<void> {
    // The database out of reach (as last read): no key made meanwhile can be found; the poll reads again meanwhile.
    if (this.#sourceAway) return Promise.resolve();
    this.#nextLook ??= (async () => {
      // Yields first, so this promise is the shared one before anything below clears it.
      await undefined;
      // A poll's look may start meanwhile; the shared look is one begun after every asker.
      await this.#idle();
      const wait = this.#lookStartedAt + LOOK_SPACING_MS - performance.now();
      if (wait > 0) {
        await new Promise((resolve) => setTimeout(resolve, wait));
        await this.#idle();
      }
      this.#nextLook = undefined;
      // A keys.json that cannot be read keeps the keys read before (and is reported once): the key is then unknown.
      await this.refresh().catch(() => undefined);
    })();
    return this.#nextLook;
  }

  /** Resolves once no look at the keys is in flight. */
  async #idle(): Promise<void> {
    for (let look = this.#refreshing; look !== undefined; look = this.#refreshing) await look.catch(() => undefined);
  }

  /** True while the key with this id is in keys.json and not revoked (as of the last poll). */
  isLive(keyId: string): boolean {
    return this.#liveIds.has(keyId);
  }

  /** Rereads keys.json when its identity, size or times changed. */
  refresh(): Promise<void> {
    if (this.#refreshing === undefined) {
      this.#lookStartedAt = performance.now();
      this.#refreshing = this.#reload().finally(() => (this.#refreshing = undefined));
    }
    return this.#refreshing;
  }

  async #reload(): Promise<void> {
    if (this.#source !== undefined) {
      // An unreachable database keeps the keys last read: the store answers 503 for what needs it.
      const keys = await this.#source.read().catch(() => undefined);
      this.#sourceAway = keys === undefined;
      if (keys === undefined) return;
      const fingerprint = JSON.stringify(keys.map((key) => [key.id, key.revoked_at]));
      if (fingerprint !== this.#fingerprint) this.#load(keys);
      this.#fingerprint = fingerprint;
      return;
    }
    if (this.#dataDir === undefined) return;
    const file = path.join(this.#dataDir, KEY_FILE);
    const stat = await fs.stat(file).catch(() => undefined);
    // ctime too: a chmod that makes the file unreadable, or an edit that kept size and mtime (cp -p, rsync -t).
    const fingerprint = stat === undefined ? 'none' : `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
    if (fingerprint === this.#fingerprint) return;
    let keys: KeyRecord[];
    try {
      keys = await readKeys(this.#dataDir);
    } catch (error) {
      // The keys read before stay in use: a half-written or hand-edited file must not lock everyone out.
      if (this.#reported !== fingerprint) this.#warn(`${(error as Error).message}; the keys read before stay in use until it is fixed`, { file });
      this.#reported = fingerprint;
      throw error;
    }
    if (stat === undefined && this.#fingerprint !== '' && this.#reported !== fingerprint) {
      // Gone after it was read (a folder that never had one, at start, is no news).
      this.#warn('keys.json is gone from the data folder: every key is refused until it is put back from a backup, or a new one is made with the CLI (keys create)', { file });
      this.#reported = fingerprint;
    } else if (stat !== undefined && this.#reported !== undefined) {
      this.#warn(`keys.json is readable again: ${keys.filter((key) => key.revoked_at === null).length} keys in use`, { file });
      this.#reported = undefined;
    }
    this.#load(keys);
    this.#fingerprint = fingerprint;
  }

  #load(keys: readonly KeyRecord[]): void {
    const byHash = new Map<string, Entry>();
    for (const key of keys) {
      if (key.revoked_at !== null) continue;
      byHash.set(key.hash, { hash: key.hash, principal: { keyId: key.id, name: key.name, email: key.email, role: key.role } });
    }
    this.#byHash = byHash;
    this.#liveIds = new Set([...byHash.values()].map((entry) => entry.principal.keyId));
    this.#recent = new Map();
  }

  close(): void {
    clearInterval(this.#timer);
  }
}

/** The new key's record and its secret, which is shown once and never stored. */
export interface CreatedKey {
  record: KeyRecord;
  secret: string;
}

/** Creates a key in the folder's key file (under its lock). */
export async function createKey(
  dataDir: string,
  owner: { name: string; email: string; role: KeyRecord['role'] },
  deps: { randomBytes: (size: number) => Uint8Array; now: () => number },
): Promise<CreatedKey> {
  const secret = newSecret(deps.randomBytes);
  const record = keyRecord(owner, secret, deps);
  await updateKeys(dataDir, (keys) => keys.push(record));
  return { record, secret };
}

function keyRecord(owner: { name: string; email: string; role: KeyRecord['role'] }, secret: string, deps: { randomBytes: (size: number) => Uint8Array; now: () => number }): KeyRecord {
  return {
    id: newKeyId(deps.randomBytes),
    name: owner.name,
    email: owner.email,
    role: owner.role,
    hash: hashSecret(secret),
    created_at: new Date(deps.now()).toISOString(),
    revoked_at: null,
  };
}

/** On a folder with no key at all, creates the first admin key; returns its secret, else undefined. */
export async function ensureAdminKey(dataDir: string, deps: { randomBytes: (size: number) => Uint8Array; now: () => number }): Promise<string | undefined> {
  // The usual start: keys exist, so neither the lock nor a write is needed.
  if ((await readKeys(dataDir)).length > 0) return undefined;
  const secret = newSecret(deps.randomBytes);
  const created = await updateKeys(dataDir, (keys) => {
    if (keys.length > 0) return false;
    keys.push({
      id: newKeyId(deps.randomBytes),
      name: 'Administrator',
      email: 'admin@campus.local',
      role: 'admin',
      hash: hashSecret(secret),
      created_at: new Date(deps.now()).toISOString(),
      revoked_at: null,
    });
    return true;
  });
  return created ? secret : undefined;
}

/** Creates a key in `source` (the database's table); its secret is returned once. */
export async function createKeyIn(source: Pick<KeySource, 'add'>, owner: { name: string; email: string; role: KeyRecord['role'] }, deps: { randomBytes: (size: number) => Uint8Array; now: () => number }): Promise<CreatedKey> {
  const secret = newSecret(deps.randomBytes);
  const record = keyRecord(owner, secret, deps);
  await source.add(record);
  return { record, secret };
}

/** Creates the first admin key in `source` when it has none (several instances starting together make one); returns its secret, else undefined. */
export async function ensureAdminKeyIn(source: { addIfNone(record: KeyRecord): Promise<boolean> }, deps: { randomBytes: (size: number) => Uint8Array; now: () => number }): Promise<string | undefined> {
  const secret = newSecret(deps.randomBytes);
  const record = keyRecord({ name: 'Administrator', email: 'admin@campus.local', role: 'admin' }, secret, deps);
  return (await source.addIfNone(record)) ? secret : undefined;
}

/** Removes the key with this hash from the folder's key file (for a key that was never shown). */
export async function forgetKey(dataDir: string, hash: string): Promise<void> {
  await updateKeys(dataDir, (keys) => {
    const at = keys.findIndex((key) => key.hash === hash);
    if (at !== -1) keys.splice(at, 1);
  });
}
