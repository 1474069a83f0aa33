import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createMember, createUser } from '@ferry/testing';
import {
  axeViolations,
  photograph,
  launchBrowser,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import { createWorkspace } from '@ferry/workspace';
import { startWeb, type WebHarness } from './harness.js';

const SHOTS = '/tmp/shots/members';

/**
 * Issue #13 item 4 as people do it: an owner invites someone with a link, they sign up through it
 * and land in the workspace (and #general); roles change in place; ownership moves so the old
 * owner can leave; a guest is added to a room from the room's People page.
 */
describe('members in a browser', () => {
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

  /** axe clean, and a screenshot at phone and desktop width. */
  async function check(page: Page, name: string): Promise<void> {
    expect(await axeViolations(page)).toEqual([]);
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await photograph(page, `${SHOTS}/${name}-${width}.png`, { fullPage: true });
    }
  }

  it('invites by link, changes roles, hands over ownership, adds a guest to a room', async () => {
    const db = web.ctx.db;
    const ownerUser = await createUser(db, { name: 'Ada Lovelace' });
    const { workspace, generalRoomId } = await createWorkspace(db, ownerUser, 'Acme Support');
    const guest = await createMember(db, workspace, { role: 'guest' });
    const base = `${web.url}/w/${workspace.id}/${workspace.slug}`;

    const owner = await (await chrome.newContext()).newPage();
    await signInWithForm(owner, web.url, ownerUser.email, ownerUser.password);
    await owner.waitForURL(`${base}`);
    await owner.goto(`${base}/members`);
    await owner.getByLabel('Role', { exact: true }).last().selectOption('member');
    await owner.getByLabel('Expires after').selectOption('1');
    await owner.getByRole('button', { name: 'Create invite link' }).click();
    await owner.getByText(/Invite link created/).waitFor();
    const link = await owner.getByLabel('Invite link (member)').inputValue();
    expect(link).toMatch(/\/invite\/inv_/);
    // The link can be copied again, with its own Copy button (#28).
    await owner.context().grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: web.url,
    });
    await owner.getByRole('button', { name: 'Copy the member invite link' }).click();
    await owner.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await owner.evaluate(() => navigator.clipboard.readText())).toBe(link);
    await check(owner, 'members-owner');

    // A newcomer opens the link, signs up through it, comes back and joins.
    const newcomer = await (await chrome.newContext()).newPage();
    await newcomer.goto(link.replace(/^https?:\/\/[^/]+/, web.url));
    await newcomer.getByRole('heading', { name: 'Join Acme Support' }).waitFor();
    await check(newcomer, 'invite-signed-out');
    await newcomer.getByRole('link', { name: 'Create an account' }).click();
    await newcomer.getByLabel('Name').fill('Grace Hopper');
    await newcomer.getByLabel('Email').fill('grace@example.test');
    await newcomer.getByLabel('Password').fill('correct horse battery');
    await newcomer.getByRole('button', { name: 'Sign up' }).click();
    await newcomer.getByRole('button', { name: 'Join Acme Support' }).click();
    await newcomer.waitForURL(base);
    await newcomer.getByText('you joined as member').waitFor();
    await newcomer.goto(`${base}/rooms/${generalRoomId}`);
    await newcomer.locator('#composer').waitFor();

    // The owner makes Grace an admin, then owner, then leaves: ownership has moved.
    await owner.goto(`${base}/members`);
    await owner.getByLabel('Role of Grace Hopper').selectOption('admin');
    await owner
      .getByRole('row', { name: /Grace Hopper/ })
      .getByRole('button', { name: 'Change' })
      .click();
    await owner.getByText('Role changed from member to admin.').waitFor();
    // Leaving asks first; as the only owner it is then refused with the reason, on the list.
    const leave = async () => {
      await owner
        .getByRole('row', { name: /Ada Lovelace/ })
        .getByRole('link', { name: 'Leave' })
        .click();
      await owner.getByRole('button', { name: 'Leave Acme Support' }).click();
    };
    await leave();
    await owner.getByText(/needs an owner/).waitFor();
    await check(owner, 'members-refused-leave');
    await owner.getByLabel('Role of Grace Hopper').selectOption('owner');
    await owner
      .getByRole('row', { name: /Grace Hopper/ })
      .getByRole('button', { name: 'Change' })
      .click();
    await leave();
    await owner.waitForURL(`${web.url}/workspaces`);

    // Grace, now owner, adds the guest to #general from the room.
    await newcomer.goto(`${base}/rooms/${generalRoomId}`);
    await newcomer.getByRole('link', { name: 'People' }).click();
    await newcomer
      .getByLabel('Person')
      .selectOption({ label: `${guest.user.name} (guest, ${guest.user.email})` });
    await newcomer.getByRole('button', { name: 'Add to #general' }).click();
    await newcomer.getByText(`${guest.user.name} was added to #general.`).waitFor();
    await check(newcomer, 'room-people');

    const guestPage = await (await chrome.newContext()).newPage();
    await signInWithForm(guestPage, web.url, guest.user.email, guest.user.password);
    await guestPage.waitForURL(base);
    await guestPage.goto(`${base}/rooms/${generalRoomId}`);
    await guestPage.locator('#composer').waitFor();
  });
});
