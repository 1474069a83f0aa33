import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Member, Room } from '@ferry/db';
import {
  createFeedback,
  createMember,
  createRoom,
  createUser,
  createWorkspace,
  waitUntil,
} from '@ferry/testing';
import {
  axeViolations,
  photograph,
  launchBrowser,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import { postMessage } from '@ferry/workspace';
import type { Locator } from 'playwright-core';
import { startFerry, type FerryHarness } from './support/ferry.js';

const SHOTS = '/tmp/shots/notifications';

/**
 * Issue #13 item 5, as `pnpm start` runs it: the sidebar lists my rooms with unread counts and a
 * Mentions count, both live without a reload; reading a room (or the Mentions page) clears them,
 * in every tab; the Mentions page lists @-mentions of me and agents' replies on my tickets.
 */
describe('unread counts and mentions in the browser', () => {
  let ferry: FerryHarness;
  let chrome: TestBrowser;

  beforeAll(async () => {
    [ferry, chrome] = await Promise.all([startFerry(), launchBrowser()]);
  });
  afterAll(async () => {
    await chrome?.close();
    await ferry?.close();
  });

  const badge = (link: Locator) => link.locator('.unread-badge');
  /** The badge's count, or 0 while it is hidden. */
  const count = async (link: Locator): Promise<number> =>
    (await badge(link).isVisible()) ? Number(await badge(link).getAttribute('data-count')) : 0;
  const waitForCount = async (link: Locator, expected: number): Promise<void> => {
    let shown = 0;
    await waitUntil(
      async () => (shown = await count(link)) === expected,
      () => `the badge to count ${expected} (it stayed ${shown})`,
      30_000,
      50,
    );
  };

  it('counts live, clears on reading, in every tab, and lists mentions and ticket replies', async () => {
    const { db } = ferry.ctx;
    const workspace = await createWorkspace(db, { name: 'Harbour Ops' });
    const ada = await createMember(db, workspace, {
      user: await createUser(db, { name: 'Ada Lovelace' }),
      role: 'admin',
    });
    const bob = await createMember(db, workspace, {
      user: await createUser(db, { name: 'Bob Stone' }),
    });
    const ops = await createRoom(db, workspace, { name: 'ops', members: [ada, bob] });
    const random = await createRoom(db, workspace, { name: 'random', members: [ada, bob] });
    const base = `${ferry.url}/w/${workspace.id}/${workspace.slug}`;
    const say = (room: Room, author: Member & { user: { name: string } }, body: string) =>
      postMessage(db, {
        roomId: room.id,
        workspaceId: workspace.id,
        authorKind: 'member',
        authorMemberId: author.id,
        displayName: author.user.name,
        body,
      });

    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await signInWithForm(page, ferry.url, ada.user.email, ada.user.password);
    await page.waitForURL(/\/w\//);
    await page.goto(base);
    const sidebar = page.getByRole('navigation', { name: 'Workspace' });
    const opsLink = sidebar.getByRole('link', { name: /^#ops/ });
    const mentionsLink = sidebar.getByRole('link', { name: /^Mentions/ });
    await page.locator('nav.sidebar[data-unread-synced="true"]').waitFor();
    expect(await count(opsLink)).toBe(0);
    expect(await count(mentionsLink)).toBe(0);

    // Bob writes in #ops while Ada looks at the dashboard: the counts grow without a reload.
    await say(ops, bob, 'deploy is starting');
    await say(ops, bob, 'deploy finished');
    await waitForCount(opsLink, 2);
    await say(ops, bob, '@ada can you check the error rate?');
    await waitForCount(opsLink, 3);
    await waitForCount(mentionsLink, 1);
    expect(await opsLink.getAttribute('class')).toContain('has-unread');
    await expect(opsLink.textContent()).resolves.toMatch(/#ops\s*3 unread/);
    await photograph(page, `${SHOTS}/sidebar-unread-1280.png`);
    // On a phone the counts fold behind Menu, which shows a dot while anything is unread.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(page.locator('.menu-toggle.has-unread').isVisible()).resolves.toBe(true);
    await photograph(page, `${SHOTS}/menu-dot-390.png`);
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(await axeViolations(page)).toEqual([]);

    // A second tab on the dashboard sees the room read when the first tab opens it.
    const other = await context.newPage();
    await other.goto(base);
    await other.locator('nav.sidebar[data-unread-synced="true"]').waitFor();
    const otherOps = other.getByRole('navigation', { name: 'Workspace' }).getByRole('link', {
      name: /^#ops/,
    });
    expect(await count(otherOps)).toBe(3);

    await opsLink.click();
    await page.waitForURL(`${base}/rooms/${ops.id}`);
    await page.locator('.room[data-connected="true"]').waitFor();
    // The page read the room: its count and the mention in it are gone, here and in the other tab.
    expect(await count(opsLink)).toBe(0);
    expect(await count(mentionsLink)).toBe(0);
    expect(await opsLink.getAttribute('aria-current')).toBe('page');
    await waitForCount(otherOps, 0);

    // While the room is in view, what arrives is read at once: no count, here or elsewhere.
    const live = await say(ops, bob, 'one more thing');
    await page.locator(`li.message[data-id="${live.id}"]`).waitFor();
    await waitUntil(
      async () =>
        (
          await db
            .selectFrom('room_members')
            .select('last_read_message_id')
            .where('room_id', '=', ops.id)
            .where('member_id', '=', ada.id)
            .executeTakeFirstOrThrow()
        ).last_read_message_id === live.id,
      'the open room page to read the live message',
      8_000,
    );
    await waitForCount(otherOps, 0);
    expect(await count(opsLink)).toBe(0);

    // A mention elsewhere and an agent's reply on Ada's ticket: the Mentions page lists both.
    const randomLink = sidebar.getByRole('link', { name: /^#random/ });
    const mention = await say(random, bob, 'Lunch, @ada?');
    await waitForCount(randomLink, 1);
    await waitForCount(mentionsLink, 1);
    const ticket = await createFeedback(db, workspace, {
      note: 'Export fails',
      assignee_member_id: ada.id,
    });
    const reply = await postMessage(db, {
      roomId: ticket.room_id,
      workspaceId: workspace.id,
      authorKind: 'agent',
      authorRef: 'agt_claude',
      displayName: 'claude',
      body: 'I found the cause: the CSV writer closes early.',
    });
    await waitForCount(mentionsLink, 2);
    // Nothing Ada may not see counts: a mention in a room she is not in.
    const secret = await createRoom(db, workspace, { name: 'secret', members: [bob] });
    await say(secret, bob, '@ada would love this');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await count(mentionsLink)).toBe(2);

    await mentionsLink.click();
    await page.waitForURL(`${base}/mentions`);
    await expect(page.getByRole('heading', { name: 'Mentions' }).isVisible()).resolves.toBe(true);
    await expect(page.getByText('2 new mentions since you last looked.').isVisible()).resolves.toBe(
      true,
    );
    const items = page.locator('li.mention-card');
    expect(await items.count()).toBe(3);
    const ids = await page
      .locator('li.mention-card li.message')
      .evaluateAll((els) => els.map((el) => el.getAttribute('data-id')));
    expect(ids.slice(0, 2).sort()).toEqual([mention.id, reply.id].sort());
    await expect(items.nth(0).locator('.badge', { hasText: 'new' }).isVisible()).resolves.toBe(
      true,
    );
    const ticketLink = page.getByRole('link', {
      name: 'the ticket “Checkout button does nothing”',
    });
    await expect(ticketLink.getAttribute('href')).resolves.toBe(
      `/w/${workspace.id}/${workspace.slug}/feedback/${ticket.id}`,
    );
    await expect(page.getByText('claude replied on').isVisible()).resolves.toBe(true);
    await expect(page.getByText('Bob Stone mentioned you in').first().isVisible()).resolves.toBe(
      true,
    );
    expect(await count(mentionsLink)).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await photograph(page, `${SHOTS}/mentions-1280.png`, { fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await photograph(page, `${SHOTS}/mentions-390.png`, { fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });

    // A mention that arrives while the list is open is announced on it; its link shows it.
    await expect(page.locator('#mentions-arrived').isVisible()).resolves.toBe(false);
    const late = await say(random, bob, '@ada one more for the list');
    await page.locator('#mentions-arrived').waitFor();
    await waitForCount(mentionsLink, 1);
    await page.getByRole('link', { name: 'New mentions arrived: show them' }).click();
    await page.locator(`li.mention-card li.message[data-id="${late.id}"]`).waitFor();
    expect(await count(mentionsLink)).toBe(0);

    // Read once: a reload shows them as seen, the count stays clear; the mention links to its room.
    await page.reload();
    await expect(page.getByText(/new mentions? since/).count()).resolves.toBe(0);
    expect(await count(mentionsLink)).toBe(0);
    await page.getByRole('link', { name: '#random' }).first().click();
    await page.waitForURL(`${base}/rooms/${random.id}`);
    expect(await count(randomLink)).toBe(0);
    // Everything read: no dot on the phone's Menu button either.
    expect(await page.locator('.menu-toggle.has-unread').count()).toBe(0);
    await context.close();
  });
});
