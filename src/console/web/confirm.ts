// A confirmation as a modal <dialog>: focus moves into it, Escape cancels, and the safe choice is focused first.
import { h } from './dom.js';

/** Asks `question`; resolves true when the person chose `yes`. */
export function confirmAction(question: string, yes: string, no = 'Keep it'): Promise<boolean> {
  return new Promise((resolve) => {
    const keep = h('button', { type: 'button', value: 'no' }, no);
    const confirm = h('button', { type: 'button', value: 'yes', class: 'danger' }, yes);
    const dialog = h('dialog', { 'aria-labelledby': 'confirm-question' }, h('p', { id: 'confirm-question' }, question), h('div', { class: 'actions' }, keep, confirm));
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    let answer = false;
    keep.addEventListener('click', () => dialog.close());
    confirm.addEventListener('click', () => {
      answer = true;
      dialog.close();
    });
    dialog.addEventListener('close', () => {
      dialog.remove();
      if (opener?.isConnected === true) opener.focus();
      resolve(answer);
    });
    document.body.append(dialog);
    dialog.showModal();
    keep.focus();
  });
}
