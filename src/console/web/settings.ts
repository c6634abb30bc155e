// What the server tells its console at start, in its settings.json: the campus time zone and whether events need approval.
import type { Approval } from './status.js';

export interface ConsoleSettings {
  /** The campus zone (`--time-zone`); UTC when the server does not say. */
  timeZone: string;
  /** `--approval`; `unknown` when the server does not say (the console then words a submit as one that may wait). */
  approval: Approval;
}

/** The settings in a parsed settings.json, with the defaults for what is missing or not understood. */
export function readSettings(json: unknown): ConsoleSettings {
  const settings = (typeof json === 'object' && json !== null ? json : {}) as { time_zone?: unknown; approval?: unknown };
  return {
    timeZone: typeof settings.time_zone === 'string' && settings.time_zone !== '' ? settings.time_zone : 'UTC',
    approval: settings.approval === 'off' || settings.approval === 'required' ? settings.approval : 'unknown',
  };
}

/** Reads settings.json beside the page; the defaults when it cannot be read. */
export async function loadSettings(): Promise<ConsoleSettings> {
  try {
    const response = await fetch('settings.json', { cache: 'no-cache' });
    return readSettings(await response.json());
  } catch {
    return readSettings(undefined);
  }
}
