// The Previous and Next buttons under a list drawn again in place (a series' occurrences, attendees, a review list).
// Turning a page replaces the buttons with the list, so the keyboard's focus would fall back to the page's start:
// it is put back on the pager, on the button pressed, or on the other one at either end.
import { h } from './dom.js';

/** The pager of `page` out of `lastPage` (none when one page holds everything); `turn` draws the page `delta` away. */
export function pager(label: string, page: number, lastPage: number, turn: (delta: number) => Promise<void>): HTMLElement | null {
  if (lastPage <= 1) return null;
  const nav = h('nav', { class: 'pager', 'aria-label': label });
  const button = (delta: number, text: string): HTMLElement =>
    h('button', { type: 'button', 'data-turn': delta, onclick: () => void turnFrom(nav.parentElement, delta, turn) }, text);
  if (page > 1) nav.append(button(-1, 'Previous page'));
  if (page < lastPage) nav.append(button(1, 'Next page'));
  return nav;
}

async function turnFrom(list: HTMLElement | null, delta: number, turn: (delta: number) => Promise<void>): Promise<void> {
  await turn(delta);
  // Focus the person moved elsewhere meanwhile stays there; only focus lost with the old buttons is put back.
  if (list === null || (document.activeElement !== null && document.activeElement !== document.body)) return;
  const buttons = [...list.querySelectorAll<HTMLElement>(':scope > nav.pager > button')];
  (buttons.find((other) => other.dataset.turn === String(delta)) ?? buttons[0])?.focus();
}
