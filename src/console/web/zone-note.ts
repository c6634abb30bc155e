// The line on every screen that shows times: which zone they are in, and a switch to the other one when the two differ.
import { h } from './dom.js';
import type { ConsoleContext } from './context.js';

/** "Times are in Europe/Berlin, the campus time zone." plus, when the browser's zone differs, a button to switch. */
export function zoneNote(ctx: ConsoleContext): HTMLElement {
  const { campus, browser, shown } = ctx.zones;
  const onCampus = shown === campus;
  const words = onCampus ? `Times are in ${campus}, the campus time zone.` : `Times are in ${browser}, your time zone.`;
  const other = onCampus ? `Show times in my time zone (${browser})` : `Show times in the campus time zone (${campus})`;
  return h(
    'p',
    { class: 'hint zone-note' },
    h('span', { class: 'zone-name' }, words),
    campus === browser ? null : [' ', h('button', { type: 'button', class: 'link', onclick: () => ctx.switchZone(onCampus) }, other)],
  );
}
