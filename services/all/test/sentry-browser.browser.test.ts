import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Workspace } from '@ferry/db';
import { createMember, createWorkspace, waitUntil } from '@ferry/testing';
import { launchBrowser, signInWithForm, type TestBrowser } from '@ferry/testing/browser';
import { startFerry, type FerryHarness } from './support/ferry.js';
import { sentryBrowserScript } from './support/sentry-browser-sdk.js';

/**
 * The real @sentry/browser (from npm, bundled as a customer's build would) on a page of another
 * origin, pointed at `pnpm start` with the workspace's DSN: its events cross origins to the
 * envelope endpoint (mounted before the web app's session and CSRF guards) and show on the Errors
 * page with class, message, backtrace, environment and release.
 */
describe('@sentry/browser on a customer page', () => {
  let ferry: FerryHarness;
  let chrome: TestBrowser;
  let hostServer: http.Server;
  let hostUrl: string;
  let workspace: Workspace;
  let sdkBundle: string;

  function hostPage(): string {
    const { host } = new URL(ferry.url);
    const dsn = `http://${workspace.public_key}@${host}/1`;
    return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<script>${sdkBundle}</script>
<script>
  Sentry.init({ dsn: ${JSON.stringify(dsn)}, release: 'shop-web@5.2.0', environment: 'browser-e2e' });
  function applyCoupon(code) {
    throw new TypeError('coupon ' + code + ' is not valid');
  }
  window.reportCoupon = function (code) {
    try { applyCoupon(code); } catch (error) { Sentry.captureException(error); }
  };
</script>
</head><body>
<button id="uncaught" type="button" onclick="setTimeout(function () { applyCoupon('UNCAUGHT'); })">Apply</button>
</body></html>`;
  }

  beforeAll(async () => {
    sdkBundle = await sentryBrowserScript();
    [ferry, chrome] = await Promise.all([startFerry(), launchBrowser()]);
    workspace = await createWorkspace(ferry.ctx.db, { name: 'Shop' });
    hostServer = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(hostPage());
    });
    await new Promise<void>((resolve) => hostServer.listen(0, '127.0.0.1', resolve));
    hostUrl = `http://127.0.0.1:${(hostServer.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    hostServer?.closeAllConnections();
    await new Promise((resolve) => hostServer?.close(resolve));
    await chrome?.close();
    await ferry?.close();
  });

  it('sends captured and uncaught errors cross-origin; they are on the Errors page, one group', async () => {
    const context = await chrome.newContext();
    const page = await context.newPage();
    const answers: number[] = [];
    page.on('response', (response) => {
      if (response.url().includes('/api/1/envelope/')) answers.push(response.status());
    });
    await page.goto(hostUrl);
    await page.evaluate(() =>
      (window as unknown as { reportCoupon(c: string): void }).reportCoupon('SAVE10'),
    );
    await page.locator('#uncaught').click();

    const occurrences = () =>
      ferry.ctx.db
        .selectFrom('error_occurrences')
        .selectAll()
        .where('workspace_id', '=', workspace.id)
        .execute();
    await waitUntil(
      async () => (await occurrences()).length >= 2,
      'both browser events to be stored',
    );
    expect(answers.length).toBeGreaterThanOrEqual(2);
    expect(answers.every((status) => status === 200)).toBe(true);
    const stored = await occurrences();
    expect(stored.map((o) => o.message).sort()).toEqual([
      'coupon SAVE10 is not valid',
      'coupon UNCAUGHT is not valid',
    ]);
    for (const o of stored) {
      expect(o).toMatchObject({
        error_class: 'TypeError',
        source: 'js',
        environment: 'browser-e2e',
        app_version: 'shop-web@5.2.0',
        url: `${hostUrl}/`,
      });
      expect(o.backtrace[0]).toMatch(/:in applyCoupon$/);
    }
    // Same class, same top frame: one group (SPEC.md's fingerprint).
    expect(new Set(stored.map((o) => o.group_id)).size).toBe(1);

    const owner = await createMember(ferry.ctx.db, workspace, { role: 'owner' });
    const staff = await context.newPage();
    await signInWithForm(staff, ferry.url, owner.user.email, owner.user.password);
    await staff.goto(`${ferry.url}/w/${workspace.id}/${workspace.slug}/errors`);
    await staff
      .getByRole('link', { name: /TypeError/ })
      .first()
      .click();
    await staff.getByText('coupon', { exact: false }).first().waitFor();
    const detail = await staff.locator('main').innerText();
    expect(detail).toContain('TypeError');
    expect(detail).toContain('browser-e2e');
    expect(detail).toContain('shop-web@5.2.0');
    expect(detail).toMatch(/in applyCoupon/);
    await context.close();
  });
});
