// The create and edit forms: problems in the form's words beside each field; a new event may repeat (a series, API.md §11)
// and may be saved as a draft (API.md §14); an edit sends If-Match, and says at once when someone else changes the event it holds.
import { h } from './dom.js';
import { ApiProblem, describeProblem } from './problem.js';
import { clearProblems, formAlert, formWords, onSubmit, showAlert, showFailure, type Field } from './fields.js';
import { eventFields, type EventFieldValues } from './event-fields.js';
import { repeatSection } from './repeat-section.js';
import { zoneNote } from './zone-note.js';
import { outcomeSentence, statusOf } from './status.js';
import type { CampusEvent } from './types.js';
import type { ConsoleContext, Screen } from './context.js';

/** The fields of an event the form edits, for telling what someone else changed. */
const EDITED: (keyof CampusEvent)[] = ['title', 'category', 'location', 'start_time', 'end_time', 'capacity', 'description'];

/** The form for a new event (`existing` undefined) or for editing one, with the ETag it was read with. */
export function eventForm(ctx: ConsoleContext, existing?: { event: CampusEvent; etag: string | null }): Screen {
  let editing = existing?.event;
  let etag = existing?.etag ?? null;
  const form = eventFields(ctx);
  const repeats = editing === undefined ? repeatSection(form.start.control as HTMLInputElement, ctx.zones.shown) : undefined;
  const fields: Field[] = repeats === undefined ? form.fields : [...form.fields, repeats.field];
  const words = formWords(fields, ctx.zones.shown);
  const alert = formAlert();
  if (editing !== undefined) form.fill(editing as EventFieldValues);

  async function reload(): Promise<void> {
    if (editing === undefined) return;
    try {
      const answer = await ctx.api.json<CampusEvent>('GET', `/events/${encodeURIComponent(editing.id)}`);
      etag = answer.etag;
      editing = answer.data;
      form.fill(answer.data);
      clearProblems(fields);
      showAlert(alert, 'The form now shows the latest version of the event. Make your changes again and save.');
      fields[0]!.control.focus();
    } catch (error) {
      showAlert(alert, describeProblem(error));
    }
  }
  const reloadButton = (): HTMLElement => h('button', { type: 'button', onclick: () => void reload() }, 'Reload the event');

  // A new event: published at once, or submitted where an organizer's wait for approval; or kept as a draft.
  const waits = ctx.approval === 'required' && ctx.me.role !== 'admin';
  const submit = h('button', { type: 'submit', class: 'primary' }, editing !== undefined ? 'Save changes' : waits ? 'Submit for approval' : 'Create event');
  const draft = editing === undefined ? h('button', { type: 'submit' }, 'Save as draft') : null;
  // With Repeats on, the button names what it makes: "Create series (8 occurrences)", counted by the preview.
  repeats?.watch((repeating, count) => {
    const series = `${waits ? 'Submit series for approval' : 'Create series'}${count === undefined ? '' : ` (${count} occurrence${count === 1 ? '' : 's'})`}`;
    submit.textContent = repeating ? series : waits ? 'Submit for approval' : 'Create event';
  });
  let asDraft = false;
  const element = h(
    'form',
    { novalidate: true, 'aria-labelledby': 'screen-title' },
    zoneNote(ctx),
    alert,
    editing?.series_id === undefined
      ? null
      : h('p', { class: 'note' }, 'This event is one occurrence of a series: saving changes it alone, and later changes to the series pass it by. ', h('a', { href: `#/series/${editing.series_id}` }, 'Edit the whole series instead')),
    form.fields.map((item) => item.row),
    repeats?.element,
    h('div', { class: 'actions' }, submit, draft, h('a', { href: editing === undefined ? '#/events' : `#/events/${editing.id}`, class: 'button' }, 'Cancel')),
  );
  // Registered before onSubmit's listener, so the button pressed is known when it saves.
  element.addEventListener('submit', (event) => {
    asDraft = draft !== null && (event as SubmitEvent).submitter === draft;
    if (draft !== null) draft.disabled = true;
  });
  onSubmit(element, fields, alert, submit, save);

  async function save(): Promise<void> {
    try {
      const rule = repeats?.rrule();
      const status = asDraft ? { status: 'draft' } : {};
      if (editing === undefined && rule !== undefined) {
        const answer = await ctx.api.json<{ id: string; title: string; status?: CampusEvent['status'] }>('POST', '/series', { body: { ...form.body(false), ...status, time_zone: ctx.zones.shown, recurrence: rule, exdates: repeats!.exdates() } });
        ctx.announce(`Created the series. ${outcomeSentence(answer.data.title, statusOf(answer.data))}`);
        ctx.navigate(`#/series/${answer.data.id}`);
      } else if (editing === undefined) {
        const answer = await ctx.api.json<CampusEvent>('POST', '/events', { body: { ...form.body(false), ...status } });
        ctx.announce(`Created. ${outcomeSentence(answer.data.title, statusOf(answer.data))}`);
        if (statusOf(answer.data) !== 'published') ctx.queueChanged();
        ctx.navigate(`#/events/${answer.data.id}`);
      } else {
        // If-Match: an event someone changed meanwhile is reported (412), never overwritten.
        const headers: Record<string, string> = etag === null ? {} : { 'If-Match': etag };
        const answer = await ctx.api.json<CampusEvent>('PUT', `/events/${encodeURIComponent(editing.id)}`, { body: form.body(true), headers });
        ctx.announce(`Saved “${answer.data.title}”.`);
        ctx.navigate(`#/events/${editing.id}`);
      }
    } catch (error) {
      reportFailure(error);
    } finally {
      if (draft !== null) draft.disabled = false;
    }
  }

  function reportFailure(error: unknown): void {
    if (showFailure(error, fields, alert, words, 'The event was not saved')) return;
    if (error instanceof ApiProblem && error.code === 'precondition_failed') {
      showAlert(alert, h('p', {}, describeProblem(error), ' Reload it to see their version; your edits here will be replaced.'), reloadButton());
    } else {
      showAlert(alert, describeProblem(error));
    }
    // Keyboard users land on what to do next: the reload offer, else the message.
    (alert.querySelector('button') ?? alert).focus();
  }

  /** Someone else's change to the event being edited: name what changed, at once; a seat count alone changes nothing here. */
  async function noticeChange(deleted: boolean): Promise<void> {
    if (editing === undefined) return;
    if (deleted) return showAlert(alert, h('p', {}, 'Someone else has just deleted this event. Saving will fail; go back to the events.'));
    try {
      const answer = await ctx.api.json<CampusEvent>('GET', `/events/${encodeURIComponent(editing.id)}`);
      const changed = EDITED.filter((name) => answer.data[name] !== editing![name]);
      if (changed.length === 0 && answer.data.organizer.email === editing.organizer.email) {
        // A registration moved the seat count: nothing on the form is stale, so the new ETag is taken silently.
        etag = answer.etag;
        editing = answer.data;
        return;
      }
      const labels = changed.map((name) => words.label(name) ?? name).join(', ');
      showAlert(alert, h('p', {}, `Someone else has just changed this event${labels === '' ? '' : ` (${labels})`}. Saving now would be refused; reload it to see their version.`), reloadButton());
    } catch (error) {
      showAlert(alert, describeProblem(error));
    }
  }

  alert.tabIndex = -1;
  return {
    title: editing === undefined ? 'New event' : `Edit “${editing.title}”`,
    element: h('section', {}, element),
    onChange(entry) {
      if (editing !== undefined && entry.id === editing.id) void noticeChange(entry.deleted);
    },
  };
}
