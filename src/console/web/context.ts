// What every screen is given: the API, who is signed in, and ways to move and to speak to the person.
import type { Api } from './api.js';
import type { Me } from './roles.js';
import type { ChangeEntry } from './live.js';
import type { Zones } from './zones.js';
import type { Approval } from './status.js';

export interface ConsoleContext {
  api: Api;
  me: Me;
  /** Goes to a fragment route such as `#/events/evt_...`; `showMessage`: the message just announced is shown there too. */
  navigate(hash: string, options?: { showMessage?: boolean }): void;
  /** Says something to screen readers (and shows it in the status line). */
  announce(message: string): void;
  /** Takes the message the person came with off the screen: what it spoke of changed elsewhere. */
  dropBrought(): void;
  /** The zone times are shown and typed in (`shown`), and the two it can be. */
  zones: Zones;
  /** Shows times in the browser's zone (`mine`) or the campus's, and draws the screen again. */
  switchZone(mine: boolean): void;
  /** Whether the campus requires approval (settings.json), for the words of a submit. */
  approval: Approval;
  /** Says the approval queue may have changed, so the header's count is read again. */
  queueChanged(): void;
}

/** A rendered screen; `onChange` is called for each live change while it is shown. */
export interface Screen {
  title: string;
  element: HTMLElement;
  onChange?(entry: ChangeEntry): void;
  dispose?(): void;
}
