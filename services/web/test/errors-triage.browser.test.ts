import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
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

const SHOTS = '/tmp/shots/errors-triage';
const HOUR = 3_600_000;

/** Nothing may push the page sideways: long classes, messages and backtraces wrap. */
async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const { scroll, width } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    width: window.innerWidth,
  }));
  expect(scroll).toBeLessThanOrEqual(width);
}

/** The page at both widths: axe clean, no sideways scroll, a screenshot of each. */
async function checkBothWidths(page: Page, name: string): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    expect(await axeViolations(page)).toEqual([]);
    await expectNoSidewaysScroll(page);
    await photograph(page, `${SHOTS}/${name}-${width}.png`, { fullPage: true });
    await page.evaluate(() => window.scrollTo(0, 0));
    await photograph(page, `${SHOTS}/${name}-${width}-top.png`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

describe('triaging errors in a browser', () => {
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

  it('a member filters, searches, reads paged occurrences and resolves a group', async () => {
    const db = web.ctx.db;
    const workspace = await createWorkspace(db, { name: 'Acme Shop' });
    const member = await createMember(db, workspace, { role: 'member' });
    const visitor = await createVisitor(db, workspace, {
      name: 'Ada Lovelace',
      email: 'ada@example.test',
    });
    const now = Date.now();
    const longClass =
      'Payments::Gateways::StripeGateway::CardDeclinedWithAnExtremelyLongNestedNamespaceThatKeepsGoingError';
    const longToken = `tok_${'9f3a'.repeat(60)}`;
    const declined = await createErrorGroup(db, workspace, {
      error_class: longClass,
      latest_message: `The card was declined for payment intent ${longToken} while charging order 1042`,
      source: 'ruby',
      occurrence_count: 45,
      environments: ['production'],
      first_seen_at: new Date(now - 13 * 24 * HOUR),
      last_seen_at: new Date(now - 60_000),
    });
    // 45 occurrences over the last 13 days, newest a minute ago: three pages of 20.
    for (let i = 0; i < 45; i++) {
      await createErrorOccurrence(db, declined, {
        message: `The card was declined (attempt ${i}) for ${longToken}`,
        backtrace: [
          `app/services/payments/${'deeply_nested_folder/'.repeat(15)}charge.rb:42:in \`call\``,
          "app/controllers/checkout_controller.rb:17:in `create'",
        ],
        url: `https://shop.example.test/checkout/confirm?intent=${longToken}`,
        request_method: 'POST',
        request_path: `/checkout/confirm/${longToken}`,
        environment: 'production',
        app_version: '2026.11.24',
        context: { order_id: 1042 + i, customer: { plan: 'pro' } },
        visitor_id: i === 0 ? visitor.id : null,
        occurred_at: new Date(now - 60_000 - i * 7 * HOUR),
      });
    }
    const regression = await createErrorGroup(db, workspace, {
      error_class: 'Redis::CannotConnectError',
      latest_message: 'Error connecting to Redis on 10.0.0.7:6379 (ECONNREFUSED)',
      source: 'node',
      occurrence_count: 3,
      environments: ['production'],
      regressed_at: new Date(now - HOUR),
      last_seen_at: new Date(now - 5 * 60_000),
    });
    for (let i = 0; i < 3; i++) {
      await createErrorOccurrence(db, regression, {
        environment: 'production',
        occurred_at: new Date(now - 5 * 60_000 - i * 30 * HOUR),
      });
    }
    await createErrorGroup(db, workspace, {
      error_class: 'Net::ReadTimeout',
      latest_message: 'Net::ReadTimeout with #<TCPSocket:(closed)>',
      status: 'resolved',
      environments: ['staging'],
      last_seen_at: new Date(now - 2 * HOUR),
    });
    await createErrorGroup(db, workspace, {
      error_class: 'ActionController::RoutingError',
      latest_message: 'No route matches [GET] "/wp-login.php"',
      status: 'ignored',
      environments: ['staging'],
      last_seen_at: new Date(now - 3 * HOUR),
    });
    for (let i = 0; i < 5; i++) {
      await createErrorGroup(db, workspace, {
        error_class: `TypeError${i}`,
        latest_message: `Cannot read properties of undefined (reading 'item${i}')`,
        source: 'js',
        environments: ['browser'],
        last_seen_at: new Date(now - (4 + i) * HOUR),
      });
    }

    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signInWithForm(page, web.url, member.user.email, member.user.password);
    await page.getByRole('heading', { name: 'Acme Shop' }).waitFor();
    await page.getByRole('link', { name: 'Errors', exact: true }).click();
    await page.getByRole('heading', { name: 'Errors', exact: true }).waitFor();

    // Unresolved by default: 7 groups; the regression is marked; the sparkline names its total.
    const statusNav = page.getByRole('navigation', { name: 'Filter by status' });
    expect(await statusNav.locator('[aria-current="page"]').textContent()).toMatch(
      /Unresolved\s*7/,
    );
    const rows = page.locator('table.errors tbody tr');
    expect(await rows.count()).toBe(7);
    const regressionRow = rows.filter({ hasText: 'Redis::CannotConnectError' });
    expect(await regressionRow.locator('.badge.danger').textContent()).toBe('Regression');
    expect(
      await page.getByRole('img', { name: '45 occurrences in the last 14 days' }).count(),
    ).toBe(1);
    expect(await page.getByRole('img', { name: '3 occurrences in the last 14 days' }).count()).toBe(
      1,
    );
    await checkBothWidths(page, 'list-unresolved');

    // Issue 43: the box holds the query, is:unresolved by default; free text ignores case.
    const box = page.getByRole('searchbox', { name: 'Search' });
    expect(await box.inputValue()).toBe('is:unresolved');
    await box.fill('is:unresolved econnrefused');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/\/errors\?q=is%3Aunresolved\+econnrefused$/);
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('Redis::CannotConnectError');
    expect(await axeViolations(page)).toEqual([]);

    // The status tabs edit the query's is: term: All takes it out.
    await statusNav.getByRole('link', { name: /^All/ }).click();
    await page.waitForURL(/\/errors\?q=econnrefused$/);
    expect(await box.inputValue()).toBe('econnrefused');

    // Every status, then the environment menu's staging shortcut: the resolved and ignored groups.
    await box.fill('');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/\/errors\?q=$/);
    expect(await rows.count()).toBe(9);
    await page.locator('.env-menu summary').click();
    await page.locator('.env-menu').getByRole('link', { name: 'staging' }).click();
    await page.waitForURL(/\/errors\?q=env%3Astaging$/);
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).textContent()).toMatch(/Net::ReadTimeout\s+Resolved/);
    expect(await rows.nth(1).textContent()).toMatch(/ActionController::RoutingError\s+Ignored/);
    await checkBothWidths(page, 'list-staging-all');

    // A malformed query is said under the box, naming the token, never as an empty list.
    await box.fill('env:staging lvel:error');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('heading', { name: 'Fix the search to see errors' }).waitFor();
    expect(await page.getByTestId('search-error').textContent()).toContain('“lvel:error”');
    expect(await box.getAttribute('aria-invalid')).toBe('true');
    await checkBothWidths(page, 'list-search-error');

    // A search that matches nothing says so and offers the way back.
    await box.fill('100% nothing_like_this');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('heading', { name: 'No error groups match' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Show every error group' }).click();
    await page.waitForURL(/\/errors\?q=\+$/);
    expect(await rows.count()).toBe(9);

    // The group: occurrences collapsed but the first, 20 a page.
    await page.getByRole('link', { name: longClass, exact: true }).click();
    await page.waitForURL(`**/errors/${declined.id}`);
    await page.getByRole('heading', { name: '45 occurrences' }).waitFor();
    const occurrences = page.locator('details.occurrence');
    expect(await occurrences.count()).toBe(20);
    expect(await occurrences.nth(0).getAttribute('open')).toBe('');
    expect(await occurrences.nth(1).getAttribute('open')).toBeNull();
    const newest = occurrences.first();
    expect(await newest.locator('pre.backtrace').textContent()).toContain('charge.rb:42');
    expect(await newest.locator('.visitor').textContent()).toContain('Ada Lovelace');
    expect(await newest.textContent()).toContain('(attempt 0)');
    expect(await page.locator('.pager').textContent()).toContain('Page 1 of 3');
    await occurrences.nth(1).locator('summary').click();
    expect(await occurrences.nth(1).getAttribute('open')).toBe('');
    expect(await occurrences.nth(1).locator('pre.backtrace').isVisible()).toBe(true);
    await checkBothWidths(page, 'group-page1');

    await page.getByRole('link', { name: 'Older →' }).click();
    await page.waitForURL(`**/errors/${declined.id}?page=2`);
    expect(await occurrences.first().textContent()).toContain('(attempt 20)');
    expect(await axeViolations(page)).toEqual([]);

    await page.goto(`${web.url}/w/${workspace.id}/${workspace.slug}/errors/${declined.id}?page=7`);
    await page.getByRole('heading', { name: 'There is no page 7' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await photograph(page, `${SHOTS}/group-past-end-1280.png`, { fullPage: true });
    await page.getByRole('link', { name: 'Go to the last page' }).click();
    await page.waitForURL(`**/errors/${declined.id}?page=3`);
    expect(await occurrences.count()).toBe(5);
    expect(await occurrences.last().textContent()).toContain('(attempt 44)');

    // Resolve it: the status changes, and the unresolved list no longer shows it.
    await page.getByRole('button', { name: 'Resolve', exact: true }).click();
    await page.getByText('Resolved. A new occurrence will reopen it as a regression.').waitFor();
    expect(await page.getByTestId('group-status').textContent()).toContain('Resolved');
    expect(await page.getByRole('button', { name: 'Reopen' }).count()).toBe(1);
    await checkBothWidths(page, 'group-resolved');

    await page.getByRole('link', { name: '← Errors' }).click();
    await page.getByRole('heading', { name: 'Errors', exact: true }).waitFor();
    expect(await rows.count()).toBe(6);
    expect(await page.getByRole('link', { name: longClass, exact: true }).count()).toBe(0);
    const status = await db
      .selectFrom('error_groups')
      .select(['status', 'status_changed_at'])
      .where('id', '=', declined.id)
      .executeTakeFirstOrThrow();
    expect(status.status).toBe('resolved');
    expect(status.status_changed_at).not.toBeNull();
    await context.close();
  });
});
