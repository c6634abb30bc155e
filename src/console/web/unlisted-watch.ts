// A page showing a pending or draft event or series: no change feed carries it (API.md §14), so it looks each minute.
import { ApiProblem } from './problem.js';
import type { ConsoleContext } from './context.js';
import type { PublishStatus } from './types.js';

/** What the page drew last: its status, and the ETag of what it drew. */
export interface Drawn {
  status: PublishStatus | undefined;
  etag: string | null;
}

/**
 * While the page (`page`, in the document) shows a pending or draft item, reads `path` again each minute, and calls
 * `redraw` when it changed (another ETag) or went (404), so a rejection or an approval made elsewhere shows without a
 * reload; a look that fails leaves the page as it is. Returns the function that stops it (the page's dispose).
 */
export function watchUnlisted(ctx: ConsoleContext, path: string, page: HTMLElement, drawn: () => Drawn, redraw: () => void): () => void {
  const timer = setInterval(() => {
    const { status, etag } = drawn();
    if (status !== 'pending' && status !== 'draft') return;
    ctx.api.json('GET', path).then(
      (answer) => void (page.isConnected && answer.etag !== etag ? redraw() : undefined),
      (error: unknown) => void (page.isConnected && error instanceof ApiProblem && error.status === 404 ? redraw() : undefined),
    );
  }, 60_000);
  return () => clearInterval(timer);
}
