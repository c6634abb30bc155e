/// <reference lib="dom" />
// What every console journey file shares: a real server on a temporary folder with a key per role, direct API calls
// beside the browser, signing in, reading a field's message, and the check that a browser stayed clean.
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { runCli, spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { tempDir } from '../helpers/harness.js';
import type { Browsing } from './browser.js';

export type Role = 'admin' | 'organizer' | 'reader' | 'feed';

export interface JourneyServer {
  server: SpawnedServer;
  /** The server's data folder (for the CLI beside it). */
  dataDir: string;
  url: string;
  keys: Record<Role, string>;
  /** A direct API call (as another person, or a second program) beside the browser. */
  api(method: string, target: string, key: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  /** Creates an event through the API as the organizer (an academic event in Hall A with 30 seats unless `body` says otherwise); answers its id. */
  createEvent(body: Record<string, unknown>): Promise<string>;
  stop(): Promise<void>;
}

const PEOPLE: [Role, string, string][] = [
  ['admin', 'Ada Admin', 'ada@campus.edu'],
  ['organizer', 'Olivia Organizer', 'olivia@campus.edu'],
  ['reader', 'Rita Reader', 'rita@campus.edu'],
  ['feed', 'Wall calendar', 'calendar@campus.edu'],
];

/** `node dist/server.js` on a new folder holding one key per role; `args` are further flags (`--time-zone ...`). */
export async function startJourneyServer(args: string[] = []): Promise<JourneyServer> {
  const data = tempDir('campus-console-');
  const keys = { admin: '', organizer: '', reader: '', feed: '' };
  for (const [role, name, email] of PEOPLE) {
    const made = runCli(['keys', 'create', '--name', name, '--email', email, '--role', role, '--data-dir', data.dir]);
    assert.equal(made.status, 0, made.stderr);
    keys[role] = made.stdout.trim();
  }
  const server = await spawnServer(['--port', '0', '--data-dir', data.dir, ...args]);
  const api: JourneyServer['api'] = (method, target, key, body, headers = {}) =>
    fetch(server.url + target, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return {
    server,
    dataDir: data.dir,
    url: server.url,
    keys,
    api,
    async createEvent(body) {
      const response = await api('POST', '/events', keys.organizer, { description: '', category: 'academic', location: 'Hall A', capacity: 30, ...body });
      assert.equal(response.status, 201, await response.clone().text());
      return ((await response.json()) as { id: string }).id;
    },
    async stop() {
      await server.stop();
      data.remove();
    },
  };
}

/** Signs in on the console's own form, as a person would. */
export async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(`${url}/`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** A new tab of `browsing` (its own sessionStorage, so its own key and choices) signed in as `role`; the caller closes it. */
export async function signedInTab(browsing: Browsing, journey: JourneyServer, role: Role): Promise<Page> {
  const page = await browsing.context.newPage();
  await signIn(page, journey.url, journey.keys[role]);
  return page;
}

/** The message shown next to a field: the element its control's aria-describedby names last. */
export async function fieldMessage(page: Page, label: string): Promise<string> {
  const control = page.getByLabel(label, { exact: true });
  const ids = ((await control.getAttribute('aria-describedby')) ?? '').split(' ');
  return (await page.locator(`[id="${ids.at(-1)}"]`).textContent()) ?? '';
}

/** Everything a screen reader says after a field's label: the texts of every element its aria-describedby names. */
export async function fieldDescription(page: Page, label: string): Promise<string> {
  const ids = ((await page.getByLabel(label, { exact: true }).getAttribute('aria-describedby')) ?? '').split(' ').filter(Boolean);
  const texts = await Promise.all(ids.map(async (id) => ((await page.locator(`[id="${id}"]`).textContent()) ?? '').trim()));
  return texts.filter(Boolean).join(' ');
}

export function assertClean(browsing: Browsing): void {
  assert.deepEqual(browsing.offHost, [], 'no request left for another host');
  assert.deepEqual(browsing.errors, [], 'no console error');
}
