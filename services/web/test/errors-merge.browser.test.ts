import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  createErrorGroup,
  createErrorOccurrence,
  createMember,
  createUser,
  createWorkspace,
} from '@ferry/testing';
import {
  axeViolations,
  photograph,
  launchBrowser,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import { mergeErrorGroups } from '@ferry/workspace';
import { startWeb, type WebHarness } from './harness.js';

const SHOTS = '/tmp/shots/errors-merge';

/** The page at both widths: axe clean, no sideways scroll, the Fingerprints card photographed. */
async function checkBothWidths(page: Page, name: string): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    expect(await axeViolations(page)).toEqual([]);
    const { scroll, inner } = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      inner: window.innerWidth,
    }));
    expect(scroll, `${name} at ${width} px scrolls sideways`).toBeLessThanOrEqual(inner);
    await photograph(page.getByTestId('group-fingerprints'), `${SHOTS}/${name}-${width}.png`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** Issue 43: the group page's Fingerprints list, and unmerging one from it. */
describe('a merged error group in a browser', () => {
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

  it('shows the fingerprints a group holds at 1280 and 390 px, and unmerges one', async () => {
    const db = web.ctx.db;
    const workspace = await createWorkspace(db, { name: 'Acme Shop' });
    const member = await createMember(db, workspace, {
      role: 'member',
      user: await createUser(db, { name: 'Grace Hopper' }),
    });
    const make = async (error_class: string, latest_message: string, n: number) => {
      const group = await createErrorGroup(db, workspace, {
        error_class,
        latest_message,
        occurrence_count: n,
        source: 'ruby',
        environments: ['production'],
      });
      for (let i = 0; i < Math.min(n, 3); i++) await createErrorOccurrence(db, group);
      return group;
    };
    const target = await make(
      'Payments::CardDeclinedError',
      'The card was declined while charging order 1042',
      12,
    );
    const sources = [
      await make(
        'Payments::Gateway::AuthorizationRefusedBecauseTheIssuerSaidNoError',
        'The issuer refused the authorization for order 1043 with a very long explanation that wraps',
        1_250,
      ),
      await make('Payments::CardDeclinedError', 'Declined (insufficient funds)', 3),
    ];
    await mergeErrorGroups(db, {
      workspaceId: workspace.id,
      actor: { kind: 'member', memberId: member.id, role: 'member', name: 'Grace Hopper' },
      targetId: target.id,
      sourceIds: sources.map((s) => s.id),
    });

    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signInWithForm(page, web.url, member.user.email, member.user.password);
    await page.getByRole('heading', { name: 'Acme Shop' }).waitFor();
    const base = `/w/${workspace.id}/${workspace.slug}`;
    await page.goto(`${web.url}${base}/errors/${target.id}`);
    const card = page.getByTestId('group-fingerprints');
    await card.getByText('2 groups merged into this one').waitFor();
    await expect(card.getByTestId('merged-fingerprint').count()).resolves.toBe(2);
    await checkBothWidths(page, 'merged');

    await card
      .getByTestId('merged-fingerprint')
      .filter({ hasText: 'insufficient funds' })
      .getByRole('button', { name: 'Unmerge' })
      .click();
    await page
      .getByText('Unmerged. Its occurrences from now on make a group of their own')
      .waitFor();
    await card.getByText('1 group merged into this one').waitFor();
    await checkBothWidths(page, 'unmerged');
    await context.close();
  });
});
