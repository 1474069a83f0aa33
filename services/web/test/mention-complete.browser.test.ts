import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { createMember, createRoom, createUser, createWorkspace } from '@ferry/testing';
import { axeViolations, photograph, launchBrowser, type TestBrowser } from '@ferry/testing/browser';
import { startWeb, type WebHarness } from './harness.js';

const SHOTS = '/tmp/shots/mention-complete';

/** The composer's @-autocomplete (issue #28 item 12): keyboard-driven, accessible, never sends. */
describe('@-autocomplete in the composer', () => {
  let web: WebHarness;
  let browser: TestBrowser;
  let context: BrowserContext | undefined;
  beforeAll(async () => {
    [web, browser] = await Promise.all([startWeb(), launchBrowser()]);
  });
  afterAll(async () => {
    await context?.close();
    await Promise.all([browser?.close(), web?.close()]);
  });

  it('offers the room’s people as you type @, inserts with Enter, Tab or a click, and Escape closes', async () => {
    const { db } = web.ctx;
    const workspace = await createWorkspace(db, { name: 'Acme Support' });
    const person = async (name: string, role: 'owner' | 'member' = 'member') =>
      createMember(db, workspace, { role, user: await createUser(db, { name }) });
    const ada = await person('Ada Lovelace', 'owner');
    const grace = await person('Grace Hopper');
    const guy = await person('Guy Fawkes');
    // Not in the room: never offered.
    await person('Gus Outside');
    const longName = 'Gwendolyn ' + 'Verylongsurname'.repeat(7);
    const gwen = await person(longName);
    const room = await createRoom(db, workspace, {
      name: 'support',
      members: [ada, grace, guy, gwen],
    });
    const roomUrl = `/w/${workspace.id}/${workspace.slug}/rooms/${room.id}`;

    context = await browser.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${web.url}/login?next=${encodeURIComponent(roomUrl)}`);
    await page.getByLabel('Email').fill(ada.user.email);
    await page.getByLabel('Password').fill(ada.user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === roomUrl);
    await page.locator('.room[data-connected="true"]').waitFor();

    const box = page.getByRole('textbox', { name: 'Message' });
    const list = page.getByRole('listbox', { name: 'People to mention' });
    const options = list.getByRole('option');
    const names = () => options.locator('.mention-name').allTextContents();
    const selected = () => list.locator('[aria-selected="true"] .mention-name').textContent();

    await box.pressSequentially('Hi @g');
    await list.waitFor();
    expect(await names()).toEqual(['Grace Hopper', 'Guy Fawkes', longName]);
    expect(await page.locator('#mention-status').textContent()).toContain('3 people to mention');
    expect(await box.getAttribute('aria-activedescendant')).toBe('mention-option-0');
    expect(await axeViolations(page)).toEqual([]);
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await photograph(page, `${SHOTS}/open-${width}.png`);
      // The long name ends in an ellipsis inside the list, which stays within the page.
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect({ width, overflow }).toEqual({ width, overflow: 0 });
    }
    await page.setViewportSize({ width: 1280, height: 900 });

    // Down, then Enter: inserts Guy's handle, and the message is not sent.
    await box.press('ArrowDown');
    expect(await selected()).toBe('Guy Fawkes');
    await box.press('Enter');
    await list.waitFor({ state: 'hidden' });
    expect(await box.inputValue()).toBe('Hi @guy ');

    // Narrowed by what is typed; Tab inserts.
    await box.pressSequentially('and @gr');
    await list.waitFor();
    expect(await names()).toEqual(['Grace Hopper']);
    await box.press('Tab');
    await list.waitFor({ state: 'hidden' });
    expect(await box.inputValue()).toBe('Hi @guy and @grace ');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('message-body');

    // A click on an option inserts it.
    await box.pressSequentially('cc @gw');
    await list.waitFor();
    await options.first().click();
    expect(await box.inputValue()).toBe('Hi @guy and @grace cc @gwendolyn ');

    // Nobody matches: no list. Escape closes an open one and leaves the text as typed.
    await box.pressSequentially('@zz');
    expect(await list.isHidden()).toBe(true);
    await box.press('Backspace');
    await box.press('Backspace');
    await box.press('Backspace');
    await box.pressSequentially('@');
    await list.waitFor();
    expect(await names()).toEqual(['Grace Hopper', 'Guy Fawkes', longName]);
    await box.press('Escape');
    await list.waitFor({ state: 'hidden' });
    await box.press('Backspace');
    expect(await box.inputValue()).toBe('Hi @guy and @grace cc @gwendolyn ');

    // With the list closed, Enter sends as before, and the mentions are highlighted.
    await box.press('Enter');
    await page.locator('#messages li.message').first().waitFor();
    expect(await page.locator('#messages li.message .mention').allTextContents()).toEqual([
      '@guy',
      '@grace',
      '@gwendolyn',
    ]);
    expect(await box.inputValue()).toBe('');
  });
});
