// The conflict screen: someone else saved what is being edited. Their new values stand beside what was typed, field by
// field, with two ways on that never drop typing unasked: keep mine on top of theirs, or take theirs (after a confirmation).
import { h, uid } from './dom.js';
import { confirmAction } from './confirm.js';
import { formatTyped, toZoneInput } from './format.js';
import type { Field } from './fields.js';
import type { EventFieldValues } from './event-fields.js';

/** A form's values by field name, as its controls hold them (times as `datetime-local` values). */
export type FormValues = Record<string, string>;

/** What the controls of `fields` hold now. */
export function readForm(fields: Field[]): FormValues {
  return Object.fromEntries(fields.map((item) => [item.name, item.control.value]));
}

/** Puts `values` into the controls of `fields` (a field without a value is left as it is). */
export function writeForm(fields: Field[], values: FormValues): void {
  for (const item of fields) {
    const value = values[item.name];
    if (value !== undefined) item.control.value = value;
  }
}

/** An event's (or a series') fields as the event form's controls would hold them, times in `zone`. */
export function formValuesOf(values: EventFieldValues, zone: string): FormValues {
  return {
    title: values.title,
    category: values.category,
    location: values.location,
    start_time: toZoneInput(values.start_time, zone),
    end_time: toZoneInput(values.end_time, zone),
    capacity: String(values.capacity),
    description: values.description,
    'organizer.name': values.organizer.name,
    'organizer.email': values.organizer.email,
  };
}

/** Three versions of one form compared: as it was read (`base`), as typed (`mine`), as now stored (`theirs`). */
export interface Comparison {
  /** Fields they changed whose new value differs from what the form holds: the rows to show, in form order. */
  rows: string[];
  /** Fields the person changed (mine ≠ base). */
  typed: string[];
  /** Fields the person changed whose value would be lost by taking theirs (mine ≠ theirs). */
  wouldLose: string[];
  /** Theirs with the person's changes on top: a field the person changed keeps what they typed; every other takes the stored value. */
  merged: FormValues;
}

/** Compares the three versions over the fields `names`. */
export function compareVersions(names: string[], base: FormValues, mine: FormValues, theirs: FormValues): Comparison {
  const typed = names.filter((name) => mine[name] !== base[name]);
  const merged: FormValues = {};
  for (const name of names) merged[name] = (typed.includes(name) ? mine[name] : theirs[name]) ?? '';
  return {
    rows: names.filter((name) => theirs[name] !== base[name] && mine[name] !== theirs[name]),
    typed,
    wouldLose: typed.filter((name) => mine[name] !== theirs[name]),
    merged,
  };
}

export interface ConflictOptions {
  /** What is edited, as the sentences name it: "event" or "series". */
  what: string;
  fields: Field[];
  comparison: Comparison;
  mine: FormValues;
  theirs: FormValues;
  /** The zone the form's times are typed in. */
  zone: string;
  /** Labels of compared values that are no field of `fields` (a series' schedule, from its Repeats section). */
  labels?: Record<string, string>;
  /** True when a save was refused (412); false when the change was seen live, before saving. */
  refused: boolean;
  /** Keep my changes: the form takes `comparison.merged` and the new version's ETag (and saves, after a refusal). */
  keep(): void;
  /** Use their version: the form takes theirs; called only once the person confirmed discarding what they typed. */
  useTheirs(): void;
}

const joined = (labels: string[]): string => (labels.length < 2 ? labels.join('') : `${labels.slice(0, -1).join(', ')} and ${labels.at(-1)}`);

/** The conflict screen, to place above the form (the caller focuses it when the person was saving). */
export function conflictPanel(options: ConflictOptions): HTMLElement {
  const { what, fields, comparison, mine, theirs, zone, refused } = options;
  const labelOf = (name: string): string => options.labels?.[name] ?? fields.find((item) => item.name === name)?.label ?? name;
  const shown = (name: string, value: string | undefined): string => {
    if (value === undefined || value === '') return '(empty)';
    return fields.find((item) => item.name === name)?.control.type === 'datetime-local' ? formatTyped(value, zone) : value;
  };
  const headingId = uid('conflict-heading');
  const mineOnly = comparison.typed.filter((name) => !comparison.rows.includes(name));
  const rows = comparison.rows.map((name) =>
    h(
      'tr',
      {},
      h('th', { scope: 'row' }, labelOf(name)),
      h('td', { 'data-label': 'Their version', class: 'value' }, shown(name, theirs[name])),
      comparison.typed.includes(name)
        ? h('td', { 'data-label': 'Your version', class: 'value' }, shown(name, mine[name]))
        : h('td', { 'data-label': 'Your version', class: 'value untouched' }, 'You did not change it: theirs is kept.'),
    ),
  );
  const keep = h('button', { type: 'button', class: 'primary', onclick: () => options.keep() }, 'Keep my changes');
  const useTheirs = h('button', { type: 'button', onclick: () => void askThenUseTheirs() }, 'Use their version');

  async function askThenUseTheirs(): Promise<void> {
    const lost = comparison.wouldLose.map(labelOf);
    if (lost.length > 0 && !(await confirmAction(`Discard what you typed in ${joined(lost)} and show their version? What you typed cannot be brought back.`, 'Discard my changes', 'Keep editing'))) return;
    options.useTheirs();
  }

  return h(
    'section',
    { class: 'conflict', 'aria-labelledby': headingId, tabindex: -1 },
    h('h2', { id: headingId }, `Someone else changed this ${what}`),
    h(
      'p',
      {},
      refused
        ? `Your changes were not saved: someone else saved this ${what} while you were editing it. Nothing you typed is lost; compare, then choose.`
        : `Someone else has just saved this ${what} while you are editing it. Nothing you typed is lost; compare, then choose.`,
    ),
    h(
      'table',
      { class: 'stack conflict-table' },
      h('caption', { class: 'visually-hidden' }, 'Their new values beside yours, field by field'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Field'), h('th', { scope: 'col' }, 'Their version'), h('th', { scope: 'col' }, 'Your version'))),
      h('tbody', {}, rows),
    ),
    mineOnly.length === 0 ? null : h('p', {}, `They did not change ${joined(mineOnly.map(labelOf))}, which you changed.`),
    h('div', { class: 'actions' }, keep, useTheirs),
    h(
      'ul',
      { class: 'hint choices-explained' },
      h('li', {}, `Keep my changes: ${refused ? 'saves' : 'keeps'} what you typed on top of their version; a field only they changed takes their value.${refused ? '' : ' Save when you are done.'}`),
      h('li', {}, 'Use their version: the form shows theirs; what you typed is discarded (you are asked first).'),
    ),
  );
}
