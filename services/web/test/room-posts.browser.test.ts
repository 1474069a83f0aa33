import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { postMessage } from '@ferry/workspace';
import { createMember, createRoom, createWorkspace } from '@ferry/testing';
import { axeViolations, launchBrowser, photograph, type TestBrowser } from '@ferry/testing/browser';
import { startWeb, type WebHarness } from './harness.js';

const SHOTS = '/tmp/shots/room-posts';

/**
 * Issue 42 in a room, as an admin sees it: two webhook posts in a row are two messages, each
 * with its header, badge and payload (defect 6), and a message's top-level list has filled
 * bullets, its nested list hollow ones (defect 11).
 */
describe('webhook posts and lists in a room', () => {
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

  async function openRoom(person: { email: string; password: string }, roomUrl: string) {
    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 900 } });
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

  async function atBothWidths(page: Page, name: string): Promise<void> {
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      expect(await axeViolations(page)).toEqual([]);
      await photograph(page, `${SHOTS}/${name}-${width}.png`, { fullPage: true });
    }
  }

  it('each webhook post keeps its header, and lists have filled top-level bullets', async () => {
    const db = web.ctx.db;
    const workspace = await createWorkspace(db, { name: 'Acme Support' });
    const admin = await createMember(db, workspace, { role: 'admin' });
    const room = await createRoom(db, workspace, { name: 'deploys', members: [admin] });
    await postMessage(db, {
      roomId: room.id,
      workspaceId: workspace.id,
      authorKind: 'member',
      authorMemberId: admin.id,
      displayName: admin.user.name,
      body: 'Before the release:\n\n- run the migrations\n- check the queue\n  - mail\n  - webhooks\n- tag it',
    });
    for (const build of [41, 42]) {
      const text = `Build ${build} ${build === 41 ? 'passed' : 'failed'}`;
      await postMessage(db, {
        roomId: room.id,
        workspaceId: workspace.id,
        authorKind: 'webhook',
        authorRef: null,
        displayName: 'CI',
        body: text,
        originalPayload: { format: 'json', payload: JSON.stringify({ text }), truncated: false },
      });
    }

    const page = await openRoom(
      admin.user,
      `/w/${workspace.id}/${workspace.slug}/rooms/${room.id}`,
    );
    const posts = page.locator('#messages li.message.author-webhook');
    await page.locator('#messages .body', { hasText: 'Build 42 failed' }).waitFor();
    expect(await posts.count()).toBe(2);
    for (const post of await posts.all()) {
      expect(await post.evaluate((li) => li.classList.contains('grouped'))).toBe(false);
      await post.locator('.meta .author', { hasText: 'CI' }).waitFor();
      expect(await post.locator('.meta .badge', { hasText: 'webhook' }).isVisible()).toBe(true);
      expect(await post.locator('details.payload').count()).toBe(1);
    }
    // Each post's own payload opens under it.
    await posts.nth(1).getByText('View payload').click();
    expect(await posts.nth(1).locator('details.payload pre').textContent()).toContain(
      'Build 42 failed',
    );

    const bullets = await page.$$eval('#messages .body ul', (lists) =>
      lists.map((list) => getComputedStyle(list).listStyleType),
    );
    expect(bullets).toEqual(['disc', 'circle']);
    await atBothWidths(page, 'room');
  });
});
