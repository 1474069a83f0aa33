import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { newId, SecretBox } from '@ferry/core';
import { createApiToken, createMember, createRoom, createUser } from '@ferry/testing';
import {
  axeViolations,
  photograph,
  launchBrowser,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import { createIncomingKey, createWorkspace, registerAgent } from '@ferry/workspace';
import { startWeb, type WebHarness } from './harness.js';

const SHOTS = '/tmp/shots/paged-lists';

/**
 * #42 defects 8 and 10 as people see them: long lists are paged with a count under them, and a
 * refused form comes back to its own page (the address a reload can open) with the error beside
 * the field. Every page: nothing wider than 390 px, axe-clean, photographed at 390 and 1280 px.
 */
describe('paged lists and refused forms in a browser', () => {
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

  async function check(page: Page, name: string): Promise<void> {
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      const sideways = await page.evaluate(
        () => document.documentElement.scrollWidth > document.documentElement.clientWidth + 1,
      );
      expect({ name, width, sideways }).toEqual({ name, width, sideways: false });
      await photograph(page, `${SHOTS}/${name}-${width}.png`, { fullPage: true });
    }
    expect({ name, axe: await axeViolations(page) }).toEqual({ name, axe: [] });
  }

  it('pages rooms, tokens, webhook keys and hooks, members; refused forms come back to their page', async () => {
    const db = web.ctx.db;
    const ownerUser = await createUser(db, { name: 'Ada Lovelace' });
    const { workspace, generalRoomId } = await createWorkspace(db, ownerUser, 'Acme Support');
    const owner = await db
      .selectFrom('members')
      .selectAll()
      .where('user_id', '=', ownerUser.id)
      .executeTakeFirstOrThrow();
    const box = new SecretBox(web.ctx.config.APP_SECRET);
    for (let i = 0; i < 60; i++) {
      const n = String(i).padStart(2, '0');
      await createRoom(db, workspace, { name: `support-${n}`, members: i % 3 ? [] : [owner] });
      await createApiToken(db, workspace, { scopes: ['tenant:read'], name: `Deploy bot ${n}` });
      await createIncomingKey(db, box, {
        workspaceId: workspace.id,
        roomId: generalRoomId,
        name: `CI key ${n}`,
        createdBy: owner.id,
      });
      await db
        .insertInto('outgoing_webhooks')
        .values({
          id: newId('outgoingWebhook'),
          workspace_id: workspace.id,
          room_id: generalRoomId,
          target_url: `https://hooks.example.test/receiver/${n}`,
          secret_sealed: 'v1.x.y.z',
        })
        .execute();
      const user = await createUser(db, {
        name: `Colleague ${n}`,
        email: `colleague.${n}@support-department.example.test`,
      });
      await createMember(db, workspace, { user });
    }
    const base = `${web.url}/w/${workspace.id}/${workspace.slug}`;
    const page = await (await chrome.newContext()).newPage();
    await signInWithForm(page, web.url, ownerUser.email, ownerUser.password);
    await page.waitForURL(base);

    await page.goto(`${base}/rooms?page=2`);
    await page.getByText('Showing 51–61 of 61').waitFor();
    await check(page, 'rooms-page-2');
    // A refused channel name: back on the list's own address, the error linked to the field.
    await page.getByLabel('Channel name').fill('!!!');
    await page.getByRole('button', { name: 'Create channel' }).click();
    await page.waitForURL(`${base}/rooms`);
    const name = page.getByLabel('Channel name');
    expect(await name.getAttribute('aria-describedby')).toBe('f-name-error');
    expect(await name.inputValue()).toBe('!!!');
    await check(page, 'rooms-refused');

    await page.goto(`${base}/settings/tokens`);
    await page.getByText('Showing 1–50 of 60').waitFor();
    await check(page, 'tokens');

    const tab = `${base}/rooms/${generalRoomId}/settings/webhooks`;
    await page.goto(tab);
    await page.getByText('Showing 1–50 of 60').first().waitFor();
    await page.getByLabel('Target URL').fill('http://127.0.0.1:9/hook');
    await page.getByRole('button', { name: 'Create hook' }).click();
    await page.waitForURL(tab);
    await page.getByText(/loopback/).waitFor();
    expect(await page.getByLabel('Target URL').inputValue()).toBe('http://127.0.0.1:9/hook');
    // The form sits under 50 keys and 50 hooks: the page lands on the refused field, focused.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('f-target_url');
    const inView = await page
      .getByLabel('Target URL')
      .evaluate((input) => input.getBoundingClientRect().bottom <= window.innerHeight);
    expect(inView).toBe(true);
    await check(page, 'webhooks-refused-hook');

    await page.goto(`${base}/members?page=2`);
    await page.getByText('Showing 51–61 of 61').waitFor();
    await check(page, 'members-page-2');
    await page.getByLabel('Email').fill('nobody@example.test');
    await page.getByRole('button', { name: 'Add member' }).click();
    await page.waitForURL(`${base}/members`);
    await page.getByText('No account uses this email yet.').waitFor();
    await check(page, 'members-refused');

    await page.goto(`${web.url}/workspaces`);
    await check(page, 'workspaces');
  });

  it('a refused sign-in and a refused agent rename come back to their page', async () => {
    const db = web.ctx.db;
    const ownerUser = await createUser(db, { name: 'Grace Hopper' });
    const { workspace } = await createWorkspace(db, ownerUser, 'Harbour Ops');
    const token = await createApiToken(db, workspace, { scopes: ['platform:dispatch'] });
    const register = (installId: string, name: string) =>
      registerAgent(db, { workspaceId: workspace.id, installId, name, tokenId: token.id });
    await register('install-shot-1', 'shop');
    const agent = await register('install-shot-2', 'api');
    const base = `${web.url}/w/${workspace.id}/${workspace.slug}`;
    const page = await (await chrome.newContext()).newPage();

    // A wrong password: back on /login (with where it was going), the email kept, not the password.
    const next = `/w/${workspace.id}/${workspace.slug}/agents`;
    await page.goto(`${web.url}/login?next=${encodeURIComponent(next)}`);
    await page.getByLabel('Email').fill(ownerUser.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('That email and password do not match an account.').waitFor();
    expect(page.url()).toBe(`${web.url}/login?next=${encodeURIComponent(next)}`);
    expect(await page.getByLabel('Email').inputValue()).toBe(ownerUser.email);
    expect(await page.getByLabel('Password').inputValue()).toBe('');
    await check(page, 'signin-refused');

    await page.getByLabel('Password').fill(ownerUser.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/agents`);
    // A taken name: back on the agent's own page, the error beside the name as typed.
    await page.goto(`${base}/agents/${agent.id}`);
    await page.getByLabel('Name').fill('Shop');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('@shop is taken in this workspace.').waitFor();
    expect(page.url()).toBe(`${base}/agents/${agent.id}`);
    const name = page.getByLabel('Name');
    expect(await name.getAttribute('aria-describedby')).toContain('f-name-error');
    expect(await name.inputValue()).toBe('Shop');
    await check(page, 'agent-rename-refused');
  });
});
