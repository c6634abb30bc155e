// A "Copy" button for a read-only field: the clipboard where the browser allows it, else the text selected for Ctrl+C.
import { h } from './dom.js';

/** A button labelled `label` that copies `input`'s value and says so in `status` (`done` is the sentence on success). */
export function copyButton(label: string, input: HTMLInputElement, status: HTMLElement, done: () => string): HTMLButtonElement {
  const button = h('button', { type: 'button' }, label);
  const selected = (): void => {
    status.textContent = 'The text is selected: press Ctrl+C (or ⌘C) to copy it.';
  };
  button.addEventListener('click', () => {
    input.select();
    // The clipboard API needs a secure context (https or localhost); elsewhere the text is selected for Ctrl+C.
    if (navigator.clipboard === undefined) return selected();
    navigator.clipboard.writeText(input.value).then(() => {
      status.textContent = done();
    }, selected);
  });
  return button;
}
