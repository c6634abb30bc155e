// The layering of src/ (STYLE.md "Layers: who may know whom", README "Development"): imports go down or sideways,
// never up, and each layer imports only the layers it may know.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const SRC = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "src");

/**
 * The layers, top to bottom (folders end in "/"), and which layers each may import. Arrows go down or sideways,
 * never up: protocol, keys, limits and logging know no domain (the HTTP edge maps the store's errors, the key file
 * takes the data folder's lock in lib/fs/: both down); the store knows no HTTP and no keys.
 */
const LAYERS: readonly { name: string; units: readonly string[]; mayKnow: readonly string[] }[] = [
  { name: "doors", units: ["server.ts", "cli.ts", "cli-postgres.ts", "index.ts"], mayKnow: ["doors", "wiring", "domain", "edge", "store", "lib"] },
  { name: "wiring", units: ["app.ts", "pipeline.ts", "config.ts", "start-server.ts"], mayKnow: ["wiring", "domain", "edge", "store", "lib"] },
  { name: "domain", units: ["events/", "registrations/", "feeds/", "series/", "console/", "openapi/", "webhooks/"], mayKnow: ["domain", "edge", "store", "lib"] },
  { name: "edge", units: ["http/", "auth/", "limits/", "log/"], mayKnow: ["edge", "store", "lib"] },
  { name: "store", units: ["store/"], mayKnow: ["store", "lib"] },
  { name: "lib", units: ["lib/"], mayKnow: ["lib"] },
];

/** Imports that break the layers on purpose, each with its reason. `from` and `to` are paths under src/. */
const EXCEPTIONS: readonly { from: RegExp; to: string; why: string }[] = [
  {
    from: /^store\//,
    to: "events/event.ts",
    why: "the store keeps and indexes event records, so it knows their shape (StoredEvent, categories); never HTTP or keys",
  },
];

/** The layer of a path under src/ ("events/handlers.ts", "app.ts"), or undefined when no layer names it. */
function layerOf(file: string): (typeof LAYERS)[number] | undefined {
  const slash = file.indexOf("/");
  const unit = slash === -1 ? file : file.slice(0, slash + 1);
  return LAYERS.find((layer) => layer.units.includes(unit));
}

function sourceFiles(dir: string, prefix = ""): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) files.push(...sourceFiles(path.join(dir, entry.name), `${prefix}${entry.name}/`));
    else if (entry.name.endsWith(".ts")) files.push(prefix + entry.name);
  }
  return files.sort();
}

/** The relative specifiers a module imports or re-exports, static or dynamic, type-only included. */
function importsOf(source: string): string[] {
  const specifiers: string[] = [];
  const patterns = [/\b(?:import|export)\s[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g, /\bimport\s*['"]([^'"]+)['"]/g, /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g];
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) specifiers.push(match[1]!);
  return specifiers.filter((specifier) => specifier.startsWith("."));
}

/** A relative `.js` specifier of `file` as the `.ts` path under src/ it names. */
function resolve(file: string, specifier: string): string {
  return path.posix.join(path.posix.dirname(file), specifier).replace(/\.js$/, ".ts");
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
  assert.deepEqual(unplaced, [], "add the new file or folder to LAYERS in test/layers.test.ts (and the README's layout)");
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
  };
  assert.deepEqual(forbiddenImports(Object.keys(sources), (file) => sources[file]!), [
    "http/list-query.ts → events/event.ts",
    "log/logger.ts → events/handlers.ts",
    "store/file-store.ts → http/errors.ts",
    "http/node-adapter.ts → pipeline.ts",
    "store/log-replay.ts → auth/key-file.ts",
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
 * Modules only the file engine uses (the JSON-lines file, replay, compaction, backup): the PostgreSQL
 * engine under store/postgres/ shares the views and the write queue, never these; and no other store module
 * knows the PostgreSQL engine.
 */
const FILE_ENGINE_ONLY = ["store/file/file-store.ts", "store/file/file-system.ts", "store/file/log-compaction.ts", "store/file/log-replay.ts", "store/file/log-backup.ts", "store/file/open-or-read-only.ts", "store/file/write-fully.ts", "store/file/history-read.ts"];

/** Imports that cross between the two engines, as "from → to". */
function engineCrossings(files: readonly string[], read: (file: string) => string): string[] {
  const wrong: string[] = [];
  for (const file of files) {
    if (!file.startsWith("store/")) continue;
    const postgres = file.startsWith("store/postgres/");
    for (const specifier of importsOf(read(file))) {
      const target = resolve(file, specifier);
      if (postgres ? FILE_ENGINE_ONLY.includes(target) : target.startsWith("store/postgres/")) wrong.push(`${file} → ${target}`);
    }
  }
  return wrong;
}

test("the PostgreSQL engine never imports the file engine's modules, and no other store module imports it", () => {
  const files = sourceFiles(SRC);
  for (const file of FILE_ENGINE_ONLY) assert.ok(files.includes(file), `${file} is still a module (update FILE_ENGINE_ONLY)`);
  assert.deepEqual(engineCrossings(files, (file) => readFileSync(path.join(SRC, file), "utf8")), []);
});

test("engineCrossings() catches an engine reaching into the other", () => {
  const sources: Record<string, string> = {
    "store/postgres/postgres-store.ts": "import { replayLog } from '../file/log-replay.js';\nimport { WriteQueue } from '../views/write-queue.js';",
    "store/file/file-store.ts": "import { connect } from '../postgres/client.js';",
    "store/views/write-queue.ts": "import { LogRecord } from '../records/jsonl-record.js';",
  };
  assert.deepEqual(engineCrossings(Object.keys(sources), (file) => sources[file]!), [
    "store/postgres/postgres-store.ts → store/file/log-replay.ts",
    "store/file/file-store.ts → store/postgres/client.ts",
  ]);
});
