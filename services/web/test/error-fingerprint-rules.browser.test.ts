import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  createErrorGroup,
  createErrorOccurrence,
  createMember,
  createWorkspace,
} from '@ferry/testing';
import {
  photograph,
  launchBrowser,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import { startWeb, type WebHarness } from './harness.js';

const SHOTS = '/tmp/ferry-shots';

/** The card at a phone's and a laptop's width, with nothing scrolling sideways. */
async function shoot(page: Page, name: string): Promise<void> {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 860 });
    await photograph(
      page.getByTestId('fingerprint-rules-card'),
      `${SHOTS}/fingerprint-rules-${name}-${width}.png`,
    );
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect([name, width, overflow]).toEqual([name, width, 0]);
  }
}

/** Settings > Error reporting's "Fingerprint rules" card in headless Chromium (issue 43). */
describe('Fingerprint rules in a browser', () => {
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

  it('an admin sees a syntax error by line, tests a rule, and saves it', async () => {
    const workspace = await createWorkspace(web.ctx.db, { name: 'Acme Shop' });
    const admin = await createMember(web.ctx.db, workspace, { role: 'admin' });
    const group = await createErrorGroup(web.ctx.db, workspace, { error_class: 'ReadTimeout' });
    await createErrorOccurrence(web.ctx.db, group);
    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    await signInWithForm(page, web.url, admin.user.email, admin.user.password);
    await page.getByRole('heading', { name: 'Acme Shop' }).waitFor();
    await page.getByRole('link', { name: 'Error reporting' }).click();

    const card = page.getByTestId('fingerprint-rules-card');
    await card.getByLabel('Rules').fill('error.type:*Timeout -> timeouts\nculprit:x -> y');
    await card.getByRole('button', { name: 'Save rules' }).click();
    await card.getByTestId('rule-errors').getByText('line 2: unknown matcher').waitFor();
    await shoot(page, 'error');

    await card.getByLabel('Rules').fill('# payment timeouts\nerror.type:*Timeout -> timeouts');
    await card.getByRole('button', { name: 'Test these rules' }).click();
    await card.getByTestId('rule-test').getByRole('link', { name: 'ReadTimeout' }).waitFor();
    await shoot(page, 'tested');

    await card.getByRole('button', { name: 'Save rules' }).click();
    await page.getByText('Fingerprint rules saved.').waitFor();
    await context.close();
  });
});
