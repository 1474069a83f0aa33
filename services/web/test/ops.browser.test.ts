import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createErrorOccurrence, createMember, createWorkspace } from '@ferry/testing';
import {
  axeViolations,
  photograph,
  launchBrowser,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import { sampleOpsMinute } from '../src/features/ops/history.js';
import { flakyQueue, seedActivity, waitForState, type FlakyQueue } from './ops-fixtures.js';
import { startWeb, type WebHarness } from './harness.js';

const SHOTS = '/tmp/shots/ops';
const WIDTHS = [390, 1280] as const;

/** Full-page screenshots at a phone's and a laptop's width; nothing may scroll sideways. */
async function shoot(page: Page, name: string): Promise<void> {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 860 });
    await photograph(page, `${SHOTS}/ops-${name}-${width}.png`, { fullPage: true });
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect([name, width, overflow]).toEqual([name, width, 0]);
  }
}

describe('the Ops page in a browser', () => {
  let web: WebHarness;
  let chrome: TestBrowser;
  let ingest: FlakyQueue;
  beforeAll(async () => {
    web = await startWeb();
    chrome = await launchBrowser();
    ingest = flakyQueue(web, 'error-ingest');
  });
  afterAll(async () => {
    await ingest?.close();
    await chrome?.close();
    await web?.close();
  });

  it('an admin reads the figures, sees them refresh, and retries a failed job', async () => {
    const db = web.ctx.db;
    const workspace = await createWorkspace(db, { name: 'Acme Shop' });
    const admin = await createMember(db, workspace, { role: 'admin' });
    const { group } = await seedActivity(db, web.deps.box, workspace, admin);
    const jobId = await ingest.failOnce({ workspaceId: workspace.id, reports: [{ m: 'x' }] });
    // A few sampled minutes, so the queue and outbox charts have history to draw.
    const deps = { ...web.deps, prefix: web.ctx.config.REDIS_PREFIX };
    for (const ago of [20, 12, 6, 3, 1]) await sampleOpsMinute(deps, Date.now() - ago * 60_000);

    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    await signInWithForm(page, web.url, admin.user.email, admin.user.password);
    await page.getByRole('heading', { name: 'Acme Shop' }).waitFor();
    await page.getByRole('link', { name: 'Ops', exact: true }).click();
    await page.getByRole('heading', { name: 'Ops', exact: true }).waitFor();
    expect(await page.locator('[data-figure="ingest.hour"]').textContent()).toBe(
      '5 reports accepted in the last hour',
    );
    expect(await page.locator('[data-figure="agents.online"]').textContent()).toBe('1');
    expect(await page.locator('table.ops-queues tbody tr').count()).toBeGreaterThanOrEqual(7);
    expect(await page.locator(`tr[data-job="error-ingest/${jobId}"]`).count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);
    await shoot(page, 'page');

    // Live: a report stored now shows at a later poll (every 5 s), without a reload. The bound is
    // for a loaded host, where a poll's answer can take seconds.
    await createErrorOccurrence(db, group, { received_at: new Date(Date.now() - 1_000) });
    await page
      .locator('[data-figure="ingest.hour"]', { hasText: '6 reports accepted' })
      .waitFor({ timeout: 30_000 });
    expect(await page.locator('svg[data-chart="ingest"] path').count()).toBe(2);

    await page.getByRole('button', { name: `Retry error-ingest job ${jobId}` }).click();
    await page.getByRole('status').filter({ hasText: 'is queued again' }).waitFor();
    await waitForState(web, 'error-ingest', jobId, 'completed');
    expect(ingest.runs).toHaveLength(2);
    expect(await axeViolations(page)).toEqual([]);
    await shoot(page, 'retried');
    await context.close();
  });
});
