import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, photograph, type TestBrowser } from '@ferry/testing/browser';
import { startFerry, type FerryHarness } from './support/ferry.js';

const SHOTS = '/tmp/ferry-shots/api-reference';

/**
 * Issue 46: /docs/api renders the OpenAPI description with Redoc served by Ferry itself. Signed
 * out, in Chromium, every request the page makes stays on Ferry's origin (no CDN, no font or
 * image from elsewhere), the described operations and webhooks show, and the page does not
 * scroll sideways at 390 or 1280 px (screenshots with FERRY_TEST_SHOTS).
 */
describe('the API reference page', () => {
  let ferry: FerryHarness;
  let chrome: TestBrowser;
  beforeAll(async () => {
    [ferry, chrome] = await Promise.all([startFerry(), launchBrowser()]);
  });
  afterAll(async () => {
    await chrome?.close();
    await ferry?.close();
  });

  it('renders from Ferry alone, signed out, at both widths', async () => {
    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    const answer = await page.goto(`${ferry.url}/docs/api`);
    expect(answer?.status()).toBe(200);
    await page.getByRole('heading', { name: 'List error groups' }).first().waitFor();
    await page.locator('header').getByText('Authorization: Bearer fry_…').waitFor();
    await page.getByText('feedback.created').first().waitFor();

    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      const { scroll, inner } = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        inner: window.innerWidth,
      }));
      expect(scroll, `sideways scroll at ${width} px`).toBeLessThanOrEqual(inner);
      await photograph(page, `${SHOTS}/reference-${width}.png`);
    }
    const origin = new URL(ferry.url).origin;
    const elsewhere = requested.filter(
      (url) => !url.startsWith(origin) && !url.startsWith('blob:') && !url.startsWith('data:'),
    );
    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
