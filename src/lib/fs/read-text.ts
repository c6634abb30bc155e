// A small file the service owns (keys.json, webhooks.json, LOCK), read whole: undefined when it does not exist, and a
// folder in its place named as such (node's EISDIR error names no path, so a start refused one said only "EISDIR").
import * as fs from 'node:fs';
import { errorCode } from '../error-code.js';

/** The file's text; undefined when there is none. */
export async function readTextIfPresent(file: string): Promise<string | undefined> {
  try {
    return await fs.promises.readFile(file, 'utf8');
  } catch (error) {
    return absentOrThrow(file, error);
  }
}

/** readTextIfPresent(), synchronously. */
export function readTextIfPresentSync(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    return absentOrThrow(file, error);
  }
}

function absentOrThrow(file: string, error: unknown): undefined {
  if (errorCode(error) === 'ENOENT') return undefined;
  if (errorCode(error) === 'EISDIR') throw Object.assign(new Error(`${file} is a folder where this file belongs: move it away`), { code: 'EISDIR' });
  throw error;
}
