// The create and edit forms: problems in the form's words beside each field; a new event may repeat (a series, API.md §11)
// and may be saved as a draft (API.md §14); what the console can check is checked before sending. An edit sends If-Match;
// when someone else changes the event it holds, the conflict screen shows theirs beside what was typed, and loses nothing unasked.
import { h, replace } from './dom.js';
import { ApiProblem, describeProblem } from './problem.js';
import { formAlert, formWords, hideAlert, onSubmit, showAlert, showFailure, type Field } from './fields.js';
import { eventFields, type EventFieldValues } from './event-fields.js';
import { localProblems } from './event-checks.js';
import { compareVersions, conflictPanel, formValuesOf, readForm, writeForm } from './conflict-view.js';
import { repeatSection } from './repeat-section.js';
import { zoneNote } from './zone-note.js';
import { retryKey } from './retry-key.js';
import { outcomeSentence, statusOf, submitLabel } from './status.js';
import { statusNotice } from './status-marks.js';
import type { CampusEvent } from './types.js';
import type { ConsoleContext, Screen } from './context.js';

/** The form for a new event (`existing` undefined) or for editing one, with the ETag it was read with. */
export function eventForm(ctx: ConsoleContext, existing?: { event: CampusEvent; etag: string | null }): Screen {
  /** The version the form's edits are made on, and its ETag: as read, then as taken on from someone else's change. */
  let editing = existing?.event;
  let etag = existing?.etag ?? null;
  /** Someone else's newer version, while the conflict screen waits for a choice: saving stops until then. */
  let pending: { event: CampusEvent; etag: string | null; refused: boolean } | undefined;
  const form = eventFields(ctx);
  const repeats = editing === undefined ? repeatSection(form.start.control as HTMLInputElement, ctx.zones.shown) : undefined;
  const fields: Field[] = repeats === undefined ? form.fields : [...form.fields, repeats.field];
  const words = formWords(fields, ctx.zones.shown);
  const alert = formAlert();
  if (editing !== undefined) form.fill(editing as EventFieldValues);

  const conflictSlot = h('div');
  // What a choice on the conflict screen did, in words, until the next save.
  const done = h('p', { class: 'done', hidden: true, tabindex: -1 });

  // A new event: published at once, or submitted where an organizer's wait for approval; or kept as a draft.
  const waits = ctx.approval === 'required' && ctx.me.role !== 'admin';
  const submit = h('button', { type: 'submit', class: 'primary' }, editing !== undefined ? 'Save changes' : waits ? 'Submit for approval' : 'Create event');
  // The form's second button: a new event kept as a draft; a draft's changes saved and sent on in one request
  // (submitted for approval, or published), rather than saved here and submitted from its page.
  const second =
    editing === undefined
      ? h('button', { type: 'submit' }, 'Save as draft')
      : statusOf(editing) === 'draft'
        ? h('button', { type: 'submit' }, `Save and ${submitLabel(ctx.me.role, ctx.approval).toLowerCase()}`)
        : null;
  // With Repeats on, the button names what it makes: "Create series (8 occurrences)", counted by the preview.
  repeats?.watch((repeating, count) => {
    const series = `${waits ? 'Submit series for approval' : 'Create series'}${count === undefined ? '' : ` (${count} occurrence${count === 1 ? '' : 's'})`}`;
    submit.textContent = repeating ? series : waits ? 'Submit for approval' : 'Create event';
  });
  /** The button the last save was pressed with: a save sent again (after someone else's change) goes as it was asked for. */
  let pressed = submit;
  // A create retried after its answer was lost is answered again, not made twice (its form is left once it succeeds).
  const createKey = retryKey();
  const element = h(
    'form',
    { novalidate: true, 'aria-labelledby': 'screen-title' },
    zoneNote(ctx),
    // A draft returned for changes shows the reviewer's note while it is edited (a cancelled event, its reason).
    editing === undefined ? null : statusNotice(editing, 'event'),
    alert,
    conflictSlot,
    done,
    editing?.series_id === undefined
      ? null
      : h('p', { class: 'note' }, 'This event is one occurrence of a series: saving changes it alone, and later changes to the series pass it by. ', h('a', { href: `#/series/${editing.series_id}` }, 'Edit the whole series instead')),
    form.fields.map((item) => item.row),
    repeats?.element,
    h('div', { class: 'actions' }, submit, second, h('a', { href: editing === undefined ? '#/events' : `#/events/${editing.id}`, class: 'button' }, 'Cancel')),
  );
  // Registered before onSubmit's listener, so the button pressed is known when it saves.
  element.addEventListener('submit', (event) => {
    pressed = second !== null && (event as SubmitEvent).submitter === second ? second : submit;
    if (second !== null) second.disabled = true;
  });
  onSubmit(element, fields, alert, submit, save);

  async function save(): Promise<void> {
    done.hidden = true;
    if (pending !== undefined) {
      // A known conflict: sending again would be refused (412) or, worse, overwrite theirs; the choice comes first.
      const panel = conflictSlot.querySelector<HTMLElement>('.conflict');
      showAlert(alert, 'Not saved: choose first how to go on from their change, below.');
      panel?.focus();
      return;
    }
    try {
      const rule = repeats?.rrule();
      const status = pressed !== second ? {} : { status: editing === undefined ? 'draft' : 'published' };
      // An edit sends only what the person changed (a partial update, API.md §5): what they left alone stays as stored.
      const body = editing === undefined ? form.body(false) : form.changes(editing);
      // What the console can judge itself never goes out to be refused: the same sentences, without a 400.
      const problems = localProblems(body, editing);
      if (problems.length > 0) throw new ApiProblem(400, 'validation_failed', 'The event is not valid.', problems);
      if (editing === undefined && rule !== undefined) {
        const series = { ...body, ...status, time_zone: ctx.zones.shown, recurrence: rule, exdates: repeats!.exdates() };
        const answer = await ctx.api.json<{ id: string; title: string; status?: CampusEvent['status'] }>('POST', '/series', { body: series, headers: createKey.header('/series', series) });
        ctx.announce(`Created the series. ${outcomeSentence(answer.data.title, statusOf(answer.data))}`);
        ctx.navigate(`#/series/${answer.data.id}`, { showMessage: true });
      } else if (editing === undefined) {
        const created = { ...body, ...status };
        const answer = await ctx.api.json<CampusEvent>('POST', '/events', { body: created, headers: createKey.header('/events', created) });
        ctx.announce(`Created. ${outcomeSentence(answer.data.title, statusOf(answer.data))}`);
        if (statusOf(answer.data) !== 'published') ctx.queueChanged();
        ctx.navigate(`#/events/${answer.data.id}`, { showMessage: true });
      } else {
        // If-Match: an event someone changed meanwhile is reported (412), never overwritten.
        const headers: Record<string, string> = etag === null ? {} : { 'If-Match': etag };
        const answer = await ctx.api.json<CampusEvent>('PUT', `/events/${encodeURIComponent(editing.id)}`, { body: { ...body, ...status }, headers });
        if ('status' in status) ctx.queueChanged();
        ctx.announce('status' in status ? `Saved. ${outcomeSentence(answer.data.title, statusOf(answer.data))}` : `Saved “${answer.data.title}”.`);
        ctx.navigate(`#/events/${editing.id}`, { showMessage: true });
      }
    } catch (error) {
      reportFailure(error);
    } finally {
      if (second !== null) second.disabled = false;
    }
  }

  function reportFailure(error: unknown): void {
    if (showFailure(error, fields, alert, words, 'The event was not saved')) return;
    if (error instanceof ApiProblem && error.code === 'precondition_failed') {
      void look(true);
      return;
    }
    showAlert(alert, describeProblem(error));
    alert.focus();
  }

  /**
   * Reads the event as stored now and compares it with the version the form started from and with what is typed:
   * someone else's change to a field on the form opens the conflict screen; anything else (a seat count) is taken on
   * silently. `refused`: a save was refused (412), so the person is waiting on the answer and gets the focus.
   */
  async function look(refused: boolean): Promise<void> {
    if (editing === undefined) return;
    try {
      const answer = await ctx.api.json<CampusEvent>('GET', `/events/${encodeURIComponent(editing.id)}`);
      if (!element.isConnected) return;
      const hadFocus = conflictSlot.contains(document.activeElement);
      // A live look while a refused save's screen is up keeps it a refusal's (its Keep saves at once).
      pending = { event: answer.data, etag: answer.etag, refused: refused || pending?.refused === true };
      if (!draw()) {
        // Nothing on the form differs from theirs: what was typed applies on top of their version as it stands.
        adopt(answer.data, answer.etag);
        // A refused save is sent once more on the new version: it cannot overwrite anything of theirs.
        if (refused) element.requestSubmit(pressed.hidden ? submit : pressed);
        return;
      }
      hideAlert(alert);
      const panel = conflictSlot.querySelector<HTMLElement>('.conflict');
      if (refused || hadFocus) panel?.focus();
      if (!hadFocus) ctx.announce(refused ? 'Not saved: someone else changed this event. Compare their version with yours, then choose.' : 'Someone else has just changed this event. Compare their version with yours, then choose.');
    } catch (error) {
      const gone = error instanceof ApiProblem && error.status === 404;
      showAlert(alert, gone ? 'Someone else has just deleted this event, or it is no longer yours to see: it cannot be saved. What you typed is still in the form, to copy.' : describeProblem(error));
      if (refused) alert.focus();
    }
  }

  /**
   * Draws the conflict screen for `pending` from what the form holds now (again after each keystroke, so its rows and
   * its choices always judge what is typed); false when nothing on the form differs from theirs.
   */
  function draw(): boolean {
    if (pending === undefined || editing === undefined) return false;
    const { event: theirVersion, etag: theirEtag, refused } = pending;
    const zone = ctx.zones.shown;
    const [base, mine, theirs] = [formValuesOf(editing, zone), readForm(form.fields), formValuesOf(theirVersion, zone)];
    const comparison = compareVersions(form.fields.map((item) => item.name), base, mine, theirs);
    if (comparison.rows.length === 0) return false;
    const keep = (): void => {
      adopt(theirVersion, theirEtag);
      writeForm(form.fields, comparison.merged);
      if (refused) return element.requestSubmit(pressed.hidden ? submit : pressed);
      said('Your changes are kept on top of their version. Save when you are done.');
    };
    const useTheirs = (): void => {
      adopt(theirVersion, theirEtag);
      form.fill(theirVersion);
      said('The form now shows their version; what you had typed is discarded.');
    };
    replace(conflictSlot, conflictPanel({ what: 'event', fields: form.fields, comparison, mine, theirs, zone, refused, keep, useTheirs }));
    return true;
  }
  element.addEventListener('input', (event) => {
    // Typed to agree with theirs everywhere: nothing is left to choose.
    if (pending !== undefined && !conflictSlot.contains(event.target as Node) && !draw()) adopt(pending.event, pending.etag);
  });

  /** The form's edits now apply to `event`, read with `newEtag`; the conflict screen, if any, is done with. */
  function adopt(event: CampusEvent, newEtag: string | null): void {
    editing = event;
    etag = newEtag;
    pending = undefined;
    // Submitted (or published) elsewhere meanwhile: it is no draft to send on, and a save keeps its new status.
    if (second !== null && existing !== undefined) second.hidden = statusOf(event) !== 'draft';
    conflictSlot.replaceChildren();
  }

  function said(sentence: string): void {
    // A choice made answers the "choose first" of a save pressed before it: that sentence goes.
    hideAlert(alert);
    done.textContent = sentence;
    done.hidden = false;
    done.focus();
    ctx.announce(sentence);
  }

  alert.tabIndex = -1;
  return {
    title: editing === undefined ? 'New event' : `Edit “${editing.title}”`,
    element: h('section', {}, element),
    onChange(entry) {
      // A deletion in the feed may be an event that left public view: the look finds out which.
      if (editing !== undefined && entry.id === editing.id) void look(false);
    },
  };
}
