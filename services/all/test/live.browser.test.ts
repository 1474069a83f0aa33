import { createFerryClient } from '@ferry/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '@ferry/core';
import { createApiToken, createMember, createRoom, createWorkspace } from '@ferry/testing';
import {
  photograph,
  launchBrowser,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import { createIncomingKey, postMessage } from '@ferry/workspace';
import type { Page } from 'playwright-core';
import { startFerry, type FerryHarness } from './support/ferry.js';

/**
 * Messages stored by paths other than the room page appear live for a member who has the room
 * open, with the whole product running as `pnpm start` runs it: the outbox relay announces every
 * committed message, whoever stored it (packages/workspace live.ts).
 */
describe('messages from every path appear live', () => {
  let ferry: FerryHarness;
  let chrome: TestBrowser;

  beforeAll(async () => {
    [ferry, chrome] = await Promise.all([startFerry(), launchBrowser()]);
  });
  afterAll(async () => {
    await chrome?.close();
    await ferry?.close();
  });

  async function openRoom(person: { email: string; password: string }, path: string) {
    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await signInWithForm(page, ferry.url, person.email, person.password);
    await page.goto(`${ferry.url}${path}`);
    // room.js marks the room once the server has let its socket into the room.
    await page.locator('.room[data-connected="true"]').waitFor();
    return { page, close: () => context.close() };
  }

  const live = (page: Page, id: string) => page.locator(`li.message[data-id="${id}"]`);

  it('shows an incoming webhook message without a reload', async () => {
    const { db } = ferry.ctx;
    const workspace = await createWorkspace(db, { name: 'Acme Ops' });
    const admin = await createMember(db, workspace, { role: 'admin' });
    const room = await createRoom(db, workspace, { name: 'deploys', members: [admin] });
    const key = await createIncomingKey(db, new SecretBox(ferry.ctx.config.APP_SECRET), {
      workspaceId: workspace.id,
      roomId: room.id,
      name: 'CI',
      createdBy: admin.id,
    });
    const { page, close } = await openRoom(
      admin.user,
      `/w/${workspace.id}/${workspace.slug}/rooms/${room.id}`,
    );
    try {
      const posted = await fetch(`${ferry.url}/wh/in/${key.rawKey}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'Build **#812** passed', username: 'CI bot' }),
      });
      expect(posted.status).toBe(201);
      const { message_id } = (await posted.json()) as { message_id: string };
      const item = live(page, message_id);
      await item.waitFor({ timeout: 30_000 });
      expect(await item.locator('.author').textContent()).toBe('CI bot');
      expect(await item.locator('.body strong').textContent()).toBe('#812');
    } finally {
      await close();
    }
  });

  it('shows system messages in a ticket conversation without a reload', async () => {
    const { db } = ferry.ctx;
    const workspace = await createWorkspace(db, { name: 'Acme Support' });
    const member = await createMember(db, workspace, { role: 'member' });
    const token = await createApiToken(db, workspace, { scopes: ['tenant:write'] });
    const fileTicket = async (note: string) => {
      const res = await createFerryClient(ferry.url, token.raw).POST('/api/v1/feedback', {
        body: { note, reporter: { label: 'Ada', role: 'customer' } },
      });
      expect(res.response.status).toBe(201);
      return res.data!;
    };
    const ticket = await fileTicket('The pay button does nothing');
    const { page, close } = await openRoom(
      member.user,
      `/w/${workspace.id}/${workspace.slug}/rooms/${ticket.conversation.room_id}`,
    );
    try {
      // Filing wrote the conversation's first message (a system message) with the ticket: it is
      // on the page already, since the room did not exist before. A later system message in the
      // same conversation (what dispatch and agents post) arrives live, from outside any page.
      expect(await page.locator('li.message').count()).toBe(1);
      expect(await page.locator('li.message .body').first().textContent()).toContain(
        'New feedback from Ada (customer)',
      );
      const notice = await postMessage(db, {
        roomId: ticket.conversation.room_id,
        workspaceId: workspace.id,
        authorKind: 'system',
        displayName: 'Ferry',
        body: 'Pull request opened: https://github.example/acme/shop/pull/7',
      });
      await live(page, notice.id).waitFor({ timeout: 30_000 });
      expect(await live(page, notice.id).textContent()).toContain('Pull request opened');
      await photograph(page, '/tmp/ferry-live-conversation.png', { fullPage: true });
    } finally {
      await close();
    }
  });
});
