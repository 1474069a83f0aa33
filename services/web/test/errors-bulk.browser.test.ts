import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { newId } from '@ferry/core';
import type { Workspace } from '@ferry/db';
import { createMember, createUser, createWorkspace } from '@ferry/testing';
import {
  axeViolations,
  launchBrowser,
  photograph,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import { ERROR_BULK_CHUNK, runErrorBulkAction } from '@ferry/workspace';
import { startWeb, type WebHarness } from './harness.js';

const SHOTS = '/tmp/shots/errors-bulk';

/** The page at both widths: axe clean, no sideways scroll, a screenshot of each. */
async function checkBothWidths(page: Page, name: string): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    expect(await axeViolations(page)).toEqual([]);
    const { scroll, inner } = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      inner: window.innerWidth,
    }));
    expect(scroll, `${name} at ${width} px scrolls sideways`).toBeLessThanOrEqual(inner);
    await photograph(page, `${SHOTS}/${name}-${width}.png`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/**
 * Issue 43: a member searches, selects every group the search matches across pages, resolves
 * them, and sees the counts change; a large action's page follows its job to the end.
 */
describe('bulk actions in a browser', () => {
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

  async function groups(workspace: Pick<Workspace, 'id'>, count: number, errorClass: string) {
    const base = Date.now() - count * 1_000;
    await web.ctx.db
      .insertInto('error_groups')
      .values(
        Array.from({ length: count }, (_, i) => ({
          id: newId('errorGroup'),
          workspace_id: workspace.id,
          fingerprint: `${errorClass}-${i}`,
          error_class: errorClass,
          latest_message: `Payment step ${i} failed while charging the card of order ${1000 + i}`,
          source: 'js' as const,
          occurrence_count: 1 + (i % 7),
          first_seen_at: new Date(base + i * 1_000),
          last_seen_at: new Date(base + i * 1_000),
          environments: ['production'],
        })),
      )
      .execute();
  }

  async function signIn() {
    const db = web.ctx.db;
    const workspace = await createWorkspace(db, { name: 'Acme Shop' });
    const member = await createMember(db, workspace, {
      role: 'member',
      user: await createUser(db, { name: 'Grace Hopper' }),
    });
    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signInWithForm(page, web.url, member.user.email, member.user.password);
    await page.getByRole('heading', { name: 'Acme Shop' }).waitFor();
    return { workspace, page, base: `/w/${workspace.id}/${workspace.slug}` };
  }

  it('searches, selects all matching across pages, resolves, and the counts change', async () => {
    const { workspace, page, base } = await signIn();
    await groups(workspace, 60, 'CheckoutError');
    await groups(workspace, 8, 'BillingError');
    await page.goto(`${web.url}${base}/errors`);
    const statusTabs = page.getByRole('navigation', { name: 'Filter by status' });
    await expect
      .poll(() => statusTabs.getByRole('link', { name: /Unresolved/ }).textContent())
      .toContain('68');

    await page.locator('#errors-q').fill('is:unresolved CheckoutError');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL(/q=is%3Aunresolved\+CheckoutError/);
    const bar = page.getByTestId('bulk-bar');
    await expect.poll(() => bar.getByTestId('bulk-count').textContent()).toBe('Select groups');

    // The page's 25 rows, then all 60 the search matches (three pages).
    await bar.getByLabel('Select every group on this page').check();
    await expect.poll(() => bar.getByTestId('bulk-count').textContent()).toBe('25 selected');
    await bar.getByTestId('bulk-all').check();
    await expect.poll(() => bar.getByTestId('bulk-count').textContent()).toBe('All 60 selected');
    await checkBothWidths(page, 'list-all-selected');

    await bar.getByRole('button', { name: 'Resolve' }).click();
    await page.getByText('Resolved 60 groups.').waitFor();
    await expect
      .poll(() => statusTabs.getByRole('link', { name: /Resolved/ }).textContent())
      .toContain('60');
    await expect
      .poll(() => statusTabs.getByRole('link', { name: /Unresolved/ }).textContent())
      .toContain('0');
    await checkBothWidths(page, 'list-after-resolve');

    // The default list keeps the 8 others.
    await page.goto(`${web.url}${base}/errors`);
    await expect
      .poll(() => statusTabs.getByRole('link', { name: /Unresolved/ }).textContent())
      .toContain('8');
    await expect
      .poll(() => statusTabs.getByRole('link', { name: /Resolved/ }).textContent())
      .toContain('60');
  });

  it("a large action's page follows its progress to the end", async () => {
    const { workspace, page, base } = await signIn();
    const count = ERROR_BULK_CHUNK * 2 + 200;
    await groups(workspace, count, 'TimeoutError');
    await page.goto(`${web.url}${base}/errors`);
    const bar = page.getByTestId('bulk-bar');
    await bar.getByTestId('bulk-all').check();
    await bar.getByRole('button', { name: 'Ignore' }).click();
    await page.waitForURL(/\/errors\/bulk\/ebk_/);
    const text = page.getByTestId('bulk-progress-text');
    await expect.poll(() => text.textContent()).toContain('Waiting to start: 1,200 groups.');
    const id = /bulk\/(ebk_\w+)/.exec(page.url())![1]!;

    // No worker runs beside this web harness: the test is the job, one chunk, then the rest.
    const controller = new AbortController();
    await runErrorBulkAction(web.ctx.db, id, {
      signal: controller.signal,
      onProgress: () => controller.abort(),
    });
    await expect.poll(() => text.textContent()).toContain('500 of 1,200 groups done.');
    await checkBothWidths(page, 'progress-running');
    await runErrorBulkAction(web.ctx.db, id);
    await expect.poll(() => text.textContent()).toContain('Ignored 1,200 groups.');
    await checkBothWidths(page, 'progress-done');
    await page.getByTestId('bulk-back').click();
    await page.getByRole('heading', { name: 'Errors', exact: true }).waitFor();
    expect(await page.getByText('No unresolved errors').count()).toBe(1);
  });
});
