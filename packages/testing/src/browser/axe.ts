import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AxeResults, RunOptions } from 'axe-core';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);
/** axe-core's browser build, read once and injected into each page checked. */
let axeSource: string | undefined;

export interface AxeViolation {
  rule: string;
  impact: string | null;
  help: string;
  /** CSS selectors of the offending elements. */
  nodes: string[];
}

/**
 * The accessibility basics (labels on inputs, colour contrast, names on buttons and links, valid
 * ARIA): axe-core's WCAG 2.0/2.1 level A and AA rules run on the page as it is now. Returns the
 * violations, so `expect(await axeViolations(page)).toEqual([])` names each failing rule and the
 * elements it found. `exclude` leaves out parts of the page that are not ours (a host page's demo
 * content, say).
 */
export async function axeViolations(
  page: Page,
  options: { exclude?: string[] } = {},
): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) {
    axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
    // Evaluated over the DevTools protocol: the pages' CSP (script-src 'self') refuses a script tag.
    await page.evaluate(axeSource);
  }
  const runOptions: RunOptions = {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    resultTypes: ['violations'],
  };
  const exclude = (options.exclude ?? []).map((selector) => [selector]);
  const results = await page.evaluate(
    async ([excluded, opts]) => {
      const { axe } = window as unknown as {
        axe: { run(context: unknown, options: unknown): Promise<AxeResults> };
      };
      const found = await axe.run(excluded.length ? { exclude: excluded } : document, opts);
      return found.violations.map((violation) => ({
        rule: violation.id,
        impact: violation.impact ?? null,
        help: violation.help,
        nodes: violation.nodes.map((node) => node.target.join(' ')),
      }));
    },
    [exclude, runOptions] as const,
  );
  return results;
}
