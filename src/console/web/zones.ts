// Which time zone the console shows and takes times in: the campus's (from settings.json) unless the person switched to their own.
import { browserZone } from './format.js';

const CHOICE = 'campus-events.zone';

/** The campus zone, the browser's, and the one in use now. */
export interface Zones {
  campus: string;
  browser: string;
  shown: string;
}

/** Reads the server's `settings.json` beside the page (the campus zone, `--time-zone`); UTC when it cannot be read. */
export async function loadCampusZone(): Promise<string> {
  try {
    const response = await fetch('settings.json', { cache: 'no-cache' });
    const settings = (await response.json()) as { time_zone?: unknown };
    return typeof settings.time_zone === 'string' && settings.time_zone !== '' ? settings.time_zone : 'UTC';
  } catch {
    return 'UTC';
  }
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
