// The fields an event and a series share (API.md §4, §11): built once for the event form and the series form.
import { h } from './dom.js';
import { field, type Field } from './fields.js';
import { formatDateTime, fromZoneInput, instantAt, instantNear, parseInput, toZoneInput } from './format.js';
import { CATEGORIES, type CampusEvent } from './types.js';
import type { ConsoleContext } from './context.js';

/** What the fields hold, as the API reads and writes it (an event's or a series' shared fields and first times). */
export type EventFieldValues = Pick<CampusEvent, 'title' | 'description' | 'category' | 'location' | 'start_time' | 'end_time' | 'capacity' | 'organizer'>;

export interface EventFields {
  fields: Field[];
  start: Field;
  end: Field;
  fill(values: EventFieldValues): void;
  /** The request body: empty fields left out on create (so the API names what is missing), sent as they are on edit. */
  body(editing: boolean): Record<string, unknown>;
  /**
   * Only what differs from `from` (the version being edited), for a partial PUT (API.md §5); a required box left empty
   * as '', for localProblems to name. A time counts as changed
   * only when its box was changed: the box holds minutes in one zone, so a time with seconds, or in the hour a zone
   * repeats when its clocks go back, would otherwise be sent back moved.
   */
  changes(from: EventFieldValues): Record<string, unknown>;
}

/**
 * The labelled fields, times typed in `options.zone` (default: the zone the console shows; a series form uses
 * the series' own); `options.startHint` says what Starts means.
 */
export function eventFields(ctx: ConsoleContext, options: { zone?: string; startHint?: string } = {}): EventFields {
  const zone = options.zone ?? ctx.zones.shown;
  const startHint = options.startHint ?? '';
  const title = field('title', 'Title', h('input', { type: 'text', autocomplete: 'off' }));
  const category = field('category', 'Category', h('select', {}, h('option', { value: '' }, 'Choose a category'), CATEGORIES.map((name) => h('option', { value: name }, name))));
  const location = field('location', 'Location', h('input', { type: 'text' }));
  const start = field('start_time', 'Starts', h('input', { type: 'datetime-local' }), `${startHint}In ${zone}.`);
  const end = field('end_time', 'Ends', h('input', { type: 'datetime-local' }), `In ${zone}.`);
  const capacity = field('capacity', 'Capacity (seats)', h('input', { type: 'number', min: 1, max: 100000, step: 1, inputmode: 'numeric' }));
  const description = field('description', 'Description', h('textarea', { rows: 5 }), 'Optional.');
  const fields: Field[] = [title, category, location, start, end, capacity, description];
  for (const time of [start, end]) watchForGap(time, zone);
  let organizer: [Field, Field] | undefined;
  if (ctx.me.role === 'admin') {
    organizer = [
      field('organizer.name', 'Organizer name', h('input', { type: 'text', autocomplete: 'off' }), 'Admins only; leave both empty to be the organizer yourself.'),
      field('organizer.email', 'Organizer e-mail', h('input', { type: 'email', autocomplete: 'off' })),
    ];
    fields.push(...organizer);
  }
  function body(editing: boolean): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    for (const item of [title, location, description]) if (item.control.value !== '' || editing) result[item.name] = item.control.value;
    if (category.control.value !== '') result['category'] = category.control.value;
    const startValue = fromZoneInput(start.control.value, zone);
    const endValue = fromZoneInput(end.control.value, zone);
    if (startValue !== undefined) result['start_time'] = startValue;
    if (endValue !== undefined) result['end_time'] = endValue;
    if (capacity.control.value !== '') result['capacity'] = Number(capacity.control.value);
    if (organizer !== undefined && (organizer[0].control.value !== '' || organizer[1].control.value !== '')) {
      result['organizer'] = { name: organizer[0].control.value, email: organizer[1].control.value };
    }
    return result;
  }

  return {
    fields,
    start,
    end,
    body,
    changes(from) {
      const result = body(true);
      if (start.control.value === toZoneInput(from.start_time, zone)) delete result['start_time'];
      if (end.control.value === toZoneInput(from.end_time, zone)) delete result['end_time'];
      for (const name of ['title', 'location', 'description', 'category', 'capacity'] as const) if (result[name] === from[name]) delete result[name];
      // A box emptied (or a time half typed, which a browser reads as empty) cannot take the field away: sent as '', so
      // the checks name it as missing rather than the edit leaving it out and reporting "Saved" for nothing.
      for (const item of [category, start, end, capacity]) if (item.control.value === '') result[item.name] = '';
      const typed = result['organizer'] as EventFieldValues['organizer'] | undefined;
      if (typed !== undefined && typed.name === from.organizer.name && typed.email === from.organizer.email) delete result['organizer'];
      return result;
    },
    fill(values) {
      title.control.value = values.title;
      category.control.value = values.category;
      location.control.value = values.location;
      start.control.value = toZoneInput(values.start_time, zone);
      end.control.value = toZoneInput(values.end_time, zone);
      capacity.control.value = String(values.capacity);
      description.control.value = values.description;
      if (organizer !== undefined) [organizer[0].control.value, organizer[1].control.value] = [values.organizer.name, values.organizer.email];
    },
  };
}

/**
 * Under a time typed in the hour a zone's clocks skip (spring forward), a note of what will be saved: the server takes
 * the instant just past the gap, which shows the hour after. The time is not refused: the note says what happens.
 */
function watchForGap(time: Field, zone: string): void {
  // Part of the field's description, and a polite live region: a screen reader says it as it appears, and with the
  // field. It stays in the page, empty (and so unseen) while the time exists, for the region to be heard.
  const note = h('p', { class: 'note gap-time', id: `${time.control.id}-gap`, 'aria-live': 'polite' });
  time.row.insertBefore(note, time.message);
  const described = (time.control.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean);
  time.control.setAttribute('aria-describedby', [...described.slice(0, -1), note.id, ...described.slice(-1)].join(' '));
  const check = (): void => {
    const wall = parseInput(time.control.value);
    const skipped = wall !== undefined && instantAt(zone, wall) === undefined;
    note.textContent = skipped ? `${time.control.value.slice(11)} does not exist on that day in ${zone}: the clocks skip that hour. It is saved as ${formatDateTime(instantNear(zone, wall), zone)}.` : '';
  };
  time.control.addEventListener('input', check);
  time.control.addEventListener('change', check);
}
