// Labelled form fields with a place for the API's message about them (aria-describedby, aria-invalid).
import { append, h, uid, type Child } from './dom.js';
import type { FieldProblem } from './problem.js';
import type { PublishStatus } from './types.js';
import { conflictProblem, conflictSentence, fieldSentence, type FormWords } from './field-sentences.js';
import { ApiProblem, describeProblem } from './problem.js';
import { formatDateTime, formatTyped } from './format.js';

export interface Field {
  /** The API field it edits, e.g. `start_time`, to match `details`. */
  name: string;
  /** Its label, as the sentences about it name it. */
  label: string;
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
  return { name, label, row, control, message };
}

/** The words of a form for the sentence table: its labels, and its values as shown (times typed in `zone`). */
export function formWords(fields: Field[], zone: string): FormWords {
  const byName = (name: string): Field | undefined => fields.find((candidate) => candidate.name === name);
  return {
    label: (name) => byName(name)?.label,
    shown(name) {
      const control = byName(name)?.control;
      if (control === undefined || control.value === '') return undefined;
      if (control.type !== 'datetime-local') return control.value;
      // A time next to another on the same day is shown as its time alone: "Ends must be after Starts (6:00 PM)".
      const other = fields.find((candidate) => candidate.control !== control && candidate.control.type === 'datetime-local');
      return formatTyped(control.value, zone, other?.control.value);
    },
    time: (iso) => formatDateTime(iso, zone),
  };
}

/**
 * Shows each problem next to its field, in the form's words (field-sentences.ts); returns the problems no
 * field claimed, already in words, for the form to show above itself.
 */
export function showProblems(fields: Field[], problems: FieldProblem[], words: FormWords): FieldProblem[] {
  clearProblems(fields);
  const unclaimed: FieldProblem[] = [];
  for (const problem of problems) {
    // `organizer.email` belongs to the organizer e-mail field, `organizer` to the first organizer field.
    const target = fields.find((candidate) => candidate.name === problem.field) ?? fields.find((candidate) => candidate.name.startsWith(`${problem.field}.`));
    const sentence = fieldSentence(problem, words);
    if (target === undefined) {
      unclaimed.push({ field: problem.field, message: sentence });
      continue;
    }
    target.message.hidden = false;
    target.message.textContent = target.message.textContent === '' ? sentence : `${target.message.textContent} ${sentence}`;
    target.control.setAttribute('aria-invalid', 'true');
  }
  const firstInvalid = fields.find((candidate) => candidate.control.getAttribute('aria-invalid') === 'true');
  firstInvalid?.control.focus();
  return unclaimed;
}

/** One sentence about one field, shown next to it (its description), the field marked invalid and focused. */
export function markInvalid(item: Field, sentence: string): void {
  clearProblems([item]);
  item.message.hidden = false;
  item.message.textContent = sentence;
  item.control.setAttribute('aria-invalid', 'true');
  item.control.focus();
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

/**
 * Shows a failed save in the form's words: a validation error's details, or a 409 about one field, next to their
 * fields (the rest listed in `alert`); a 409 about the whole form as its sentence. False for anything else.
 */
export function showFailure(error: unknown, fields: Field[], alert: HTMLElement, words: FormWords, notSaved: string): boolean {
  if (!(error instanceof ApiProblem)) return false;
  const onField = error.code === 'conflict' ? conflictProblem(error.message) : undefined;
  if (error.code === 'validation_failed' || onField !== undefined) {
    const rest = showProblems(fields, onField === undefined ? error.details : [onField], words);
    showAlert(alert, onField === undefined ? describeProblem(error) : `${notSaved}: see the field marked below.`, rest.length > 0 ? h('ul', {}, rest.map((problem) => h('li', {}, problem.message))) : null);
    return true;
  }
  const sentence = error.code === 'conflict' ? conflictSentence(error.message, words) : undefined;
  if (sentence === undefined) return false;
  showAlert(alert, sentence);
  alert.focus();
  return true;
}

/** Wires a form's submit: old problems cleared, the button disabled while `action` runs. */
export function onSubmit(form: HTMLFormElement, fields: Field[], alert: HTMLElement, submit: HTMLButtonElement, action: () => Promise<void>): void {
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    hideAlert(alert);
    clearProblems(fields);
    submit.disabled = true;
    void action().finally(() => {
      submit.disabled = false;
    });
  });
}

/** A failure in words in a page's alert, which takes the focus so it is read out and acted on. */
export function alertFailure(alert: HTMLElement, error: unknown): void {
  showAlert(alert, describeProblem(error));
  alert.focus();
}

/**
 * A delete's failure in the page's alert. One refused because someone changed the event or series after the page read
 * it (412: the delete sends If-Match) is said in those words, and `reload` draws it again as it now is.
 */
export function alertDeleteFailure(alert: HTMLElement, error: unknown, what: 'event' | 'series', reload: () => void): void {
  const sentence = deleteFailureSentence(error, what);
  if (sentence === undefined) return alertFailure(alert, error);
  showAlert(alert, sentence);
  alert.focus();
  reload();
}

/**
 * What a delete refused for a change made elsewhere says: changed since the page showed it (412), or already deleted
 * (404: in another tab, say). Undefined for any other failure, which describeProblem words.
 */
export function deleteFailureSentence(error: unknown, what: 'event' | 'series'): string | undefined {
  if (error instanceof ApiProblem && error.status === 404) return `Someone else has just deleted this ${what}.`;
  if (!(error instanceof ApiProblem && error.code === 'precondition_failed')) return undefined;
  return `${changedSince(what)}, so it was not deleted. It is shown again as it is now: delete it again if you still mean to.`;
}

/**
 * A publishing move's failure in the page's alert. One refused because the event or series changed after the page read
 * it (412: the move sends If-Match) is said in those words (`undone`: what did not happen, "published"), and `reload`
 * draws it again as it now is, so the page never goes on showing what is no longer so. When what changed was its status
 * (`before`: the status the page showed; `reload` resolves with the one it shows now), another person's move, the
 * sentence then says so rather than guess at an edit.
 */
export function alertMoveFailure(alert: HTMLElement, error: unknown, what: 'event' | 'series', undone: string, before: PublishStatus | undefined, reload: () => Promise<PublishStatus | undefined>): void {
  if (!(error instanceof ApiProblem && error.code === 'precondition_failed')) {
    alertFailure(alert, error);
    // Moved (409), deleted (404) or given to another organizer (403) elsewhere: the page is read again, the alert kept.
    if (error instanceof ApiProblem && (error.status === 409 || error.status === 404 || error.status === 403)) void reload();
    return;
  }
  showAlert(alert, `${changedSince(what)}, so it was not ${undone}. It is shown again as it is now: try again if you still mean to.`);
  alert.focus();
  void reload().then((now) => {
    if (now === undefined || before === undefined || now === before || alert.hidden) return;
    showAlert(alert, `Someone else moved this ${what} after this page showed it: it is now ${STATUS_WORDS[now]}, so it was not ${undone}. It is shown again as it is now.`);
  });
}

/** A status after "it is now". */
const STATUS_WORDS: Readonly<Record<PublishStatus, string>> = { draft: 'a draft', pending: 'pending approval', published: 'published', cancelled: 'cancelled' };

function changedSince(what: 'event' | 'series'): string {
  return `This ${what} changed after this page showed it (${what === 'event' ? 'someone edited it, or a registration came in' : 'someone edited it'})`;
}
