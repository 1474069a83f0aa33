import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';

/**
 * Set to take the browser tests' photographs (`FERRY_TEST_SHOTS=1 pnpm test <file>`); each test
 * names where its pictures go (under /tmp).
 */
export const SHOTS_ENV = 'FERRY_TEST_SHOTS';

/**
 * A picture of the page (or one element) for a person to look at, at the test's own path. It
 * asserts nothing, and on 2 cores it is not free: in ux-basics the full-page PNGs cost 14 of the
 * file's 46 CPU-seconds (encoding in Chromium, the bytes over the protocol, the write). So it is
 * taken only when FERRY_TEST_SHOTS is set; every check around it runs either way.
 */
export async function photograph(
  target: Page | Locator,
  file: string,
  options: { fullPage?: boolean } = {},
): Promise<void> {
  if (!process.env[SHOTS_ENV]) return;
  mkdirSync(path.dirname(file), { recursive: true });
  if ('goto' in target) await target.screenshot({ path: file, fullPage: options.fullPage });
  else await target.screenshot({ path: file });
}
