import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export interface TestBrowser {
  browser: Browser;
  /** A fresh, isolated browser context (own cookies) per simulated person. */
  newContext(): Promise<BrowserContext>;
  close(): Promise<void>;
}

/**
 * Debian's Chromium driven by playwright-core (never a downloaded browser). CHROMIUM_PATH overrides
 * the binary (CI on Ubuntu uses Google Chrome). Flags keep it off the network and quiet. Playwright
 * itself gives every launch a fresh, empty profile directory (it refuses a --user-data-dir flag).
 */
export async function launchBrowser(): Promise<TestBrowser> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
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
  });
  return {
    browser,
    newContext: () => browser.newContext(),
    close: async () => {
      await browser.close();
    },
  };
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
