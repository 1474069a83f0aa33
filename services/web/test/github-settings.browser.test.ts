import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createFeedback, createMember, createWorkspace, startApp } from '@ferry/testing';
import {
  photograph,
  launchBrowser,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import { FakeGitHub } from '@ferry/testing/fake-github';
import { createWebApp } from '../src/app.js';
import { loadWebSettings } from '../src/config.js';
import { webDeps } from '../src/deps.js';
import { startWeb, type WebHarness } from './harness.js';

const SHOTS = '/tmp/ferry-shots';
const WIDTHS = [390, 1280] as const;

/** Full-page screenshots at a phone's and a laptop's width; nothing may scroll sideways. */
async function shoot(page: Page, name: string): Promise<void> {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 860 });
    await photograph(page, `${SHOTS}/github-${name}-${width}.png`, { fullPage: true });
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    if (overflow) {
      // Name the elements sticking out, so a failure says where to look.
      const wide = await page.evaluate(() =>
        Array.from(document.querySelectorAll<HTMLElement>('main *'))
          .filter((el) => el.getBoundingClientRect().right > document.body.clientWidth + 1)
          .slice(0, 10)
          .map((el) => `${el.tagName.toLowerCase()}.${el.className}`),
      );
      console.log(`${name} at ${width}px is wider than the screen:`, wide);
    }
    expect([name, width, overflow]).toEqual([name, width, 0]);
  }
}

/**
 * The GitHub settings page and the ticket page's "Dispatch to GitHub" in headless Chromium: the
 * real install and authorize redirects through the fake GitHub, a switch, a dispatch, and
 * screenshots at 390 and 1280 px wide.
 */
describe('GitHub settings and dispatch in a browser', () => {
  let fake: FakeGitHub;
  let web: WebHarness;
  let chrome: TestBrowser;
  beforeAll(async () => {
    fake = await new FakeGitHub().start();
    web = await startWeb(fake.env(), { ownPublicUrl: true });
    fake.setupUrl = `${web.url}/github/setup`;
    chrome = await launchBrowser();
  });
  afterAll(async () => {
    await chrome?.close();
    await web?.close();
    await fake?.close();
  });

  it('connects GitHub, switches a repository on and dispatches a ticket', async () => {
    const { db } = web.ctx;
    const workspace = await createWorkspace(db, { name: 'Acme Shop' });
    const admin = await createMember(db, workspace, { role: 'admin' });
    const ticket = await createFeedback(db, workspace, {
      title: 'Pay button does nothing on Safari',
      note: 'Clicking Pay on the checkout page does nothing. Tried twice, cleared the cache too.',
    });
    const base = `${web.url}/w/${workspace.id}/${workspace.slug}`;
    fake.actAs('acme-dev');
    fake.nextInstallRepos = [
      { name: 'storefront', defaultBranch: 'main' },
      // 100 characters, GitHub's longest repository name (#28: long names never widen a page).
      {
        name: `payments-service-${'with-a-long-name-'.repeat(5)}`.slice(0, 100),
        defaultBranch: 'develop',
      },
      { name: 'docs', defaultBranch: 'main' },
    ];

    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    await signInWithForm(page, web.url, admin.user.email, admin.user.password);
    await page.getByRole('heading', { name: 'Acme Shop' }).waitFor();

    await page.getByRole('link', { name: 'GitHub', exact: true }).click();
    await page.getByRole('heading', { name: 'GitHub', exact: true }).waitFor();
    await shoot(page, 'settings-new');

    // Connect: GitHub's install page, the Setup URL, GitHub's authorize page, the Callback URL.
    await page.getByRole('button', { name: 'Connect GitHub' }).click();
    await page.getByText('Connected to acme-dev as @acme-dev: 3 repositories found.').waitFor();
    expect(page.url()).toBe(`${base}/settings/github`);

    await page.getByRole('switch', { name: 'Enabled: acme-dev/storefront' }).click();
    await page.getByText('acme-dev/storefront is ready for dispatch.').waitFor();
    expect(
      await page
        .getByRole('switch', { name: 'Linked: acme-dev/storefront' })
        .getAttribute('aria-checked'),
    ).toBe('true');
    await page.getByRole('switch', { name: 'Linked: acme-dev/docs' }).click();
    await page.getByText('acme-dev/docs is linked').waitFor();
    await shoot(page, 'settings');

    // The ticket: pick the ready repository, dispatch, see it listed.
    await page.goto(`${base}/feedback/${ticket.id}`);
    const panel = page.locator('#dispatch');
    await panel.getByRole('heading', { name: 'Dispatch to GitHub' }).waitFor();
    expect(await panel.getByLabel('Repository').inputValue()).not.toBe('');
    await panel.getByRole('button', { name: 'Dispatch' }).click();
    await page.getByText('Dispatched to acme-dev/storefront.').waitFor();
    expect(await panel.locator('[data-testid="dispatch"]').count()).toBe(1);

    // Later progress, as the dispatch service records it.
    await db
      .updateTable('dispatches')
      .set({
        status: 'pr_opened',
        issue_url: 'https://github.com/acme-dev/storefront/issues/41',
        pr_url: 'https://github.com/acme-dev/storefront/pull/42',
        task_state: 'in_progress',
      })
      .where('feedback_id', '=', ticket.id)
      .execute();
    await page.reload();
    await panel.getByText('PR opened').waitFor();
    const prLink = panel.getByRole('link', { name: /Pull request #42/ });
    expect(await prLink.getAttribute('target')).toBe('_blank');
    expect(await prLink.getAttribute('rel')).toBe('noopener noreferrer');
    // A second dispatch while one is in flight is refused on the page itself.
    await panel.getByRole('button', { name: 'Dispatch' }).click();
    await panel.getByRole('alert').waitFor();
    expect(await panel.getByRole('alert').textContent()).toContain('already running');
    await shoot(page, 'ticket');
    await context.close();
  });

  it('shows the setup steps when GitHub is not configured', async () => {
    const env = Object.fromEntries(
      Object.entries(web.ctx.env).filter(([name]) => !name.startsWith('GITHUB_')),
    );
    const bare = webDeps(web.ctx, loadWebSettings(env));
    const bareWeb = createWebApp(bare);
    const app = await startApp(bareWeb.app, (server) => bareWeb.realtime.attach(server));
    try {
      const workspace = await createWorkspace(web.ctx.db, { name: 'Acme Shop' });
      const admin = await createMember(web.ctx.db, workspace, { role: 'admin' });
      const ticket = await createFeedback(web.ctx.db, workspace);
      const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 860 } });
      const page = await context.newPage();
      await signInWithForm(page, app.url, admin.user.email, admin.user.password);
      await page.getByRole('heading', { name: 'Acme Shop' }).waitFor();
      await page.goto(`${app.url}/w/${workspace.id}/${workspace.slug}/settings/github`);
      await page.getByRole('heading', { name: 'Set up the GitHub App' }).waitFor();
      await shoot(page, 'setup');
      await page.goto(`${app.url}/w/${workspace.id}/${workspace.slug}/feedback/${ticket.id}`);
      await page.getByText('GitHub is not set up on this server yet').waitFor();
      await context.close();
    } finally {
      await bareWeb.realtime.close();
      await app.close();
      await bare.close();
    }
  });
});
