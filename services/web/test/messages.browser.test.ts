import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { createMember, createRoom, createUser, createWorkspace } from '@ferry/testing';
import { axeViolations, photograph, launchBrowser, type TestBrowser } from '@ferry/testing/browser';
import { startWeb, type WebHarness } from './harness.js';

const SHOTS = '/tmp/shots/ux-basics';

/** What people type that looks like HTML: each must come out exactly as typed. */
const TYPED = [
  '<div> is my favourite tag',
  'a<b and c>d',
  '<script>window.__ran = 1</script> should not run',
  '<img src=x onerror="window.__ran = 2"> is **still bold**',
  'Use `<b>` for bold, and <i>this</i> is not italic',
];
/** The text a reader sees for each (markdown rendered, tags kept as text). */
const SHOWN = [
  '<div> is my favourite tag',
  'a<b and c>d',
  '<script>window.__ran = 1</script> should not run',
  '<img src=x onerror="window.__ran = 2"> is still bold',
  'Use <b> for bold, and <i>this</i> is not italic',
];

describe('messages keep what people type, and group by author, in two browsers', () => {
  let web: WebHarness;
  let browser: TestBrowser;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    [web, browser] = await Promise.all([startWeb(), launchBrowser()]);
  });
  afterAll(async () => {
    await Promise.all(contexts.map((c) => c.close()));
    await Promise.all([browser?.close(), web?.close()]);
  });

  async function openRoom(person: { email: string; password: string }, roomUrl: string) {
    const context = await browser.browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${web.url}/login?next=${encodeURIComponent(roomUrl)}`);
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === roomUrl);
    await page.locator('.room[data-connected="true"]').waitFor();
    return page;
  }

  const bodies = (page: Page) => page.locator('#messages li.message .body').allTextContents();
  const grouped = (page: Page) =>
    page.$$eval('#messages li.message', (items) =>
      items.map((item) => item.classList.contains('grouped')),
    );
  /** Names shown on screen (grouped messages keep theirs for screen readers only). */
  const visibleAuthors = (page: Page) =>
    page.$$eval('#messages li.message .author', (names) =>
      names
        .filter((n) => (n.closest('.meta')?.getBoundingClientRect().height ?? 0) > 1)
        .map((n) => n.textContent),
    );

  async function shoot(page: Page, name: string): Promise<void> {
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await photograph(page, `${SHOTS}/${name}-${width}.png`, { fullPage: true });
    }
  }

  it('shows HTML-looking text as typed, live and after a reload, grouped the same way', async () => {
    const workspace = await createWorkspace(web.ctx.db, { name: 'Acme Support' });
    const ada = await createMember(web.ctx.db, workspace, {
      role: 'owner',
      user: await createUser(web.ctx.db, { name: 'Ada Lovelace' }),
    });
    const bob = await createMember(web.ctx.db, workspace, {
      user: await createUser(web.ctx.db, { name: 'Bob Marley' }),
    });
    const room = await createRoom(web.ctx.db, workspace, { name: 'support', members: [ada, bob] });
    const roomUrl = `/w/${workspace.id}/${workspace.slug}/rooms/${room.id}`;
    const pageA = await openRoom({ email: ada.user.email, password: ada.user.password }, roomUrl);
    const pageB = await openRoom({ email: bob.user.email, password: bob.user.password }, roomUrl);
    const loadedB = await pageB.evaluate(() => performance.timeOrigin);

    for (const [i, text] of TYPED.entries()) {
      await pageA.getByLabel('Message').fill(text);
      await pageA.getByRole('button', { name: 'Send' }).click();
      // Each arrives on both pages (the sender's from the send answer, the other's live).
      await pageA.locator('#messages li.message').nth(i).waitFor();
      await pageB.locator('#messages li.message').nth(i).waitFor();
    }
    await pageB.getByLabel('Message').fill('Thanks, **all** clear <3');
    await pageB.getByRole('button', { name: 'Send' }).click();
    await pageA.locator('#messages li.message').nth(TYPED.length).waitFor();
    await pageB.locator('#messages li.message').nth(TYPED.length).waitFor();

    const shown = [...SHOWN, 'Thanks, all clear <3'];
    // B never reloaded: everything came live.
    expect(await pageB.evaluate(() => performance.timeOrigin)).toBe(loadedB);
    expect(await bodies(pageB)).toEqual(shown);
    expect(await bodies(pageA)).toEqual(shown);
    for (const page of [pageA, pageB]) {
      expect(await page.evaluate(() => (window as { __ran?: number }).__ran)).toBeUndefined();
      expect(await page.locator('#messages img, #messages script, #messages i').count()).toBe(0);
      expect(await page.locator('#messages .body strong').allTextContents()).toEqual([
        'still bold',
        'all',
      ]);
      expect(await page.locator('#messages .body code').allTextContents()).toEqual(['<b>']);
    }

    // One header for Ada's five messages, one for Bob's: live on both pages, then after reloads.
    const expected = [false, true, true, true, true, false];
    expect(await grouped(pageB)).toEqual(expected);
    expect(await grouped(pageA)).toEqual(expected);
    expect(await visibleAuthors(pageB)).toEqual(['Ada Lovelace', 'Bob Marley']);
    // Screen readers still hear who wrote each message.
    expect(await pageB.locator('#messages li.message .author').allTextContents()).toEqual([
      ...Array<string>(5).fill('Ada Lovelace'),
      'Bob Marley',
    ]);
    for (const page of [pageA, pageB]) {
      await page.reload();
      await page.locator('.room[data-connected="true"]').waitFor();
      expect(await bodies(page)).toEqual(shown);
      expect(await grouped(page)).toEqual(expected);
      expect(await axeViolations(page)).toEqual([]);
    }
    await shoot(pageB, 'room-messages');
  });
  it('keeps what is typed while the previous message is on its way', async () => {
    const workspace = await createWorkspace(web.ctx.db, { name: 'Acme Typists' });
    const ada = await createMember(web.ctx.db, workspace, {
      user: await createUser(web.ctx.db, { name: 'Ada Quick' }),
    });
    const room = await createRoom(web.ctx.db, workspace, { name: 'fast', members: [ada] });
    const roomUrl = `/w/${workspace.id}/${workspace.slug}/rooms/${room.id}`;
    const page = await openRoom({ email: ada.user.email, password: ada.user.password }, roomUrl);
    // The send takes a while (a slow network): the next message is typed meanwhile.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/messages', async (route) => {
      await held;
      await route.continue();
    });
    const box = page.getByLabel('Message');
    await box.fill('first, sent');
    await box.press('Enter');
    await box.fill('second, still being typed');
    release();
    await page.locator('#messages li.message').first().waitFor();
    expect(await bodies(page)).toEqual(['first, sent']);
    await expect(box.inputValue()).resolves.toBe('second, still being typed');
    // Sending it clears the box as usual.
    await page.unroute('**/messages');
    await box.press('Enter');
    await page.locator('#messages li.message').nth(1).waitFor();
    await expect(box.inputValue()).resolves.toBe('');
  });
});
