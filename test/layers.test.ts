// The layering of src/ (STYLE.md "Layers: who may know whom", docs/development.md "Layers"): imports go down or sideways,
// never up, and each layer imports only the layers it may know.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { importsOf, resolveImport as resolve, SRC, sourceFiles } from "./source-graph.js";

/**
 * The layers, top to bottom (folders end in "/"), and which layers each may import. Arrows go down or sideways,
 * never up: protocol, keys, limits and logging know no domain (the HTTP edge maps the store's errors, the key file
 * takes the data folder's lock in lib/fs/: both down); the store knows no HTTP and no keys.
 *
 * Search (`q`: folding and words, the index, matching, its build from the log) sits between the store and lib/. The
 * store uses it: the shared views keep the index beside the events and answer filtered lists with its postings, and
 * the file engine starts the build from its log (through search-log-build.ts alone: see SEARCH_ENTRIES). Search
 * knows no store: what it needs of the store's event objects comes in as an EventForms (search/event-forms.ts), and
 * it reads the log's bytes with lib/'s helpers. Why this way round: the views hold the index and page through its
 * postings, so the store needs search; had search known the store too, the two layers would know each other, and a
 * reader of "how `q` matches" would be sent back into the store. The parser of `q` (events/list-query.ts) folds the
 * words with search/ as well.
 */
const LAYERS: readonly { name: string; units: readonly string[]; mayKnow: readonly string[] }[] = [
  { name: "doors", units: ["server.ts", "run-server.ts", "cli.ts", "cli-postgres.ts", "cli-usage.ts", "cli-verify.ts", "index.ts"], mayKnow: ["doors", "wiring", "domain", "edge", "store", "search", "lib"] },
  { name: "wiring", units: ["app.ts", "app-types.ts", "app-options.ts", "following-app.ts", "pipeline.ts", "config.ts", "start-server.ts"], mayKnow: ["wiring", "domain", "edge", "store", "search", "lib"] },
  { name: "domain", units: ["events/", "registrations/", "feeds/", "series/", "console/", "openapi/", "webhooks/"], mayKnow: ["domain", "edge", "store", "search", "lib"] },
  { name: "edge", units: ["http/", "auth/", "limits/", "log/"], mayKnow: ["edge", "store", "search", "lib"] },
  { name: "store", units: ["store/"], mayKnow: ["store", "search", "lib"] },
  { name: "search", units: ["search/"], mayKnow: ["search", "lib"] },
  { name: "lib", units: ["lib/"], mayKnow: ["lib"] },
];

/** Imports that break the layers on purpose, each with its reason. `from` and `to` are paths under src/. */
const EXCEPTIONS: readonly { from: RegExp; to: string; why: string }[] = [
  {
    from: /^store\//,
    to: "events/event.ts",
    why: "the store keeps and indexes event records, so it knows their shape (StoredEvent, categories); never HTTP or keys",
  },
  {
    from: /^search\//,
    to: "events/event.ts",
    why: "the search index reads the events it indexes (StoredEvent's view, categories): the store's allowance, nothing more of the domain",
  },
];

/** The layer of a path under src/ ("events/handlers.ts", "app.ts"), or undefined when no layer names it. */
function layerOf(file: string): (typeof LAYERS)[number] | undefined {
  const slash = file.indexOf("/");
  const unit = slash === -1 ? file : file.slice(0, slash + 1);
  return LAYERS.find((layer) => layer.units.includes(unit));
}

/** Every import of src/ that its layer may not make and is not a listed exception, as "from → to". */
function forbiddenImports(files: readonly string[], read: (file: string) => string): string[] {
  const wrong: string[] = [];
  for (const file of files) {
    const from = layerOf(file)!;
    for (const specifier of importsOf(read(file))) {
      const target = resolve(file, specifier);
      const to = layerOf(target);
      if (to === undefined || from.mayKnow.includes(to.name)) continue;
      if (EXCEPTIONS.some((exception) => exception.from.test(file) && exception.to === target)) continue;
      wrong.push(`${file} → ${target}`);
    }
  }
  return wrong;
}

test("every file under src/ belongs to a layer", () => {
  const unplaced = sourceFiles(SRC).filter((file) => layerOf(file) === undefined);
  assert.deepEqual(unplaced, [], "add the new file or folder to LAYERS in test/layers.test.ts (and the layout in docs/development.md)");
});

test("no import under src/ reaches a layer it may not know", () => {
  const files = sourceFiles(SRC);
  const wrong = forbiddenImports(files, (file) => readFileSync(path.join(SRC, file), "utf8"));
  assert.deepEqual(wrong, [], "these imports reach a layer they may not know (see STYLE.md, Layers: who may know whom)");
});

test("forbiddenImports() catches the imports this test exists for", () => {
  const sources: Record<string, string> = {
    "http/list-query.ts": "import type { Category } from '../events/event.js';\nimport { x } from './errors.js';",
    "log/logger.ts": "import type { Principal } from '../auth/principal.js';\nimport { base62 } from '../events/handlers.js';",
    "store/file-store.ts": "import { ApiError } from '../http/errors.js';",
    "http/node-adapter.ts": "import type { CoreResponse } from '../pipeline.js';",
    "store/log-replay.ts": "const m = await import('../auth/key-file.js');",
    "events/handlers.ts": "import { base62 } from '../lib/base62.js';\nimport { ApiError } from '../http/errors.js';",
    "lib/fs/replace-file.ts": "import { crc32 } from '../crc32.js';\nimport { StoreUnavailable } from '../../store/store-errors.js';",
    "search/search-slots.ts": "import type { StoredEvent } from '../events/event.js';\nimport { EventState } from '../store/views/served-event.js';",
    "search/search-index.ts": "import { ApiError } from '../http/errors.js';\nimport { toStored } from '../events/handlers.js';",
    "lib/json-bytes.ts": "import { searchWords } from '../search/search-words.js';",
  };
  assert.deepEqual(forbiddenImports(Object.keys(sources), (file) => sources[file]!), [
    "http/list-query.ts → events/event.ts",
    "log/logger.ts → events/handlers.ts",
    "store/file-store.ts → http/errors.ts",
    "http/node-adapter.ts → pipeline.ts",
    "store/log-replay.ts → auth/key-file.ts",
    "lib/fs/replace-file.ts → store/store-errors.ts",
    "search/search-slots.ts → store/views/served-event.ts",
    "search/search-index.ts → http/errors.ts",
    "search/search-index.ts → events/handlers.ts",
    "lib/json-bytes.ts → search/search-words.ts",
  ]);
});

test("every exception still names an import that exists", () => {
  const files = sourceFiles(SRC);
  for (const exception of EXCEPTIONS) {
    const used = files.some((file) => exception.from.test(file) && importsOf(readFileSync(path.join(SRC, file), "utf8")).some((specifier) => resolve(file, specifier) === exception.to));
    assert.ok(used, `the exception ${exception.from} → ${exception.to} (${exception.why}) is no longer needed: remove it`);
  }
});

/**
 * The rooms of store/ (STYLE.md: store/views/ shared, one engine per room: store/file/, store/postgres/ and
 * store/memory/; and store/write/, the write path the stores share) and the rooms each may not know: the views, the
 * record format and the store interface know no engine and not the write path that feeds them; the write path knows
 * no engine; an engine never knows another. A room no list names (the views, records/, the top of store/) may be
 * known by any room.
 */
const STORE_ROOMS: readonly { room: string; mayNotKnow: readonly string[] }[] = [
  { room: "store/", mayNotKnow: ["store/write/", "store/file/", "store/postgres/", "store/memory/"] },
  { room: "store/views/", mayNotKnow: ["store/write/", "store/file/", "store/postgres/", "store/memory/"] },
  { room: "store/records/", mayNotKnow: ["store/write/", "store/file/", "store/postgres/", "store/memory/"] },
  { room: "store/write/", mayNotKnow: ["store/file/", "store/postgres/", "store/memory/"] },
  { room: "store/file/", mayNotKnow: ["store/postgres/", "store/memory/"] },
  { room: "store/postgres/", mayNotKnow: ["store/file/", "store/memory/"] },
  { room: "store/memory/", mayNotKnow: ["store/file/", "store/postgres/"] },
];

/** The room of a path under src/store/: its folder ("store/file/"), or "store/" for the files at the top. */
function roomOf(file: string): string {
  const parts = file.split("/");
  return parts.length > 2 ? `${parts[0]}/${parts[1]}/` : `${parts[0]}/`;
}

/** Imports from one room of store/ into a room it may not know, as "from → to". */
function roomCrossings(files: readonly string[], read: (file: string) => string): string[] {
  const wrong: string[] = [];
  for (const file of files) {
    if (!file.startsWith("store/")) continue;
    const rule = STORE_ROOMS.find((entry) => entry.room === roomOf(file));
    if (rule === undefined) continue;
    for (const specifier of importsOf(read(file))) {
      const target = resolve(file, specifier);
      if (target.startsWith("store/") && rule.mayNotKnow.includes(roomOf(target))) wrong.push(`${file} → ${target}`);
    }
  }
  return wrong;
}

test("every folder under src/store/ is a room with its rules", () => {
  const rooms = new Set(sourceFiles(SRC).filter((file) => file.startsWith("store/")).map(roomOf));
  const unplaced = [...rooms].filter((room) => !STORE_ROOMS.some((entry) => entry.room === room));
  assert.deepEqual(unplaced, [], "add the new folder to STORE_ROOMS in test/layers.test.ts (and the layout in docs/development.md)");
});

test("the views, the records and the store interface know no engine nor the write path, the write path knows no engine, and no engine knows another", () => {
  assert.deepEqual(roomCrossings(sourceFiles(SRC), (file) => readFileSync(path.join(SRC, file), "utf8")), []);
});

test("roomCrossings() catches an engine reaching into another, and the views or the write path reaching into an engine", () => {
  const sources: Record<string, string> = {
    "store/postgres/postgres-store.ts": "import { replayLog } from '../file/log-replay.js';\nimport { WriteQueue } from '../write/write-queue.js';",
    "store/file/file-store.ts": "import { connect } from '../postgres/client.js';\nimport { LogRecord } from '../records/jsonl-record.js';",
    "store/memory/memory-store.ts": "import { EventIndex } from '../views/event-index.js';\nimport { FileStore } from '../file/file-store.js';",
    "store/write/write-queue.ts": "import { LogRecord } from '../records/jsonl-record.js';\nimport type { FileSystemSeam } from '../file/file-system.js';",
    "store/views/event-index.ts": "import { MemoryStore } from '../memory/memory-store.js';\nimport type { WriteQueue } from '../write/write-queue.js';",
    "store/records/jsonl-record.ts": "import { x } from '../postgres/log-table.js';",
    "store/event-store.ts": "import type { FileStore } from './file/file-store.js';\nimport type { Roster } from './views/roster.js';",
  };
  assert.deepEqual(roomCrossings(Object.keys(sources), (file) => sources[file]!), [
    "store/postgres/postgres-store.ts → store/file/log-replay.ts",
    "store/file/file-store.ts → store/postgres/client.ts",
    "store/memory/memory-store.ts → store/file/file-store.ts",
    "store/write/write-queue.ts → store/file/file-system.ts",
    "store/views/event-index.ts → store/memory/memory-store.ts",
    "store/views/event-index.ts → store/write/write-queue.ts",
    "store/records/jsonl-record.ts → store/postgres/log-table.ts",
    "store/event-store.ts → store/file/file-store.ts",
  ]);
});

/**
 * What each room of store/ may import from search/ (STORE_ROOMS' rooms; a room not listed may import any of it). The
 * shared views hold the index and read its postings, so they use its parts; the file engine starts the index's build
 * from its log through one door, search-log-build.ts (startSearchLogBuild and the SearchLogBuild it returns), and
 * hands the result to the views; the PostgreSQL and memory engines, the write path, the record format and the store
 * interface need no search.
 */
const SEARCH_ENTRIES: readonly { room: string; may: readonly string[] }[] = [
  { room: "store/", may: [] },
  { room: "store/records/", may: [] },
  { room: "store/write/", may: [] },
  { room: "store/file/", may: ["search/search-log-build.ts"] },
  { room: "store/postgres/", may: [] },
  { room: "store/memory/", may: [] },
];

/** Imports from a room of store/ into a module of search/ that SEARCH_ENTRIES does not let it use, as "from → to". */
function searchReaches(files: readonly string[], read: (file: string) => string): string[] {
  const wrong: string[] = [];
  for (const file of files) {
    if (!file.startsWith("store/")) continue;
    const rule = SEARCH_ENTRIES.find((entry) => entry.room === roomOf(file));
    if (rule === undefined) continue;
    for (const specifier of importsOf(read(file))) {
      const target = resolve(file, specifier);
      if (target.startsWith("search/") && !rule.may.includes(target)) wrong.push(`${file} → ${target}`);
    }
  }
  return wrong;
}

test("store/ holds no search code: no module of store/ is named after search", () => {
  const named = sourceFiles(SRC).filter((file) => file.startsWith("store/") && /(^|\/|-)search-/.test(file.slice(file.lastIndexOf("/"))));
  assert.deepEqual(named, [], "search code lives in src/search/ (see LAYERS)");
});

test("the file engine reaches search/ only through search-log-build.ts; the other engines, the write path, the records and the interface not at all", () => {
  assert.deepEqual(searchReaches(sourceFiles(SRC), (file) => readFileSync(path.join(SRC, file), "utf8")), []);
});

test("searchReaches() catches the file engine reaching into the build's parts, and the PostgreSQL engine into search", () => {
  const sources: Record<string, string> = {
    "store/file/file-store.ts": "import { startSearchLogBuild } from '../../search/search-log-build.js';\nimport { LogTermCollector } from '../../search/search-log-terms.js';",
    "store/postgres/postgres-store.ts": "import { queryWords } from '../../search/search-words.js';",
    "store/views/event-index.ts": "import { SearchIndex } from '../../search/search-index.js';",
  };
  assert.deepEqual(searchReaches(Object.keys(sources), (file) => sources[file]!), [
    "store/file/file-store.ts → search/search-log-terms.ts",
    "store/postgres/postgres-store.ts → search/search-words.ts",
  ]);
});
