import type { Locator, Page } from 'playwright-core';
import { axeViolations } from './axe.js';
import { photograph } from './photograph.js';

/** The widths every page must look finished at: a laptop, and a phone. */
export const PAGE_WIDTHS = [1280, 390] as const;

/**
 * The page as it is now, at both widths: no axe violation, no sideways scroll, and a screenshot of
 * each (`<file>-<width>.png`, taken when FERRY_TEST_SHOTS is set; of `shoot` when given, else the
 * viewport). Throws naming the width and what failed. Leaves the viewport at 1280 px.
 */
export async function checkBothWidths(
  page: Page,
  file: string,
  options: { shoot?: Locator } = {},
): Promise<void> {
  for (const width of PAGE_WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    const violations = await axeViolations(page);
    if (violations.length > 0) {
      throw new Error(`${file} at ${width} px: axe found ${JSON.stringify(violations, null, 2)}`);
    }
    const { scroll, inner } = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      inner: window.innerWidth,
    }));
    if (scroll > inner) {
      throw new Error(`${file} at ${width} px scrolls sideways: ${scroll} px wide in ${inner}`);
    }
    await photograph(options.shoot ?? page, `${file}-${width}.png`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}
