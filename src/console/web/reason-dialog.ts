// A confirmation that takes a reason (a rejection's, required; a cancellation's, optional) in a modal <dialog>:
// the API's problem with the reason is shown under its field, and the dialog stays open until the request succeeds.
import { h, uid } from './dom.js';
import { clearProblems, field, formAlert, formWords, hideAlert, showAlert, showProblems } from './fields.js';
import { ApiProblem, describeProblem } from './problem.js';

export interface ReasonRequest {
  question: string;
  /** The API field the reason is sent as (`reason`, `cancellation_reason`), to match the answer's `details`. */
  field: string;
  hint: string;
  yes: string;
  /** An empty field is sent as no reason at all (a cancellation's is optional). */
  optional: boolean;
  /** Sends the request; a rejection (an ApiProblem) keeps the dialog open with the problem shown. */
  send(reason: string | undefined): Promise<void>;
}

/** Asks, with a labelled "Reason" field; resolves true once `send` succeeded, false when the person kept things as they were. */
export function askReason(request: ReasonRequest): Promise<boolean> {
  return new Promise((resolve) => {
    const questionId = uid('reason-question');
    // One line: the API refuses a line break in a reason, and Enter sends the form, as a keyboard expects.
    const reason = field(request.field, 'Reason', h('input', { type: 'text', autocomplete: 'off' }), request.hint);
    const alert = formAlert();
    alert.tabIndex = -1;
    const keep = h('button', { type: 'button' }, 'Keep it');
    const yes = h('button', { type: 'submit', class: 'danger' }, request.yes);
    const form = h('form', { novalidate: true }, h('p', { id: questionId }, request.question), alert, reason.row, h('div', { class: 'actions' }, keep, yes));
    const dialog = h('dialog', { 'aria-labelledby': questionId, class: 'reason' }, form);
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    let sent = false;
    keep.addEventListener('click', () => dialog.close());
    // Escape closes a dialog; not while its request is on the way, whose answer must still be shown.
    dialog.addEventListener('cancel', (event) => {
      if (yes.disabled) event.preventDefault();
    });
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      hideAlert(alert);
      clearProblems([reason]);
      const text = reason.control.value;
      if (!request.optional && text.trim() === '') {
        // A required reason left empty (or only spaces, which would reach the organizer as a blank note) is refused here.
        showProblems([reason], [{ field: request.field, message: `${request.field} must be 1–500 characters after trimming, got 0` }], formWords([reason], 'UTC'));
        showAlert(alert, 'Nothing was changed: see the message under the reason.');
        return;
      }
      yes.disabled = true;
      request.send(request.optional && text.trim() === '' ? undefined : text).then(
        () => {
          sent = true;
          dialog.close();
        },
        (error: unknown) => {
          yes.disabled = false;
          if (error instanceof ApiProblem && error.code === 'validation_failed') {
            const rest = showProblems([reason], error.details, formWords([reason], 'UTC'));
            showAlert(alert, 'Nothing was changed: see the message under the reason.', rest.length > 0 ? h('ul', {}, rest.map((problem) => h('li', {}, problem.message))) : null);
          } else {
            showAlert(alert, describeProblem(error));
            alert.focus();
          }
        },
      );
    });
    dialog.addEventListener('close', () => {
      dialog.remove();
      if (opener?.isConnected === true) opener.focus();
      resolve(sent);
    });
    document.body.append(dialog);
    dialog.showModal();
    reason.control.focus();
  });
}
