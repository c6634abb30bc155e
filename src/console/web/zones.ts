// Which time zone the console shows and takes times in: the campus's (settings.ts) unless the person switched to their own.
import { browserZone } from './format.js';

const CHOICE = 'campus-events.zone';

/** The campus zone, the browser's, and the one in use now. */
export interface Zones {
  campus: string;
  browser: string;
  shown: string;
}

/** The zones for this tab: the campus zone by default, the browser's once chosen (kept for the tab's life). */
export function currentZones(campus: string): Zones {
  const browser = browserZone();
  return { campus, browser, shown: sessionStorage.getItem(CHOICE) === 'browser' ? browser : campus };
}

/** Shows times in the browser's zone (`mine`) or back in the campus zone. */
export function chooseZone(mine: boolean): void {
  if (mine) sessionStorage.setItem(CHOICE, 'browser');
  else sessionStorage.removeItem(CHOICE);
}
