import { existsSync } from 'node:fs';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserServer,
  type Page,
} from 'playwright-core';

export interface TestBrowser {
  browser: Browser;
  /** A fresh, isolated browser context (own cookies) per simulated person. */
  newContext(): Promise<BrowserContext>;
  close(): Promise<void>;
}

/**
 * Where the suite's global setup left the suite's one Chromium (see startSharedChromium). Test files
 * connect to it instead of starting a browser each: a Chromium start costs a second or more of CPU
 * on this 2-core machine, and the ~20 browser files each paid it. Contexts stay per person, so
 * files share no cookies, storage or cache.
 */
export const SHARED_CHROMIUM_ENV = 'FERRY_TEST_CHROMIUM_WS';

/**
 * Debian's headless Chromium (package chromium-headless-shell: the same source and version as the
 * chromium package, built for automation; Playwright's own default for headless runs). Measured on
 * this 2-core host on 2026-11-28, for the same contexts, pages, clicks and axe runs, it took 10
 * core-seconds where /usr/bin/chromium took 22, and the whole suite 470 s instead of 728 s, every
 * test passing on both. Without that package, /usr/bin/chromium.
 */
const HEADLESS_SHELL = '/usr/lib/chromium/chromium-headless-shell';

/**
 * Debian's Chromium driven by playwright-core (never a downloaded browser). CHROMIUM_PATH overrides
 * the binary (CI on Ubuntu uses Google Chrome; `CHROMIUM_PATH=/usr/bin/chromium` runs the full
 * browser). Flags keep it off the network and quiet. Playwright itself gives every launch a fresh,
 * empty profile directory (it refuses a --user-data-dir flag).
 */
const LAUNCH_OPTIONS = {
  executablePath:
    process.env.CHROMIUM_PATH ??
    (existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : '/usr/bin/chromium'),
  headless: true,
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-quic',
    '--no-first-run',
  ],
};

/**
 * The suite's Chromium when the global setup started one (closing only disconnects this file), else a browser
 * of its own (a bench script, a file run outside the suite).
 */
export async function launchBrowser(): Promise<TestBrowser> {
  const shared = process.env[SHARED_CHROMIUM_ENV];
  const browser = shared ? await chromium.connect(shared) : await chromium.launch(LAUNCH_OPTIONS);
  return {
    browser,
    newContext: () => browser.newContext(),
    close: async () => {
      // A file's contexts die with its connection; the shared browser itself lives on.
      await browser.close();
    },
  };
}

/**
 * The suite's global setup: one Chromium for the whole run, reached over its websocket endpoint.
 * Returns undefined when Chromium cannot start (not installed): only the browser files then fail,
 * each with launchBrowser's own error, and the rest of the suite runs.
 */
export async function startSharedChromium(): Promise<BrowserServer | undefined> {
  try {
    const server = await chromium.launchServer(LAUNCH_OPTIONS);
    process.env[SHARED_CHROMIUM_ENV] = server.wsEndpoint();
    return server;
  } catch (error) {
    console.warn(`shared Chromium did not start (browser tests will say why): ${String(error)}`);
    return undefined;
  }
}

/**
 * Signs in through the real form at `<baseUrl>/login` (inputs labelled "Email" and "Password", the
 * button "Sign in") and returns once the form was submitted; callers wait for their own landing.
 */
export async function signInWithForm(
  page: Page,
  baseUrl: string,
  email: string,
  password: string,
): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
