// The console's static files (API.md §10), read once at start and served from memory with a strong ETag.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** One file of the console, ready to send. */
export interface ConsoleAsset {
  body: string;
  contentType: string;
  /** A strong ETag: a hash of the bytes, so it changes exactly when the file does. */
  etag: string;
}

/** The console's files by name (`index.html`, `main.js`, ...). */
export type ConsoleAssets = ReadonlyMap<string, ConsoleAsset>;

/** The content types of the files the console is made of; other files in the folder are not served. */
export const CONSOLE_CONTENT_TYPES: Readonly<Record<string, string>> = Object.freeze({
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
});

/**
 * Where the built console lives: `web/` beside this module. Built, that is `dist/console/web/`,
 * which the Makefile fills (tsc output plus index.html and console.css) and npm packs.
 */
export const CONSOLE_DIR = fileURLToPath(new URL('./web/', import.meta.url));

/**
 * Reads every servable file of `dir` (not its subfolders) into memory. A missing folder gives an
 * empty map (the console then answers 404 and says why), so a server built without it still runs.
 */
export async function loadConsoleAssets(dir: string = CONSOLE_DIR): Promise<ConsoleAssets> {
  const assets = new Map<string, ConsoleAsset>();
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return assets;
    throw error;
  }
  for (const name of names.sort()) {
    const contentType = CONSOLE_CONTENT_TYPES[path.extname(name)];
    // Source files (`.ts`) and maps may sit beside the built files; only the three kinds above are the console.
    if (contentType === undefined) continue;
    assets.set(name, asset(await readFile(path.join(dir, name)), contentType));
  }
  return assets;
}

/** What the console reads about the server it runs on; only the console reads it, so the API's answers keep their shapes. */
export interface ConsoleSettings {
  /** The campus time zone (`--time-zone`), in which the console shows and takes dates and times by default. */
  timeZone: string;
  /** `--approval` (API.md §14), so the console words a submit as publishing at once or waiting for an admin. */
  approval?: 'off' | 'required';
}

/**
 * The assets plus `settings.json` (`{"time_zone": ..., "approval": ...}`, approval when known), made from the server's settings at start. A folder
 * without the console (no `index.html`) gets none, so it keeps answering the "run make build" 404.
 */
export function withConsoleSettings(assets: ConsoleAssets, settings: ConsoleSettings): ConsoleAssets {
  if (!assets.has('index.html')) return assets;
  const json = `${JSON.stringify({ time_zone: settings.timeZone, ...(settings.approval === undefined ? {} : { approval: settings.approval }) })}\n`;
  return new Map([...assets, ['settings.json', asset(Buffer.from(json), 'application/json; charset=utf-8')]]);
}

function asset(bytes: Buffer, contentType: string): ConsoleAsset {
  const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
  return { body: bytes.toString('utf8'), contentType, etag };
}
