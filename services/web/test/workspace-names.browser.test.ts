import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { createInvite, invitePath } from '@ferry/workspace';
import { createUser } from '@ferry/testing';
import {
  axeViolations,
  launchBrowser,
  photograph,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import { startWeb, type WebHarness } from './harness.js';

const SHOTS = '/tmp/shots/workspace-names';

/** A name as long as the one in issue 42 (215 characters). */
const TOO_LONG =
  'The Northern Regional Customer Success and Support Operations Team for Enterprise Accounts, ' +
  'Strategic Partnerships, Premium Onboarding, Escalations Handling, Renewal and Quarterly ' +
  'Business Reviews Working Group 2026';
/** The longest name allowed: 80 characters, words and spaces. */
const LONGEST = 'Northern Regional Customer Success and Support Operations for Enterprise Clients';

/** How many lines an element's text takes on screen (one rect per line box of its text). */
function textLines(target: Locator): Promise<number> {
  return target.evaluate((el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    return new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top))).size;
  });
}

/** Shown on one line, cut with an ellipsis, and whole in its title (the hover text). */
async function expectTruncatedName(target: Locator, name: string): Promise<void> {
  expect(await textLines(target)).toBe(1);
  const style = await target.evaluate((el) => ({
    overflow: getComputedStyle(el).textOverflow,
    cut: el.scrollWidth > el.clientWidth,
  }));
  expect(style).toEqual({ overflow: 'ellipsis', cut: true });
  // Its own title, or its link's (the sidebar's name is the text of the switcher link).
  const title = await target.evaluate((el) => el.closest('[title]')?.getAttribute('title'));
  expect(title).toContain(name);
}

async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const { scroll, width } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    width: window.innerWidth,
  }));
  expect(scroll).toBeLessThanOrEqual(width);
}

/**
 * Issue 42, defect 4: a name past the limit is refused with a word (the browser cut it to 80
 * without one), and the longest allowed name is one line with an ellipsis in the chrome (it
 * wrapped to 6 lines in the sidebar and a 4-line "Join …" button).
 */
describe('long workspace names', () => {
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

  async function signedInPage(): Promise<{ page: Page; userId: string }> {
    const user = await createUser(web.ctx.db);
    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    await signInWithForm(page, web.url, user.email, user.password);
    await page.getByRole('heading', { name: 'Your workspaces' }).waitFor();
    return { page, userId: user.id };
  }

  /** Each width: the check, axe clean, no sideways scroll, a photograph. */
  async function atBothWidths(page: Page, name: string, check: () => Promise<void>) {
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await check();
      expect(await axeViolations(page)).toEqual([]);
      await expectNoSidewaysScroll(page);
      await photograph(page, `${SHOTS}/${name}-${width}.png`, { fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  it('the form says the limit and refuses a longer name instead of cutting it', async () => {
    expect(TOO_LONG.length).toBe(215);
    const { page, userId } = await signedInPage();
    await page.goto(`${web.url}/workspaces/new`);
    const name = page.getByLabel('Workspace name');
    await page.getByText('Up to 80 characters.').waitFor();
    await atBothWidths(page, 'new', async () => {});

    await name.fill(TOO_LONG);
    await page.getByRole('button', { name: 'Create workspace' }).click();
    // Refused with Post/Redirect/Get: back on the form's own page, the error beside the field.
    await page.getByText('Use at most 80 characters: this name has 215.').waitFor();
    expect(new URL(page.url()).pathname).toBe('/workspaces/new');
    // Kept whole in the field, to be shortened there.
    expect(await name.inputValue()).toBe(TOO_LONG);
    await atBothWidths(page, 'new-refused', async () => {});
    const seats = await web.ctx.db
      .selectFrom('members')
      .select('id')
      .where('user_id', '=', userId)
      .execute();
    expect(seats).toEqual([]);
  });

  it('the longest name is one line with an ellipsis in the sidebar, titles, switcher and invite', async () => {
    expect(LONGEST.length).toBe(80);
    const { page } = await signedInPage();
    await page.goto(`${web.url}/workspaces/new`);
    await page.getByLabel('Workspace name').fill(LONGEST);
    await Promise.all([
      page.waitForURL(/\/w\/wsp_/),
      page.getByRole('button', { name: 'Create workspace' }).click(),
    ]);
    await atBothWidths(page, 'dashboard', async () => {
      await expectTruncatedName(page.locator('.ws-name .one-line'), LONGEST);
      await expectTruncatedName(page.locator('main h1'), LONGEST);
    });
    // The sidebar's link says whose workspace it is and what it does.
    expect(await page.locator('.ws-name').getAttribute('title')).toBe(
      `${LONGEST} (switch workspace)`,
    );

    await page.locator('.ws-name').click();
    await page.getByRole('heading', { name: 'Your workspaces' }).waitFor();
    await atBothWidths(page, 'switcher', async () => {
      await expectTruncatedName(page.getByRole('link', { name: LONGEST }), LONGEST);
    });

    // Someone else opens an invite into it: the heading and the "Join …" button are one line.
    const workspace = await web.ctx.db
      .selectFrom('workspaces')
      .innerJoin('members', 'members.workspace_id', 'workspaces.id')
      .select(['workspaces.id', 'members.id as member_id'])
      .where('workspaces.name', '=', LONGEST)
      .executeTakeFirstOrThrow();
    const { token } = await createInvite(web.ctx.db, web.deps.box, {
      workspaceId: workspace.id,
      role: 'member',
      expiresInDays: 7,
      createdBy: workspace.member_id,
    });
    const { page: guest } = await signedInPage();
    await guest.goto(`${web.url}${invitePath(token)}`);
    const join = guest.getByRole('button', { name: `Join ${LONGEST}` });
    await join.waitFor();
    await atBothWidths(guest, 'invite', async () => {
      await expectTruncatedName(join, LONGEST);
      await expectTruncatedName(guest.getByRole('heading', { level: 1 }), LONGEST);
    });

    // The owner opening the same link is told they are in already (defect 9).
    await page.goto(`${web.url}${invitePath(token)}`);
    await page.getByRole('heading', { name: 'You are already a member' }).waitFor();
    await atBothWidths(page, 'invite-member', async () => {});
  });
});
