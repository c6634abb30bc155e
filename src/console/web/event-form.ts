// The create and edit forms: the API's `details` beside each field; an edit sends If-Match and reports a conflict plainly.
import { h } from './dom.js';
import { ApiProblem, describeProblem } from './problem.js';
import { clearProblems, field, formAlert, hideAlert, showAlert, showProblems, type Field } from './fields.js';
import { fromLocalInput, timeZoneName, toLocalInput } from './format.js';
import { CATEGORIES, type CampusEvent } from './types.js';
import type { ConsoleContext, Screen } from './context.js';

/** The form for a new event (`existing` undefined) or for editing one, with the ETag it was read with. */
export function eventForm(ctx: ConsoleContext, existing?: { event: CampusEvent; etag: string | null }): Screen {
  const editing = existing?.event;
  let etag = existing?.etag ?? null;
  const zone = timeZoneName();
  const title = field('title', 'Title', h('input', { type: 'text', autocomplete: 'off' }));
  const category = field('category', 'Category', h('select', {}, h('option', { value: '' }, 'Choose a category'), CATEGORIES.map((name) => h('option', { value: name }, name))));
  const location = field('location', 'Location', h('input', { type: 'text' }));
  const start = field('start_time', 'Starts', h('input', { type: 'datetime-local' }), `Your time zone: ${zone}.`);
  const end = field('end_time', 'Ends', h('input', { type: 'datetime-local' }), `Your time zone: ${zone}.`);
  const capacity = field('capacity', 'Capacity (seats)', h('input', { type: 'number', min: 1, max: 100000, step: 1, inputmode: 'numeric' }));
  const description = field('description', 'Description', h('textarea', { rows: 5 }), 'Optional.');
  const fields: Field[] = [title, category, location, start, end, capacity, description];
  let organizerName: Field | undefined;
  let organizerEmail: Field | undefined;
  if (ctx.me.role === 'admin') {
    organizerName = field('organizer.name', 'Organizer name', h('input', { type: 'text', autocomplete: 'off' }), 'Admins only; leave both empty to be the organizer yourself.');
    organizerEmail = field('organizer.email', 'Organizer e-mail', h('input', { type: 'email', autocomplete: 'off' }));
    fields.push(organizerName, organizerEmail);
  }
  const alert = formAlert();

  function fill(event: CampusEvent): void {
    title.control.value = event.title;
    category.control.value = event.category;
    location.control.value = event.location;
    start.control.value = toLocalInput(event.start_time);
    end.control.value = toLocalInput(event.end_time);
    capacity.control.value = String(event.capacity);
    description.control.value = event.description;
    if (organizerName !== undefined && organizerEmail !== undefined) {
      organizerName.control.value = event.organizer.name;
      organizerEmail.control.value = event.organizer.email;
    }
  }
  if (editing !== undefined) fill(editing);

  /** The request body: empty fields are left out, so the API names what is missing. */
  function body(): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    const text = (item: Field): void => {
      if (item.control.value !== '' || editing !== undefined) result[item.name] = item.control.value;
    };
    text(title);
    if (category.control.value !== '') result['category'] = category.control.value;
    text(location);
    const startValue = fromLocalInput(start.control.value);
    const endValue = fromLocalInput(end.control.value);
    if (startValue !== undefined) result['start_time'] = startValue;
    if (endValue !== undefined) result['end_time'] = endValue;
    if (capacity.control.value !== '') result['capacity'] = Number(capacity.control.value);
    if (description.control.value !== '' || editing !== undefined) result['description'] = description.control.value;
    if (organizerName !== undefined && organizerEmail !== undefined && (organizerName.control.value !== '' || organizerEmail.control.value !== '')) {
      result['organizer'] = { name: organizerName.control.value, email: organizerEmail.control.value };
    }
    return result;
  }

  async function reload(): Promise<void> {
    if (editing === undefined) return;
    try {
      const answer = await ctx.api.json<CampusEvent>('GET', `/events/${encodeURIComponent(editing.id)}`);
      etag = answer.etag;
      fill(answer.data);
      clearProblems(fields);
      showAlert(alert, 'The form now shows the latest version of the event. Make your changes again and save.');
      title.control.focus();
    } catch (error) {
      showAlert(alert, describeProblem(error));
    }
  }

  const submit = h('button', { type: 'submit', class: 'primary' }, editing === undefined ? 'Create event' : 'Save changes');
  const form = h('form', { novalidate: true, 'aria-labelledby': 'screen-title' }, alert, fields.map((item) => item.row), h('div', { class: 'actions' }, submit, h('a', { href: editing === undefined ? '#/events' : `#/events/${editing.id}`, class: 'button' }, 'Cancel')));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void save();
  });

  async function save(): Promise<void> {
    hideAlert(alert);
    clearProblems(fields);
    submit.disabled = true;
    try {
      if (editing === undefined) {
        const answer = await ctx.api.json<CampusEvent>('POST', '/events', { body: body() });
        ctx.announce(`Created “${answer.data.title}”.`);
        ctx.navigate(`#/events/${answer.data.id}`);
      } else {
        // If-Match: an event someone changed meanwhile is reported (412), never overwritten.
        const headers: Record<string, string> = etag === null ? {} : { 'If-Match': etag };
        const answer = await ctx.api.json<CampusEvent>('PUT', `/events/${encodeURIComponent(editing.id)}`, { body: body(), headers });
        ctx.announce(`Saved “${answer.data.title}”.`);
        ctx.navigate(`#/events/${editing.id}`);
      }
    } catch (error) {
      if (error instanceof ApiProblem && error.code === 'validation_failed') {
        const rest = showProblems(fields, error.details);
        showAlert(alert, describeProblem(error), rest.length > 0 ? h('ul', {}, rest.map((problem) => h('li', {}, problem.message))) : null);
      } else if (error instanceof ApiProblem && error.code === 'precondition_failed') {
        showAlert(alert, h('p', {}, describeProblem(error), ' Reload it to see their version; your edits here will be replaced.'), h('button', { type: 'button', onclick: () => void reload() }, 'Reload the event'));
      } else {
        showAlert(alert, describeProblem(error));
      }
      // Keyboard users land on what to do next: the reload offer, else the message (a field problem focuses its field).
      const offer = alert.querySelector('button');
      if (offer !== null) offer.focus();
      else if (!(error instanceof ApiProblem && error.code === 'validation_failed')) alert.focus();
    } finally {
      submit.disabled = false;
    }
  }

  alert.tabIndex = -1;
  const element = h('section', {}, form);
  return {
    title: editing === undefined ? 'New event' : `Edit “${editing.title}”`,
    element,
    onChange(entry) {
      if (editing !== undefined && entry.id === editing.id) {
        showAlert(alert, h('p', {}, entry.deleted ? 'Someone else has just deleted this event.' : 'Someone else has just changed this event. Saving now would be refused; reload it to see their version.'), entry.deleted ? null : h('button', { type: 'button', onclick: () => void reload() }, 'Reload the event'));
      }
    },
  };
}
