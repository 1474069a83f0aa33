import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { BrowserContext, Page } from 'playwright-core';
import {
  createMember,
  createMessage,
  createRoom,
  createUser,
  createWorkspace,
} from '@ferry/testing';
import { photograph, launchBrowser, type TestBrowser } from '@ferry/testing/browser';
import { startWeb, type WebHarness } from './harness.js';

describe('a room in two browsers', () => {
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

  /** A person in their own browser context, signed in through the form, on the room page. */
  async function openRoom(
    person: { email: string; password: string },
    roomUrl: string,
  ): Promise<Page> {
    const context = await browser.browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${web.url}/login?next=${encodeURIComponent(roomUrl)}`);
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === roomUrl);
    // room.js marks the room once the server has let its socket into the room.
    await page.locator('.room[data-connected="true"]').waitFor();
    return page;
  }

  it('shows a message sent by one member to the other without a reload', async () => {
    const workspace = await createWorkspace(web.ctx.db, { name: 'Acme Support' });
    const ada = await createMember(web.ctx.db, workspace, {
      role: 'owner',
      user: await createUser(web.ctx.db, { name: 'Ada Lovelace' }),
    });
    const bob = await createMember(web.ctx.db, workspace, {
      user: await createUser(web.ctx.db, { name: 'Bob Marley' }),
    });
    const room = await createRoom(web.ctx.db, workspace, { name: 'support', members: [ada, bob] });
    const earlier = [
      await createMessage(web.ctx.db, room, {
        author_kind: 'webhook',
        display_name: 'Deploy bot',
        body: 'Deployed **v2.4.1** to production: https://example.test/releases/2.4.1',
      }),
      await createMessage(web.ctx.db, room, {
        author_kind: 'member',
        author_member_id: bob.id,
        display_name: 'Bob Marley',
        body: 'Checkout looks slow since the deploy. @ada can you take a look?\n\n```\nGET /checkout 2.3s\n```',
      }),
    ];
    // Earlier messages, so the page shows relative times other than "just now".
    for (const [i, m] of earlier.entries()) {
      const minutes = 42 - i * 30;
      await sql`update messages set created_at = now() - make_interval(mins => ${minutes})
        where id = ${m.id}`.execute(web.ctx.db);
    }
    const roomUrl = `/w/${workspace.id}/${workspace.slug}/rooms/${room.id}`;

    const pageA = await openRoom({ email: ada.user.email, password: ada.user.password }, roomUrl);
    const pageB = await openRoom({ email: bob.user.email, password: bob.user.password }, roomUrl);
    const before = await pageB.evaluate(() => performance.timeOrigin);

    const text = 'On it: the cache was cold. Fixed in `a1b2c3`, thanks @bob!';
    await pageA.getByLabel('Message').fill(text);
    await pageA.getByRole('button', { name: 'Send' }).click();

    const arrived = pageB.locator('li.message', { hasText: 'the cache was cold' });
    await arrived.waitFor();
    // The same document: no reload happened on B's side.
    expect(await pageB.evaluate(() => performance.timeOrigin)).toBe(before);
    expect(await arrived.locator('.author').textContent()).toBe('Ada Lovelace');
    expect(await arrived.locator('code').textContent()).toBe('a1b2c3');
    expect(await arrived.locator('.mention').textContent()).toBe('@bob');

    // The sender sees it once (fetch answer and socket echo are deduplicated), box cleared.
    await pageA.locator('li.message', { hasText: 'the cache was cold' }).waitFor();
    await pageA.waitForTimeout(300);
    expect(await pageA.locator('li.message', { hasText: 'the cache was cold' }).count()).toBe(1);
    expect(await pageB.locator('li.message', { hasText: 'the cache was cold' }).count()).toBe(1);
    expect(await pageA.getByLabel('Message').inputValue()).toBe('');

    // Enter sends too, and an empty message is refused inline without a request.
    await pageB.getByLabel('Message').fill('Confirmed, p95 is back to 180 ms.');
    await pageB.getByLabel('Message').press('Enter');
    await pageA.locator('li.message', { hasText: 'p95 is back' }).waitFor();
    await pageB.getByRole('button', { name: 'Send' }).click();
    expect(await pageB.locator('#message-body-error').textContent()).toContain('Write a message.');

    const stored = await web.ctx.db
      .selectFrom('messages')
      .select(['body', 'author_member_id'])
      .where('room_id', '=', room.id)
      .where('author_kind', '=', 'member')
      .orderBy('id')
      .execute();
    expect(stored.slice(-2)).toEqual([
      { body: text, author_member_id: ada.id },
      { body: 'Confirmed, p95 is back to 180 ms.', author_member_id: bob.id },
    ]);

    await pageB.getByLabel('Message').fill('');
    await photograph(pageA, '/tmp/ferry-room.png');
    await pageA.getByRole('link', { name: 'Rooms' }).click();
    await pageA.getByRole('heading', { name: 'Rooms', level: 1 }).waitFor();
    await photograph(pageA, '/tmp/ferry-rooms.png');
  });
});
