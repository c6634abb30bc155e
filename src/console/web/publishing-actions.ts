// The publishing moves of API.md §14 as buttons: submit (or publish), withdraw, cancel with a reason, restore,
// and for admins approve and reject with a reason. Each says in words what the server did.
import { h } from './dom.js';
import { ApiProblem } from './problem.js';
import { askReason } from './reason-dialog.js';
import { movesFor, type Move, type OwnedEvent } from './roles.js';
import { outcomeSentence, statusOf, submitLabel } from './status.js';
import type { Publishing } from './types.js';
import type { ConsoleContext } from './context.js';

/** Refusals that say the thing changed or went since it was shown: a dialog's second try would meet the same. */
const OUTDATED: ReadonlySet<string> = new Set(['precondition_failed', 'conflict', 'not_found', 'forbidden']);

/** What the moves read of an event or a series. */
export interface Publishable extends Publishing, OwnedEvent {
  id: string;
  title: string;
  registered_count?: number;
}

/** What a reviewer approves of an event or a series: its content as a list's row holds it (a series' rule too); a status moved meanwhile is the server's to refuse (409), in its words. */
const REVIEWED = ['title', 'description', 'category', 'location', 'start_time', 'end_time', 'capacity', 'recurrence', 'time_zone', 'exdates'] as const;

export interface MoveOptions {
  kind: 'event' | 'series';
  /** The ETag it was read with, sent as If-Match (a page); undefined in lists. */
  etag?: string | null;
  /** What each button's name ends with (`Approve Chess club, Tue 12 Jan 2027 18:00`), for lists where every row has the same buttons. */
  named?: string;
  /** After a move, with the item as the server answered and a sentence saying what happened. */
  done(updated: Publishable, outcome: string): void;
  /** A failed move (not one refused inside a reason dialog, which shows its own, but for a 412, which closes it). */
  failed(error: unknown, move: Move): void;
}

/** What a move does, as the words "so it was not …" end with. */
export function movedWord(ctx: Pick<ConsoleContext, 'me' | 'approval'>, move: Move): string {
  switch (move) {
    case 'submit':
      return submitLabel(ctx.me.role, ctx.approval) === 'Publish' ? 'published' : 'submitted for approval';
    case 'withdraw':
      return 'withdrawn';
    case 'cancel':
      return 'cancelled';
    case 'restore':
      return 'restored';
    case 'approve':
      return 'approved';
    case 'reject':
      return 'sent back';
  }
}

/** The words of a move's button. */
export function moveLabel(ctx: Pick<ConsoleContext, 'me' | 'approval'>, move: Move, kind: 'event' | 'series'): string {
  switch (move) {
    case 'submit':
      return submitLabel(ctx.me.role, ctx.approval);
    case 'cancel':
      return kind === 'event' ? 'Cancel event' : 'Cancel series';
    case 'withdraw':
      return 'Withdraw';
    case 'restore':
      // Where an organizer's events wait for approval, a restored one waits too: the button says so before it is pressed.
      return submitLabel(ctx.me.role, ctx.approval) === 'Publish' ? 'Restore' : 'Restore and submit for approval';
    case 'approve':
      return 'Approve';
    case 'reject':
      return 'Reject';
  }
}

/** The buttons of the moves `ctx.me` may make on `item`; none for who may not manage it. */
export function moveButtons(ctx: ConsoleContext, item: Publishable, options: MoveOptions): HTMLButtonElement[] {
  const path = `/${options.kind === 'event' ? 'events' : 'series'}/${encodeURIComponent(item.id)}`;
  const headers: Record<string, string> = options.etag === undefined || options.etag === null ? {} : { 'If-Match': options.etag };
  const it = options.kind === 'event' ? 'It' : 'Every occurrence that has not started';

  async function send(method: string, target: string, body: unknown, sent: Record<string, string> = headers): Promise<Publishable> {
    return (await ctx.api.json<Publishable>(method, target, { body, headers: sent })).data;
  }

  /**
   * What an approval sends: a page's If-Match; for a list's row (read without ETags, and pending items are in no
   * change feed to redraw it), the item read again and refused unless it is what the row shows, then its ETag: an
   * approval is of what the reviewer saw.
   */
  async function approvedAsShown(): Promise<Record<string, string>> {
    if (options.etag !== undefined) return headers;
    const now = await ctx.api.json<Publishable>('GET', path);
    const field = (of: Publishable, name: string): string | undefined => JSON.stringify((of as unknown as Record<string, unknown>)[name]);
    if (REVIEWED.some((name) => field(now.data, name) !== field(item, name))) {
      throw new ApiProblem(412, 'precondition_failed', 'It changed since it was read.');
    }
    return now.etag === null ? {} : { 'If-Match': now.etag };
  }

  /** Runs a move; resolves with the answer, or undefined when the person kept things as they were. */
  async function perform(move: Move): Promise<Publishable | undefined> {
    switch (move) {
      case 'submit':
      case 'restore':
        return send('PUT', path, { status: 'published' });
      case 'withdraw':
        return send('PUT', path, { status: 'draft' });
      case 'approve':
        return send('POST', `${path}/approve`, {}, await approvedAsShown());
      case 'cancel':
      case 'reject': {
        let answer: Publishable | undefined;
        // Refused because it changed or went after the page read it (412 edited, 409 moved, 404 deleted, 403 given to
        // another organizer): sending again from the dialog cannot help, so the dialog closes and the page (or the list)
        // says what happened and reads it again, as for a move without a dialog.
        let outdated: ApiProblem | undefined;
        const sendOrClose = async (body: unknown): Promise<void> => {
          try {
            answer = await send(move === 'cancel' ? 'PUT' : 'POST', move === 'cancel' ? path : `${path}/reject`, body);
          } catch (error) {
            if (!(error instanceof ApiProblem && OUTDATED.has(error.code))) throw error;
            outdated = error;
          }
        };
        const registered = item.registered_count === undefined ? '' : ` Its ${item.registered_count} registration${item.registered_count === 1 ? ' is' : 's are'} kept.`;
        const asked = await askReason(
          move === 'cancel'
            ? {
                question: `Cancel “${item.title}”? ${it} stays in lists and calendars, marked as cancelled, and takes no new registrations.${registered}`,
                field: 'cancellation_reason',
                hint: 'Optional: shown with the event, in the list and in calendars (at most 500 characters).',
                yes: moveLabel(ctx, 'cancel', options.kind),
                optional: true,
                send: (reason) => sendOrClose({ status: 'cancelled', ...(reason === undefined ? {} : { cancellation_reason: reason }) }),
              }
            : {
                question: `Send “${item.title}” back to its organizer? It becomes a draft again, with your reason as the reviewer's note.`,
                field: 'reason',
                hint: 'Required: tell the organizer what to change (at most 500 characters).',
                yes: 'Reject',
                optional: false,
                send: (reason) => sendOrClose({ reason: reason ?? '' }),
              },
        );
        if (outdated !== undefined) throw outdated;
        return asked ? answer : undefined;
      }
    }
  }

  const outcome = (move: Move, updated: Publishable): string => {
    const title = updated.title;
    if (move === 'withdraw') return `“${title}” is withdrawn: a draft again, seen only by its organizer and administrators.`;
    if (move === 'reject') return `“${title}” is sent back to its organizer with your note.`;
    // A series' approval passes by an occurrence edited on its own (API.md §14): that one waits on its own.
    if (move === 'approve' && options.kind === 'series') return `“${title}” is approved: everyone can see its occurrences now, except any edited on its own, which waits for its own approval.`;
    if (move === 'approve') return `“${title}” is approved: everyone can see it now.`;
    return outcomeSentence(title, statusOf(updated));
  };

  return movesFor(ctx.me, item).map((move) => {
    const label = moveLabel(ctx, move, options.kind);
    const button = h(
      'button',
      { type: 'button', class: move === 'cancel' || move === 'reject' ? 'danger' : move === 'withdraw' || move === 'restore' ? null : 'primary', 'aria-label': options.named === undefined ? null : `${label} ${options.named}` },
      label,
    );
    button.addEventListener('click', () => {
      button.disabled = true;
      perform(move).then(
        (updated) => {
          button.disabled = false;
          // Kept as it was (the dialog's Keep it, or Escape): back to the button, which was disabled while it was open.
          if (updated === undefined) return button.focus();
          const sentence = outcome(move, updated);
          ctx.announce(sentence);
          if (move !== 'cancel') ctx.queueChanged();
          options.done(updated, sentence);
        },
        (error: unknown) => {
          button.disabled = false;
          options.failed(error, move);
        },
      );
    });
    return button;
  });
}
