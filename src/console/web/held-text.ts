// What a form held when its person was signed out (their key revoked as they typed): shown to copy, never sent.
import { h } from './dom.js';

/** One field of a form that held something: its label, and its value as the person typed or chose it. */
export interface HeldText {
  label: string;
  value: string;
}

/** The labelled fields that hold something in the editing forms under `root` (not a search, not a password). */
export function heldText(root: ParentNode): HeldText[] {
  const held: HeldText[] = [];
  for (const control of root.querySelectorAll<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>('form[novalidate] input, form[novalidate] textarea, form[novalidate] select')) {
    if (control instanceof HTMLInputElement && ['password', 'hidden', 'checkbox', 'radio', 'submit', 'button'].includes(control.type)) continue;
    const label = control.labels?.[0]?.textContent?.trim() ?? '';
    const value = control instanceof HTMLSelectElement ? (control.selectedOptions[0]?.value === '' ? '' : (control.selectedOptions[0]?.textContent ?? '')) : control.value;
    if (label !== '' && value.trim() !== '') held.push({ label, value });
  }
  return held;
}

/** The held fields as a section to copy from: read-only boxes, one per field, none of it sent anywhere. */
export function heldSection(held: readonly HeldText[]): HTMLElement | null {
  if (held.length === 0) return null;
  return h(
    'section',
    { class: 'held', 'aria-labelledby': 'held-heading' },
    h('h2', { id: 'held-heading' }, 'What the form held (not saved)'),
    h('p', { class: 'hint' }, 'You were signed out while this was on the page. Copy what you need; it is gone once you leave this screen.'),
    held.map(({ label, value }, i) => h('div', { class: 'field' }, h('label', { for: `held-${i}` }, label), h('textarea', { id: `held-${i}`, readonly: true, rows: Math.min(6, value.split('\n').length) }, value))),
  );
}
