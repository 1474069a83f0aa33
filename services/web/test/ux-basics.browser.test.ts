import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import {
  createErrorGroup,
  createFeedback,
  createMember,
  createRoom,
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
import { startWeb, type WebHarness } from './harness.js';

const SHOTS = '/tmp/shots/ux-basics';

/**
 * Issue #13's small things in Debian Chromium: the favicon, one password hint, out-of-range
 * pages, copy buttons, destructive actions that ask first, and axe (WCAG A/AA) on every page
 * visited. Each page is photographed at 390 and 1280 px wide.
 */
describe('UX basics in a browser', () => {
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

  async function newPage(): Promise<Page> {
    const context = await chrome.browser.newContext({
      permissions: ['clipboard-read', 'clipboard-write'],
      viewport: { width: 1280, height: 900 },
    });
    contexts.push(context);
    return context.newPage();
  }

  /** axe clean at both widths, and a full-page photograph of each. */
  async function check(page: Page, name: string): Promise<void> {
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      expect(await axeViolations(page)).toEqual([]);
      await photograph(page, `${SHOTS}/${name}-${width}.png`, { fullPage: true });
    }
  }

  const clipboard = (page: Page) => page.evaluate(() => window.navigator.clipboard.readText());

  async function setUp() {
    const workspace = await createWorkspace(web.ctx.db, { name: 'Acme Support' });
    const owner = await createMember(web.ctx.db, workspace, {
      role: 'owner',
      user: await createUser(web.ctx.db, { name: 'Ada Lovelace' }),
    });
    const member = await createMember(web.ctx.db, workspace, {
      role: 'member',
      user: await createUser(web.ctx.db, { name: 'Bob Marley' }),
    });
    const guest = await createMember(web.ctx.db, workspace, {
      role: 'guest',
      user: await createUser(web.ctx.db, { name: 'Grace Hopper' }),
    });
    const base = `${web.url}/w/${workspace.id}/${workspace.slug}`;
    return { workspace, owner, member, guest, base };
  }

  async function signIn(page: Page, person: { user: { email: string; password: string } }) {
    await signInWithForm(page, web.url, person.user.email, person.user.password);
    await page.getByRole('heading', { name: 'Acme Support' }).waitFor();
  }

  it('sign-in, the favicon, and sign-up with one password hint', async () => {
    const page = await newPage();
    await page.goto(`${web.url}/login`);
    await check(page, 'login');
    // Focus is visible on links, inputs and buttons (the keyboard's way through the form).
    const outlines: string[] = [];
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      outlines.push(
        await page.evaluate(() => {
          const el = document.activeElement as HTMLElement;
          const style = getComputedStyle(el);
          return `${el.tagName.toLowerCase()}:${style.outlineStyle}:${style.outlineWidth}`;
        }),
      );
    }
    expect(outlines).toEqual(
      expect.arrayContaining(['a:solid:2px', 'input:solid:2px', 'button:solid:2px']),
    );
    expect(outlines.filter((o) => !o.endsWith(':solid:2px'))).toEqual([]);

    // The icon the layout links and the one browsers ask for unprompted are the same SVG, cached.
    const linked = await page.locator('link[rel="icon"]').getAttribute('href');
    for (const path of [linked ?? '', '/favicon.ico']) {
      const icon = await page.request.get(`${web.url}${path}`);
      expect(icon.status()).toBe(200);
      expect(icon.headers()['content-type']).toMatch(/^image\/svg\+xml/);
      expect(icon.headers()['cache-control']).toMatch(/max-age=\d{3,}/);
      expect(await icon.text()).toContain('<svg');
    }

    await page.getByRole('link', { name: 'Sign up' }).first().click();
    await page.getByRole('heading', { name: 'Create your account' }).waitFor();
    const passwordHelp = page.locator('.field').filter({ has: page.getByLabel('Password') });
    expect(await passwordHelp.getByText(/8 characters/).count()).toBe(1);
    await check(page, 'signup');

    await page.getByLabel('Name').fill('Lin Short');
    await page.getByLabel('Email').fill('lin@example.test');
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByText('Use at least 8 characters.').waitFor();
    // The error replaces the hint: the rule is said once, and describes the input.
    expect(await passwordHelp.getByText(/8 characters/).count()).toBe(1);
    expect(await page.getByLabel('Password').getAttribute('aria-describedby')).toBe(
      'f-password-error',
    );
    await check(page, 'signup-error');
  });

  it('members: readable role badges; removing someone and leaving a room ask first', async () => {
    const { owner, member, workspace, base } = await setUp();
    await createRoom(web.ctx.db, workspace, { name: 'deploys', members: [owner, member] });
    const page = await newPage();
    await signIn(page, owner);
    await check(page, 'dashboard');

    await page.getByRole('link', { name: 'Members' }).click();
    await page.getByRole('heading', { name: 'Members' }).waitFor();
    await check(page, 'members');

    await page.getByRole('link', { name: 'Remove Bob Marley' }).click();
    await page.getByRole('heading', { name: 'Remove Bob Marley from Acme Support?' }).waitFor();
    await check(page, 'confirm-remove-member');
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.getByRole('heading', { name: 'Members' }).waitFor();
    expect(await page.getByRole('cell', { name: 'Bob Marley', exact: true }).count()).toBe(1);
    await page.getByRole('link', { name: 'Remove Bob Marley' }).click();
    await page.getByRole('button', { name: 'Remove Bob Marley' }).click();
    await page.getByText('Member removed.').waitFor();
    expect(await page.getByRole('cell', { name: 'Bob Marley', exact: true }).count()).toBe(0);

    await page.goto(`${base}/rooms`);
    await check(page, 'rooms');
    await page.getByRole('link', { name: 'Leave #deploys' }).click();
    await page.getByRole('heading', { name: 'Leave #deploys?' }).waitFor();
    await check(page, 'confirm-leave-room');
    await page.getByRole('button', { name: 'Leave #deploys' }).click();
    await page.getByText('You left #deploys.').waitFor();
    expect(page.url()).toBe(`${base}/rooms`);
  });

  it('empty states, copy buttons and out-of-range pages on Feedback and Errors', async () => {
    const { owner, workspace, base } = await setUp();
    const page = await newPage();
    await signIn(page, owner);

    await page.getByRole('link', { name: 'Feedback', exact: true }).click();
    await page.getByRole('heading', { name: 'No feedback yet' }).waitFor();
    await check(page, 'feedback-empty');
    await page.getByRole('button', { name: 'Copy the curl command' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await clipboard(page)).toMatch(
      new RegExp(`^curl -X POST ${web.ctx.config.PUBLIC_URL}/api/v1/feedback \\\\\n`),
    );

    await page.getByRole('link', { name: 'Errors', exact: true }).click();
    await page.getByRole('heading', { name: 'No errors reported yet' }).waitFor();
    await check(page, 'errors-empty');
    await page.getByRole('button', { name: 'Copy the curl command' }).click();
    expect(await clipboard(page)).toContain(`X-Service-Tenant: ${workspace.public_key}`);

    await page.getByRole('link', { name: 'Error reporting' }).click();
    await page.getByRole('heading', { name: 'Error reporting' }).waitFor();
    await page.getByRole('button', { name: 'Copy the public key' }).click();
    await page.getByRole('button', { name: 'Copied' }).first().waitFor();
    expect(await clipboard(page)).toBe(workspace.public_key);
    // Screen readers hear it too.
    await page.getByRole('status').getByText('Copied to the clipboard').waitFor();
    await check(page, 'error-reporting');

    for (let i = 0; i < 3; i++)
      await createFeedback(web.ctx.db, workspace, { title: `Ticket ${i}` });
    await page.goto(`${base}/feedback?status=new&page=7`);
    await page.getByText('Page 7 does not exist; the last page is 1.').waitFor();
    await check(page, 'feedback-out-of-range');
    await page.getByRole('link', { name: 'Go to page 1' }).click();
    await page.waitForURL(`${base}/feedback?status=new`);
    expect(await page.locator('table.inbox tbody tr').count()).toBe(3);

    await createErrorGroup(web.ctx.db, workspace, { source: 'js' });
    await page.goto(`${base}/errors?page=4`);
    await page.getByText('Page 4 does not exist; the last page is 1.').waitFor();
    await check(page, 'errors-out-of-range');
    await page.getByRole('link', { name: 'Go to page 1' }).click();
    await page.waitForURL(`${base}/errors`);
    expect(await page.locator('table.errors tbody tr').count()).toBe(1);
  });

  it('an incoming key: copy the key, its URL and the curl; deleting asks first', async () => {
    const { owner, workspace, base } = await setUp();
    const room = await createRoom(web.ctx.db, workspace, { name: 'deploys', members: [owner] });
    const page = await newPage();
    await signIn(page, owner);
    await page.goto(`${base}/rooms/${room.id}/settings/webhooks`);
    await page.getByLabel('Key name').fill('Deploy bot');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('heading', { name: /Deploy bot/ }).waitFor();
    await page.getByRole('button', { name: 'Reveal' }).click();
    const key = ((await page.getByTestId('incoming-key').textContent()) ?? '').trim();
    expect(key).toMatch(/^whk_/);

    await page.getByRole('button', { name: 'Copy the key' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await clipboard(page)).toBe(key);
    await page.getByRole('button', { name: 'Copy the ingest URL' }).click();
    expect(await clipboard(page)).toBe(`${web.ctx.config.PUBLIC_URL}/wh/in/${key}`);
    await page.getByRole('button', { name: 'Copy the curl command' }).click();
    const curl = await clipboard(page);
    expect(curl).toMatch(/^curl -sS -X POST '.*\/wh\/in\/whk_/);
    expect(curl).toContain(key);
    await check(page, 'incoming-key');

    await page.getByRole('link', { name: 'Delete key' }).click();
    await page.getByRole('heading', { name: 'Delete the key "Deploy bot"?' }).waitFor();
    await check(page, 'confirm-delete-key');
    await page.getByRole('button', { name: 'Delete key' }).click();
    await page.getByText('The key "Deploy bot" is deleted.').waitFor();
    await page.getByRole('heading', { name: 'Settings · Webhooks' }).waitFor();
    await check(page, 'webhooks-tab');
  });
});
