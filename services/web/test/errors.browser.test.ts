import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorSource } from '@ferry/db';
import {
  createErrorGroup,
  createErrorOccurrence,
  createMember,
  createVisitor,
  createWorkspace,
} from '@ferry/testing';
import {
  axeViolations,
  photograph,
  launchBrowser,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import { startWeb, type WebHarness } from './harness.js';

const SOURCES: ErrorSource[] = ['ruby', 'js', 'api', 'mobile', 'node', 'python', 'php'];
const CLASSES = ['NoMethodError', 'TypeError', 'Faraday::TimeoutError', 'IllegalStateException'];

describe('the Errors pages in a browser', () => {
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

  it('a member filters, pages and opens a group; a guest is refused', async () => {
    const db = web.ctx.db;
    const workspace = await createWorkspace(db, { name: 'Acme Shop' });
    const member = await createMember(db, workspace, { role: 'member' });
    const guest = await createMember(db, workspace, { role: 'guest' });
    const visitor = await createVisitor(db, workspace, {
      name: 'Ada Lovelace',
      email: 'ada@example.test',
    });
    // 7 sources x 30 groups = 210 groups; js gets 30, so two pages when filtered. The most recent
    // js group is the one the test opens from page 2 (26th most recent js group).
    const now = Date.now();
    const jsGroups = [];
    for (let i = 0; i < 210; i++) {
      const source = SOURCES[i % SOURCES.length]!;
      const group = await createErrorGroup(db, workspace, {
        error_class: `${CLASSES[i % CLASSES.length]}${i}`,
        latest_message: `undefined method 'total' for nil (report ${i}) while rendering the checkout summary`,
        source,
        occurrence_count: (i % 13) + 1,
        first_seen_at: new Date(now - 3 * 86_400_000),
        last_seen_at: new Date(now - (210 - i) * 60_000),
      });
      if (source === 'js') jsGroups.push(group);
    }
    // Most recent first: jsGroups[29] on page 1, jsGroups[4] is the first on page 2.
    const target = jsGroups[4]!;
    for (let i = 0; i < 3; i++) {
      await createErrorOccurrence(db, target, {
        message: `Cannot read properties of undefined (reading 'total') #${i}`,
        backtrace: [
          'TypeError: Cannot read properties of undefined',
          '    at renderSummary (https://shop.example.test/assets/checkout.js:120:17)',
          '    at HTMLButtonElement.<anonymous> (https://shop.example.test/assets/checkout.js:88:5)',
        ],
        url: 'https://shop.example.test/checkout?step=2',
        request_method: 'GET',
        request_path: '/checkout',
        environment: 'browser',
        app_version: '2026.11.21',
        context: { cart_id: 'c_981', items: 3, flags: { new_checkout: true } },
        visitor_id: i === 0 ? visitor.id : null,
        occurred_at: new Date(now - i * 90_000),
      });
    }

    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    await signInWithForm(page, web.url, member.user.email, member.user.password);
    await page.getByRole('heading', { name: 'Acme Shop' }).waitFor();

    await page.getByRole('link', { name: 'Errors', exact: true }).click();
    await page.getByRole('heading', { name: 'Errors', exact: true }).waitFor();
    expect(await page.getByTestId('retained-total').textContent()).toMatch(
      /3 occurrences\s+retained in\s+210 groups/,
    );
    expect(await page.locator('table.errors tbody tr').count()).toBe(25);
    expect(await axeViolations(page)).toEqual([]);
    await photograph(page, '/tmp/ferry-errors.png', { fullPage: true });

    await page
      .getByRole('navigation', { name: 'Filter by source' })
      .getByRole('link', { name: /^js/ })
      .click();
    // Issue 43: the source tab edits the search, which the URL carries.
    await page.waitForURL('**/errors?q=is%3Aunresolved+source%3Ajs');
    expect(await page.locator('table.errors tbody tr').count()).toBe(25);
    const badges = await page.locator('table.errors .badge.source').allTextContents();
    expect(new Set(badges)).toEqual(new Set(['js']));
    expect(await page.locator('.pager').textContent()).toContain('Page 1 of 2');

    await page.getByRole('link', { name: 'Older →' }).click();
    await page.waitForURL('**/errors?q=is%3Aunresolved+source%3Ajs&page=2');
    expect(await page.locator('.pager').textContent()).toContain('Page 2 of 2');
    expect(await axeViolations(page)).toEqual([]);
    expect(await page.locator('table.errors tbody tr').count()).toBe(5);
    await page.getByRole('link', { name: target.error_class, exact: true }).click();

    await page.waitForURL(`**/errors/${target.id}`);
    await page.getByRole('heading', { name: /3 occurrences/ }).waitFor();
    expect(await page.locator('details.occurrence').count()).toBe(3);
    const newest = page.locator('details.occurrence').first();
    expect(await newest.textContent()).toContain("reading 'total') #0");
    expect(await newest.locator('pre.backtrace').textContent()).toContain(
      'at HTMLButtonElement.<anonymous>',
    );
    expect(JSON.parse((await newest.locator('pre.context').textContent()) ?? '')).toEqual({
      cart_id: 'c_981',
      items: 3,
      flags: { new_checkout: true },
    });
    expect(await newest.locator('.visitor').textContent()).toContain('Ada Lovelace');
    expect(await axeViolations(page)).toEqual([]);
    await photograph(page, '/tmp/ferry-error-group.png', { fullPage: true });

    await page.getByRole('link', { name: 'Error reporting' }).click();
    await page.getByTestId('public-key').waitFor();
    expect(await page.getByTestId('public-key').textContent()).toBe(workspace.public_key);
    expect(await axeViolations(page)).toEqual([]);
    await photograph(page, '/tmp/ferry-error-settings.png', { fullPage: true });
    await context.close();

    const guestContext = await chrome.browser.newContext();
    const guestPage = await guestContext.newPage();
    await signInWithForm(guestPage, web.url, guest.user.email, guest.user.password);
    await guestPage.getByRole('heading', { name: 'Acme Shop' }).waitFor();
    expect(await guestPage.getByRole('link', { name: 'Errors', exact: true }).count()).toBe(0);
    const refused = await guestPage.goto(`${web.url}/w/${workspace.id}/${workspace.slug}/errors`);
    expect(refused?.status()).toBe(403);
    expect(await guestPage.content()).not.toContain(target.error_class);
    await guestContext.close();
  });
});
