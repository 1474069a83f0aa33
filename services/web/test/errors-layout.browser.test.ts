import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import {
  createErrorGroup,
  createErrorOccurrence,
  createMember,
  createWorkspace,
} from '@ferry/testing';
import {
  axeViolations,
  launchBrowser,
  photograph,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import { startWeb, type WebHarness } from './harness.js';

const SHOTS = '/tmp/shots/errors-layout';
const HOUR = 3_600_000;

/** Classes, messages and frames as real reports have them: long, and no two alike. */
const CLASSES = [
  'TypeError',
  'ActiveRecord::RecordNotFound',
  'Net::ReadTimeout',
  'Payments::Gateways::StripeGateway::CardDeclinedError',
  'django.db.utils.OperationalError',
];
function messageOf(i: number): string {
  return (
    `Cannot read properties of undefined (reading 'items') while rendering the checkout summary ` +
    `for cart ${1000 + i} in the storefront after the discount service answered 503 (attempt ${i})`
  );
}
function frameOf(i: number): string {
  return `app/javascript/storefront/checkout/summary/CheckoutSummaryPanel.tsx:${40 + i}:in renderTotals`;
}

async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const { scroll, width } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    width: window.innerWidth,
  }));
  expect(scroll).toBeLessThanOrEqual(width);
}

/** The page's height and, per column, the header cells' widths; each row's title lines. */
function measure(page: Page) {
  return page.evaluate(() => {
    // Lines of text: rect tops more than half a line apart (a badge or a monospace class on
    // the same line sits a few pixels off the text beside it).
    const lines = (el: Element) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      const tops = Array.from(range.getClientRects(), (r) => r.top).sort((a, b) => a - b);
      return tops.filter((top, i) => i === 0 || top - tops[i - 1]! > 8).length;
    };
    const table = document.querySelector('table.errors')!;
    return {
      height: document.documentElement.scrollHeight,
      tableWidth: table.getBoundingClientRect().width,
      columns: Array.from(table.querySelectorAll('thead th'), (th) => ({
        name: th.textContent.trim(),
        width: Math.round(th.getBoundingClientRect().width),
      })),
      titleLines: Array.from(table.querySelectorAll('tbody .error-title'), lines),
      rowHeights: Array.from(table.querySelectorAll('tbody tr'), (tr) =>
        Math.round(tr.getBoundingClientRect().height),
      ),
    };
  });
}

/**
 * Issue 42, defect 5: the list gave the error the narrowest column (class, culprit and message in
 * ~170 px, 3-4 lines each) and a page of 25 rows was 3,200 px tall. Now the title (class and
 * message) has most of the row on one truncated line, the culprit and facts one line under it.
 */
describe('the Errors pages layout', () => {
  let web: WebHarness;
  let chrome: TestBrowser;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    [web, chrome] = await Promise.all([startWeb(), launchBrowser()]);
  });
  afterAll(async () => {
    await Promise.all(contexts.map((c) => c.close()));
    await Promise.all([chrome?.close(), web?.close()]);
  });

  it('gives the title most of the row, one line each, and 25 rows fit a short page', async () => {
    const db = web.ctx.db;
    const workspace = await createWorkspace(db, { name: 'Acme Shop' });
    const member = await createMember(db, workspace, { role: 'member' });
    const now = Date.now();
    for (let i = 0; i < 25; i++) {
      const group = await createErrorGroup(db, workspace, {
        error_class: CLASSES[i % CLASSES.length]!,
        latest_message: messageOf(i),
        source: i % 3 ? 'js' : 'ruby',
        occurrence_count: 1000 + i * 37,
        environments: ['production', 'staging'],
        first_seen_at: new Date(now - (20 + i) * 24 * HOUR),
        last_seen_at: new Date(now - (i + 1) * 60_000),
        status: 'unresolved',
        regressed_at: i === 2 ? new Date(now - HOUR) : null,
      });
      await createErrorOccurrence(db, group, {
        backtrace: [frameOf(i)],
        app_version: `2026.11.${i}-build.${4000 + i}`,
        occurred_at: new Date(now - (i + 1) * 60_000),
      });
    }

    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    await signInWithForm(page, web.url, member.user.email, member.user.password);
    await page.getByRole('heading', { name: 'Acme Shop' }).waitFor();
    await page.goto(`${web.url}/w/${workspace.id}/${workspace.slug}/errors`);
    await page.getByRole('heading', { name: 'Errors', exact: true }).waitFor();
    expect(await page.locator('table.errors tbody tr').count()).toBe(25);

    const wide = await measure(page);
    console.log('errors list at 1280 px:', JSON.stringify(wide));
    // Before: 3,200 px (issue 42). Now a row is the title line and the facts line.
    expect(wide.height).toBeLessThan(2_000);
    expect(Math.max(...wide.rowHeights)).toBeLessThan(70);
    expect(wide.titleLines).toEqual(Array(25).fill(1));
    // The bulk bar's checkbox column (issue 43) comes first, then the title.
    const [select, title, ...others] = wide.columns;
    expect(select!.name).toBe('Select');
    expect(select!.width).toBeLessThan(50);
    expect(title!.name).toBe('Error');
    for (const other of others) expect(title!.width).toBeGreaterThan(other.width);
    expect(title!.width).toBeGreaterThan(wide.tableWidth / 2);
    // The whole title on hover (the cut one, as in Sentry).
    const first = page.locator('tbody .error-title').first();
    expect(await first.getAttribute('title')).toContain(messageOf(0));
    expect(await axeViolations(page)).toEqual([]);
    await expectNoSidewaysScroll(page);
    await photograph(page, `${SHOTS}/list-1280.png`, { fullPage: true });

    await page.setViewportSize({ width: 390, height: 900 });
    const narrow = await measure(page);
    console.log('errors list at 390 px:', JSON.stringify({ ...narrow, columns: undefined }));
    expect(narrow.titleLines).toEqual(Array(25).fill(1));
    expect(Math.max(...narrow.rowHeights)).toBeLessThan(100);
    expect(await axeViolations(page)).toEqual([]);
    await expectNoSidewaysScroll(page);
    await photograph(page, `${SHOTS}/list-390.png`, { fullPage: true });
    await page.locator('table.errors').scrollIntoViewIfNeeded();
    await photograph(page, `${SHOTS}/list-390-rows.png`);
  });
  it('aligns the "Fix with agent" help text with its button (defect 11)', async () => {
    const db = web.ctx.db;
    const workspace = await createWorkspace(db, { name: 'Acme Fix' });
    const member = await createMember(db, workspace, { role: 'member' });
    const group = await createErrorGroup(db, workspace, { error_class: 'KeyError' });
    await createErrorOccurrence(db, group);
    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    await signInWithForm(page, web.url, member.user.email, member.user.password);
    await page.getByRole('heading', { name: 'Acme Fix' }).waitFor();
    await page.goto(`${web.url}/w/${workspace.id}/${workspace.slug}/errors/${group.id}`);
    const section = page.getByRole('region', { name: 'Fix with agent' });
    const button = section.getByRole('button', { name: 'Fix with agent' });
    await button.waitFor();
    const help = section.locator('p', { hasText: 'Files a ticket' });
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      const [buttonBox, helpBox, sectionBox] = await Promise.all(
        [button, help, section].map((l) => l.boundingBox()),
      );
      // The text starts where the button does, just under it, with the card's own padding below.
      const textLeft = await help.evaluate((p) => {
        const range = document.createRange();
        range.selectNodeContents(p);
        return range.getClientRects()[0]!.left;
      });
      expect(textLeft).toBeCloseTo(buttonBox!.x, 0);
      expect(helpBox!.y - (buttonBox!.y + buttonBox!.height)).toBeLessThan(16);
      const paddingBottom = sectionBox!.y + sectionBox!.height - (helpBox!.y + helpBox!.height);
      expect(paddingBottom).toBeCloseTo(buttonBox!.y - sectionBox!.y, -1);
      await section.scrollIntoViewIfNeeded();
      await photograph(page, `${SHOTS}/fix-with-agent-${width}.png`);
    }
  });
});
