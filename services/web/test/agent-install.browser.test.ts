import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiToken, createMember, createWorkspace } from '@ferry/testing';
import { registerAgent } from '@ferry/workspace';
import {
  axeViolations,
  photograph,
  launchBrowser,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import type { Page } from 'playwright-core';
import { startWeb, type WebHarness } from './harness.js';

/** Nothing on the page is wider than the window (a long command scrolls inside its box). */
async function fitsTheWindow(page: Page): Promise<void> {
  const widths = await page.evaluate(() => ({
    page: document.documentElement.scrollWidth,
    window: window.innerWidth,
  }));
  expect(widths.page, page.url()).toBeLessThanOrEqual(widths.window);
}

/**
 * Defect 7 in a browser: the Dispatch card's "Add an agent" (the token button, the copyable
 * command, the tarball's hash) on the Dashboard, the API tokens page and /agents, at 390 and
 * 1280 px; the token made on the spot and shown once beside the command.
 */
describe('adding a local agent from the Dispatch card', () => {
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

  it('copies the command, makes a token once, and lays out at 390 and 1280 px', async () => {
    const workspace = await createWorkspace(web.ctx.db, { name: 'Acme Support' });
    const admin = await createMember(web.ctx.db, workspace, { role: 'admin' });
    const base = `${web.url}/w/${workspace.id}/${workspace.slug}`;
    const command = `curl -fsSL ${web.ctx.config.PUBLIC_URL}/agent/install.sh | sudo bash -s -- --dispatch`;

    for (const width of [390, 1280]) {
      const context = await chrome.browser.newContext({
        permissions: ['clipboard-read', 'clipboard-write'],
        viewport: { width, height: 900 },
      });
      const page = await context.newPage();
      await signInWithForm(page, web.url, admin.user.email, admin.user.password);

      // No agent yet: the steps are open on every page that has the card.
      for (const [name, path] of [
        ['dashboard', ''],
        ['tokens', '/settings/tokens'],
        ['agents', '/agents'],
      ] as const) {
        await page.goto(`${base}${path}`);
        const card = page.locator('.dispatch-card');
        await card.getByTestId('agent-install-command').waitFor();
        expect((await card.getByTestId('agent-install-command').textContent())?.trim()).toBe(
          command,
        );
        await fitsTheWindow(page);
        expect(await axeViolations(page), `${name} at ${width} px`).toEqual([]);
        await photograph(page, `/tmp/ferry-agent-card-${name}-${width}.png`, { fullPage: true });
      }
      // On /agents the card spans the page, with no link back to itself.
      const card = page.locator('.dispatch-card');
      expect(await card.getByText('All agents').count()).toBe(0);
      const cardWidth = (await card.boundingBox())!.width;
      const mainWidth = (await page.locator('main').boundingBox())!.width;
      expect(cardWidth).toBeGreaterThan(mainWidth * 0.8);

      await card.getByRole('button', { name: 'Copy the install command' }).click();
      await card.getByRole('button', { name: 'Copied' }).waitFor();
      expect(await page.evaluate(() => window.navigator.clipboard.readText())).toBe(command);

      await card.getByRole('button', { name: 'Make a platform:dispatch token' }).click();
      await page.getByRole('heading', { name: 'Install a local agent' }).waitFor();
      expect(await page.getByTestId('new-token').textContent()).toMatch(/^fry_/);
      await fitsTheWindow(page);
      expect(await axeViolations(page), `install page at ${width} px`).toEqual([]);
      await photograph(page, `/tmp/ferry-agent-install-page-${width}.png`, { fullPage: true });
      await page.reload();
      await page.getByText('was shown once').waitFor();
      await context.close();
    }

    // With an agent, the steps fold under "Add an agent".
    const token = await createApiToken(web.ctx.db, workspace, { scopes: ['platform:dispatch'] });
    await registerAgent(web.ctx.db, {
      workspaceId: workspace.id,
      installId: 'install-shots-01',
      name: 'shop',
      tokenId: token.id,
    });
    for (const width of [390, 1280]) {
      const context = await chrome.browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      await signInWithForm(page, web.url, admin.user.email, admin.user.password);
      await page.goto(`${base}/agents`);
      await page.locator('.agent-row', { hasText: '@shop' }).waitFor();
      expect(await page.getByTestId('agent-install-command').isVisible()).toBe(false);
      await page.getByText('Add an agent').click();
      await page.getByTestId('agent-install-command').waitFor();
      await fitsTheWindow(page);
      await photograph(page, `/tmp/ferry-agent-card-with-agent-${width}.png`, { fullPage: true });
      await page.goto(base);
      await photograph(page, `/tmp/ferry-agent-dashboard-with-agent-${width}.png`, {
        fullPage: true,
      });
      await context.close();
    }
  });
});
