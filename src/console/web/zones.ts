// Which time zone a screen shows and takes times in: the month view the browser's (API.md §10), the other screens the
// campus's (settings.ts), until the person picks one with the switch, which then holds on every screen of the tab.
import { browserZone } from './format.js';

const CHOICE = 'campus-events.zone';

/** A zone as the person knows it: the campus's (`--time-zone`) or their browser's. */
export type ZoneKind = 'campus' | 'browser';

/** The campus zone, the browser's, and the one in use now. */
export interface Zones {
  campus: string;
  browser: string;
  shown: string;
}

/**
 * The zones of a screen whose own default is `preferred`, when the person's choice is `choice` (undefined: none made).
 * A choice wins over every screen's default, so a switch made on one screen holds on the next.
 */
export function zonesFor(campus: string, browser: string, preferred: ZoneKind, choice: ZoneKind | undefined): Zones {
  return { campus, browser, shown: (choice ?? preferred) === 'browser' ? browser : campus };
}

/** The zones of a screen for this tab: `preferred` (the screen's default) unless the person chose, for the tab's life. */
export function currentZones(campus: string, preferred: ZoneKind): Zones {
  const stored = sessionStorage.getItem(CHOICE);
  return zonesFor(campus, browserZone(), preferred, stored === 'browser' || stored === 'campus' ? stored : undefined);
}

/** Shows times in the browser's zone (`mine`) or in the campus zone, on every screen, until the tab closes. */
export function chooseZone(mine: boolean): void {
  sessionStorage.setItem(CHOICE, mine ? 'browser' : 'campus');
}
