/// <reference lib="dom" />
// Browser test support: Debian's chromium driven by playwright-core, with every page watched for
// requests to other hosts, console errors and (with axe-core) serious accessibility violations.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import assert from 'node:assert/strict';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { ROOT } from '../helpers/spawn.js';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

/** The Chromium to drive: `CHROMIUM_PATH`, else the usual install paths; undefined when there is none. */
export function findChromium(): string | undefined {
  const fromEnv = process.env['CHROMIUM_PATH'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  return CANDIDATES.find((candidate) => existsSync(candidate));
}

/**
 * The `skip` option of a browser test: false when a Chromium is found; a reason to skip when not;
 * and under CI (`CI=true`) false as well, so the test runs and fails instead of silently vanishing.
 */
export function skipWithoutChromium(): false | string {
  if (findChromium() !== undefined || process.env['CI'] === 'true') return false;
  return 'no Chromium found (apt-get install chromium, or set CHROMIUM_PATH); under CI=true this fails instead';
}

/** Where screenshots go (git-ignored). */
export const OUTPUT_DIR = path.join(ROOT, 'test/console/output');

/** The console's widths: a desktop and the narrowest phone the contract names. */
export const WIDTHS = [1280, 360] as const;

export interface Browsing {
  context: BrowserContext;
  /** A new tab, watched. */
  newPage(): Promise<Page>;
  /** Requests that tried to leave for another host (all refused). */
  offHost: string[];
  /** Console errors and uncaught exceptions, with the page they came from. */
  errors: string[];
  /** Every console error, the browser's own lines for 4xx answers included (a missing favicon is one). */
  allErrors: string[];
  close(): Promise<void>;
}

/**
 * Launches Chromium with a fresh profile. Every request to a host other than `serverUrl`'s is
 * refused and recorded; console errors are recorded except the browser's own log line for an API
 * answer of 4xx, which the console handles and shows in words.
 */
export async function openBrowser(serverUrl: string, options: { timezoneId?: string } = {}): Promise<Browsing> {
  const executablePath = findChromium();
  assert.ok(executablePath !== undefined, 'a Chromium is needed for the console tests (CI=true): apt-get install chromium, or set CHROMIUM_PATH');
  const profile = mkdtempSync(path.join(os.tmpdir(), 'campus-console-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 800 },
    timezoneId: options.timezoneId,
    locale: 'en-GB',
    acceptDownloads: true,
  });
  const host = new URL(serverUrl).host;
  const offHost: string[] = [];
  const errors: string[] = [];
  const allErrors: string[] = [];
  // Only other hosts are intercepted, so the server's own answers (the change feed's stream) pass untouched.
  const elsewhere = (url: URL): boolean => url.protocol !== 'blob:' && url.protocol !== 'data:' && url.host !== host;
  await context.route(elsewhere, (route) => {
    offHost.push(route.request().url());
    return route.abort('blockedbyclient');
  });
  const watch = (page: Page): void => {
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      allErrors.push(`${page.url()}: ${message.text()}`);
      if (/^Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) return;
      errors.push(`${page.url()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => errors.push(`${page.url()}: uncaught ${error.message}`));
    page.setDefaultTimeout(10_000);
  };
  for (const page of context.pages()) watch(page);
  context.on('page', watch);
  return {
    context,
    offHost,
    errors,
    allErrors,
    async newPage() {
      const existing = context.pages().find((page) => page.url() === 'about:blank');
      return existing ?? (await context.newPage());
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** Runs axe-core on the page; fails on any serious or critical violation, naming it and where. */
export async function assertAccessible(page: Page, screen: string): Promise<void> {
  // Evaluated through the DevTools protocol, not a <script>: the console's CSP allows no inline script.
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((violation) => ({ id: violation.id, impact: violation.impact, help: violation.help, nodes: violation.nodes.map((node) => ({ target: node.target })) }));
  });
  const bad = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  assert.deepEqual(
    bad.map((violation) => `${violation.impact} ${violation.id}: ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`),
    [],
    `axe-core finds no serious or critical violation on the ${screen} screen`,
  );
}

/**
 * Checks one screen at both widths: no serious accessibility violation, nothing wider than the
 * window (readable at 360 px), and a full-page screenshot `NAME-WIDTH.png` in the output folder.
 */
export async function checkScreen(page: Page, name: string): Promise<void> {
  mkdirSync(OUTPUT_DIR, { recursive: true });
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: width === 360 ? 740 : 800 });
    const overflow = await page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      const wide = [...document.body.querySelectorAll(":not(.visually-hidden)")].filter((element) => element.getBoundingClientRect().right > width + 1 || element.scrollWidth > element.clientWidth + 1);
      return { by: document.documentElement.scrollWidth - width, wide: wide.slice(-3).map((element) => `<${element.tagName.toLowerCase()} class="${element.className}">`) };
    });
    assert.ok(overflow.by <= 0, `the ${name} screen fits ${width} px without scrolling sideways (${overflow.by} px too wide: ${overflow.wide.join(', ')})`);
    await assertAccessible(page, `${name} (${width} px)`);
    await page.screenshot({ path: path.join(OUTPUT_DIR, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}
