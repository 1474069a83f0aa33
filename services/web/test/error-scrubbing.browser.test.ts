import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createMember, createWorkspace } from '@ferry/testing';
import {
  photograph,
  launchBrowser,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import { startWeb, type WebHarness } from './harness.js';

const SHOTS = '/tmp/ferry-shots';

/**
 * The page at a phone's and a laptop's width: the top (where the flash is) and the card
 * photographed, and nothing scrolls sideways.
 */
async function shoot(page: Page, name: string): Promise<void> {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 860 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await photograph(page, `${SHOTS}/scrubbing-${name}-${width}-top.png`);
    await photograph(
      page.getByTestId('scrubbing-card'),
      `${SHOTS}/scrubbing-${name}-${width}-card.png`,
    );
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect([name, width, overflow]).toEqual([name, width, 0]);
  }
}

/** Settings > Error reporting's "Data scrubbing" card, filled and saved in headless Chromium. */
describe('Data scrubbing in a browser', () => {
  let web: WebHarness;
  let chrome: TestBrowser;
  beforeAll(async () => {
    web = await startWeb();
    chrome = await launchBrowser();
  });
  afterAll(async () => {
    await chrome?.close();
    await web?.close();
  });

  it('an admin fills the form, sees a refusal inline, fixes it and saves', async () => {
    const workspace = await createWorkspace(web.ctx.db, { name: 'Acme Shop' });
    const admin = await createMember(web.ctx.db, workspace, { role: 'admin' });
    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    await signInWithForm(page, web.url, admin.user.email, admin.user.password);
    await page.getByRole('heading', { name: 'Acme Shop' }).waitFor();

    await page.getByRole('link', { name: 'Error reporting' }).click();
    const card = page.getByTestId('scrubbing-card');
    await card.getByRole('heading', { name: 'Data scrubbing' }).waitFor();
    await card.getByLabel('Also scrub these keys').fill(`iban\n${'x'.repeat(61)}`);
    await card.getByLabel('Safe fields (never scrubbed)').fill('session_country');
    await card.getByRole('button', { name: 'Save scrubbing settings' }).click();
    await card.getByText('is too long: each key is at most 60 characters.').waitFor();
    await shoot(page, 'refused');

    await card.getByLabel('Also scrub these keys').fill('iban\nX-Tenant-Secret');
    await card.getByRole('checkbox', { name: "Keep the user's IP address" }).check();
    await card.getByRole('button', { name: 'Save scrubbing settings' }).click();
    await page.getByText('Scrubbing settings saved.').waitFor();
    expect(await card.getByLabel('Also scrub these keys').inputValue()).toBe(
      'iban\nx-tenant-secret',
    );
    expect(
      await card.getByRole('checkbox', { name: "Keep the user's IP address" }).isChecked(),
    ).toBe(true);
    await shoot(page, 'saved');
    await context.close();
  });
});
