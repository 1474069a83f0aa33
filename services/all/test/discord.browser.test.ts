import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookClient } from 'discord.js';
import type { Page } from 'playwright-core';
import { SecretBox } from '@ferry/core';
import { createMember, createRoom, createWorkspace, solidPng } from '@ferry/testing';
import {
  launchBrowser,
  photograph,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import { createIncomingKey } from '@ferry/workspace';
import { startFerry, type FerryHarness } from './support/ferry.js';

const SHOTS = '/tmp/shots/discord';

/**
 * issue 44, done-when: the real discord.js WebhookClient, given only `rest.api`, sends text,
 * embeds and files, then editMessage and deleteMessage, while a member has the room open in
 * Chromium: the message appears, changes and goes away without a reload, as `pnpm start` runs it
 * (webhooks-in, the outbox relay's announcements, web's live room). Its files are shown (the
 * image inline, the rest as downloads) and served only to the room's readers, never as HTML;
 * hostile text in every new field renders as text.
 */
describe('discord.js WebhookClient against a room, live', () => {
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
    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signInWithForm(page, ferry.url, person.email, person.password);
    await page.goto(`${ferry.url}${path}`);
    // room.js marks the room once the server has let its socket into the room.
    await page.locator('.room[data-connected="true"]').waitFor();
    return { page, close: () => context.close() };
  }

  const item = (page: Page, id: string) => page.locator(`li.message[data-id="${id}"]`);

  async function setUp() {
    const { db } = ferry.ctx;
    const workspace = await createWorkspace(db, { name: 'Acme Ops' });
    const admin = await createMember(db, workspace, { role: 'admin' });
    const outsider = await createMember(db, workspace, { role: 'member' });
    const room = await createRoom(db, workspace, { name: 'deploys', members: [admin] });
    const key = await createIncomingKey(db, new SecretBox(ferry.ctx.config.APP_SECRET), {
      workspaceId: workspace.id,
      roomId: room.id,
      name: 'CI',
      createdBy: admin.id,
    });
    const hook = new WebhookClient(
      { id: '1234567890', token: 'any-token' },
      {
        rest: {
          api: `${ferry.url}/wh/in/${key.rawKey}/discord`,
          // Against Discord a 429 is waited out and retried forever; here a test must end.
          rejectOnRateLimit: () => true,
          retries: 0,
        },
      },
    );
    return {
      workspace,
      admin,
      outsider,
      room,
      hook,
      path: `/w/${workspace.id}/${workspace.slug}/rooms/${room.id}`,
    };
  }

  it('sends text, embeds and files, then edits and deletes, the room page following live', async () => {
    const { admin, outsider, hook, path } = await setUp();
    const { page, close } = await openRoom(admin.user, path);
    try {
      const png = solidPng(48, 32, [46, 184, 134]);
      const sent = await hook.send({
        content: 'Deploy **started** for v2.14.0',
        username: 'Deploy bot',
        embeds: [
          {
            title: 'acme/shop #42',
            url: 'https://ci.example.com/runs/42',
            description: 'Building `main`',
            color: 0xf1c40f,
            fields: [{ name: 'Environment', value: 'production', inline: true }],
          },
        ],
        files: [
          { attachment: png, name: 'coverage.png' },
          { attachment: Buffer.from('step 1 ok\nstep 2 ok\n'), name: 'build.log' },
        ],
      });
      const message = item(page, sent.id);
      await message.waitFor({ timeout: 30_000 });
      expect(await message.locator('.author').textContent()).toBe('Deploy bot');
      expect(await message.locator('.body strong').first().textContent()).toBe('started');
      expect(await message.getByRole('link', { name: 'acme/shop #42' }).getAttribute('href')).toBe(
        'https://ci.example.com/runs/42',
      );
      // The image inline, loaded from Ferry (the page's CSP allows our own origin only).
      const image = message.locator('.message-files img');
      await expect
        .poll(() => image.evaluate((img) => (img as HTMLImageElement).naturalWidth), {
          message: 'the inline image to load',
        })
        .toBe(48);
      expect(await image.getAttribute('alt')).toBe('coverage.png');
      const log = message.getByRole('link', { name: 'build.log' });
      const logUrl = `${ferry.url}${await log.getAttribute('href')}`;
      const served = await page.request.get(logUrl);
      expect(served.status()).toBe(200);
      expect(served.headers()['content-type']).toBe('application/octet-stream');
      expect(served.headers()['content-disposition']).toMatch(/^attachment; filename="build.log"/);
      expect(served.headers()['x-content-type-options']).toBe('nosniff');
      expect(await served.text()).toBe('step 1 ok\nstep 2 ok\n');
      await photograph(message, `${SHOTS}/sent.png`);

      // Not for someone who cannot open the room, nor for nobody: the same 404.
      const outsiderContext = await chrome.browser.newContext();
      const outsiderPage = await outsiderContext.newPage();
      await signInWithForm(outsiderPage, ferry.url, outsider.user.email, outsider.user.password);
      expect((await outsiderPage.request.get(logUrl)).status()).toBe(404);
      await outsiderContext.close();
      expect((await fetch(logUrl)).status).toBe(404);

      // editMessage: replaced in place, marked edited, files kept.
      const edited = await hook.editMessage(sent.id, {
        content: 'Deploy **finished** for v2.14.0',
        embeds: [{ title: 'acme/shop #42', description: 'All checks passed', color: 0x2eb886 }],
      });
      expect(edited.id).toBe(sent.id);
      await message.locator('.body strong', { hasText: 'finished' }).waitFor({ timeout: 30_000 });
      expect(await message.locator('.body').textContent()).not.toContain('started');
      expect(await message.locator('.edited').textContent()).toBe('(edited)');
      expect(await message.locator('.message-files li').count()).toBe(2);
      await photograph(message, `${SHOTS}/edited.png`);

      // deleteMessage: gone from the page, and its files with it.
      await hook.deleteMessage(sent.id);
      await message.waitFor({ state: 'detached', timeout: 30_000 });
      expect((await page.request.get(logUrl)).status()).toBe(404);

      // After a reload too.
      await page.reload();
      await page.locator('.room[data-connected="true"]').waitFor();
      expect(await item(page, sent.id).count()).toBe(0);
    } finally {
      await close();
    }
  });

  it('renders HTML and javascript: in every new field as text, and serves no file as HTML', async () => {
    const { admin, hook, path } = await setUp();
    const { page, close } = await openRoom(admin.user, path);
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    try {
      const sent = await hook.send({
        content: '<script>alert(1)</script> [click](javascript:alert(2))',
        username: '<img src=x onerror=alert(3)>',
        embeds: [
          {
            title: '<b>title</b>',
            url: 'javascript:alert(4)',
            author: { name: '<i>author</i>', url: 'javascript:alert(5)' },
            image: { url: 'javascript:alert(6)' },
            footer: { text: '<svg onload=alert(7)>' },
          },
        ],
        files: [
          {
            attachment: Buffer.from('<html><script>alert(8)</script></html>'),
            name: "<img src=x onerror=alert(9)>'.html",
          },
          {
            attachment: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(10)"/>'),
            name: 'logo.svg',
          },
        ],
      });
      const message = item(page, sent.id);
      await message.waitFor({ timeout: 30_000 });
      expect(await message.locator('.author').textContent()).toBe('<img src=x onerror=alert(3)>');
      expect(await message.locator('script, svg, iframe, .body img').count()).toBe(0);
      const hrefs = await message
        .locator('a')
        .evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''));
      expect(hrefs.filter((href) => /^\s*javascript:/i.test(href))).toEqual([]);
      // Neither file is an image: both are download links, served as bytes to save.
      expect(await message.locator('.message-files img').count()).toBe(0);
      const names = await message.locator('.file-link a').allTextContents();
      expect(names).toEqual(["<img src=x onerror=alert(9)>'.html", 'logo.svg']);
      for (const href of await message
        .locator('.file-link a')
        .evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''))) {
        const served = await page.request.get(`${ferry.url}${href}`);
        expect(served.headers()['content-type']).toBe('application/octet-stream');
        expect(served.headers()['content-disposition']).toMatch(/^attachment;/);
        expect(served.headers()['content-security-policy']).toContain('sandbox');
      }
      // Opening the HTML file's address downloads it: nothing of it runs on our origin.
      const download = page.waitForEvent('download');
      await message.locator('.file-link a').first().click();
      expect((await download).suggestedFilename()).toContain('.html');

      // Edits go through the same renderer.
      await hook.editMessage(sent.id, { content: '<img src=x onerror=alert(11)> edited' });
      await message.locator('.edited').waitFor({ timeout: 30_000 });
      expect(await message.locator('.body img').count()).toBe(0);
      expect(dialogs).toEqual([]);
    } finally {
      await close();
    }
  });
});
