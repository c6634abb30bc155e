// Labelled form fields with a place for the API's message about them (aria-describedby, aria-invalid).
import { append, h, uid, type Child } from './dom.js';
import type { FieldProblem } from './problem.js';

export interface Field {
  /** The API field it edits, e.g. `start_time`, to match `details`. */
  name: string;
  row: HTMLElement;
  control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
  message: HTMLElement;
}

/** A label, a control and an (empty) message paragraph tied together. */
export function field(name: string, label: string, control: Field['control'], hint?: string): Field {
  const id = uid(`f-${name.replace(/\W/g, '-')}`);
  control.id = id;
  control.name = name;
  const message = h('p', { class: 'field-message', id: `${id}-message`, hidden: true });
  const hintElement = hint === undefined ? null : h('p', { class: 'hint', id: `${id}-hint` }, hint);
  control.setAttribute('aria-describedby', [hintElement?.id, message.id].filter(Boolean).join(' '));
  const row = h('div', { class: 'field' }, h('label', { for: id }, label), hintElement, control, message);
  return { name, row, control, message };
}

/** Shows each problem next to its field; returns the problems no field claimed (shown above the form). */
export function showProblems(fields: Field[], problems: FieldProblem[]): FieldProblem[] {
  clearProblems(fields);
  const unclaimed: FieldProblem[] = [];
  for (const problem of problems) {
    // `organizer.email` belongs to the organizer e-mail field, `organizer` to the first organizer field.
    const target = fields.find((candidate) => candidate.name === problem.field) ?? fields.find((candidate) => candidate.name.startsWith(`${problem.field}.`));
    if (target === undefined) {
      unclaimed.push(problem);
      continue;
    }
    target.message.hidden = false;
    target.message.textContent = target.message.textContent === '' ? problem.message : `${target.message.textContent} ${problem.message}`;
    target.control.setAttribute('aria-invalid', 'true');
  }
  const firstInvalid = fields.find((candidate) => candidate.control.getAttribute('aria-invalid') === 'true');
  firstInvalid?.control.focus();
  return unclaimed;
}

export function clearProblems(fields: Field[]): void {
  for (const item of fields) {
    item.message.hidden = true;
    item.message.textContent = '';
    item.control.removeAttribute('aria-invalid');
  }
}

/** A paragraph for a form-level message (role=alert so it is read out when it appears). */
export function formAlert(): HTMLElement {
  return h('div', { class: 'alert', role: 'alert', hidden: true });
}

export function showAlert(alert: HTMLElement, ...children: Child[]): void {
  alert.hidden = false;
  alert.replaceChildren();
  append(alert, children);
}

export function hideAlert(alert: HTMLElement): void {
  alert.hidden = true;
  alert.replaceChildren();
}
