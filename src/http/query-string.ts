// Checks that a query string is valid percent-encoded UTF-8 (API.md §5) before any route reads it with URLSearchParams.
import { ApiError } from './errors.js';
import { redactKeys } from './redact-keys.js';
import { clip } from '../lib/clip.js';

/**
 * Throws a 400 `bad_request` naming the first parameter of `query` (the raw string after `?`) whose name or value
 * is not valid percent-encoding of UTF-8 (`q=50%`, `q=%zz`, `category=%E0%A4`). URLSearchParams would read such
 * bytes as text (a literal `%`, or U+FFFD), so a search or a filter would quietly answer for something not asked.
 */
export function checkQueryEncoding(query: string): void {
  // The common query has no escape at all: nothing to decode.
  if (query.indexOf('%') === -1) return;
  for (const pair of query.split('&')) {
    if (pair.indexOf('%') === -1) continue;
    const eq = pair.indexOf('=');
    const rawName = eq === -1 ? pair : pair.slice(0, eq);
    const rawValue = eq === -1 ? '' : pair.slice(eq + 1);
    const name = decoded(rawName);
    if (name === undefined) {
      throw new ApiError('bad_request', `Query parameter name ${quoted(redactKeys(rawName))} is not valid percent-encoded UTF-8; write a literal % as %25.`);
    }
    if (decoded(rawValue) === undefined) {
      // A key sent in the URL (`key=`) is never echoed, even broken.
      const shown = name === 'key' ? '' : `, got ${quoted(redactKeys(rawValue))}`;
      throw new ApiError('bad_request', `Query parameter ${quoted(name)} is not valid percent-encoded UTF-8${shown}; write a literal % as %25.`);
    }
  }
}

/** `text` decoded as a form value (`+` is a space), or undefined when its escapes are broken or not UTF-8. */
function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

function quoted(text: string): string {
  return JSON.stringify(clip(text));
}

/**
 * The first parameter name of `query` (the raw string after `?`, already checked by checkQueryEncoding), decoded,
 * quoted and shortened for a message: `"foo"` for `foo=1&bar=2`. A name shaped like an API key is redacted.
 */
export function firstParameterName(query: string): string {
  const pair = query.split('&').find((each) => each !== '') ?? '';
  const eq = pair.indexOf('=');
  const name = decoded(eq === -1 ? pair : pair.slice(0, eq)) ?? '';
  return quoted(redactKeys(name));
}
