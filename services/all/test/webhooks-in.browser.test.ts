import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, createRoom, createWorkspace, type TestContext } from '@ferry/testing';
import {
  photograph,
  launchBrowser,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import { startFerry, type FerryHarness } from './support/ferry.js';

const run = promisify(execFile);

/**
 * The whole product as `pnpm start` runs it, with PUBLIC_URL set to the server's own address, so
 * the curl example shown on the key page runs as is.
 */
describe('incoming webhook keys in a browser', () => {
  let harness: FerryHarness;
  let ctx: TestContext;
  let url: string;
  let chrome: TestBrowser;

  beforeAll(async () => {
    harness = await startFerry();
    ctx = harness.ctx;
    url = harness.url;
    chrome = await launchBrowser();
  });
  afterAll(async () => {
    await chrome?.close();
    await harness?.close();
  });

  it('creates a key, reveals it, runs the curl example and sees the message in the room', async () => {
    const workspace = await createWorkspace(ctx.db, { name: 'Acme Ops' });
    const admin = await createMember(ctx.db, workspace, { role: 'admin' });
    const room = await createRoom(ctx.db, workspace, { name: 'deploys', members: [admin] });
    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();

    await signInWithForm(page, url, admin.user.email, admin.user.password);
    await page.getByRole('heading', { name: 'Acme Ops' }).waitFor();

    await page.goto(`${url}/w/${workspace.id}/${workspace.slug}/rooms/${room.id}`);
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.getByRole('heading', { name: 'Settings · Webhooks' }).waitFor();
    await page.getByLabel('Key name').fill('Deploy bot');
    await page.getByRole('button', { name: 'Create key' }).click();

    await page.getByRole('heading', { name: /Deploy bot/ }).waitFor();
    const maskedText = (await page.getByTestId('incoming-key').textContent()) ?? '';
    expect(maskedText).toMatch(/^whk_.{8}…$/);
    await page.getByRole('button', { name: 'Reveal' }).click();
    await page.getByRole('button', { name: 'Copy the key' }).waitFor();
    const rawKey = ((await page.getByTestId('incoming-key').textContent()) ?? '').trim();
    expect(rawKey).toMatch(/^whk_[A-Za-z0-9_-]{43}$/);
    const curl = ((await page.getByTestId('curl-example').textContent()) ?? '').trim();
    expect(curl).toContain(`${url}/wh/in/${rawKey}`);
    await photograph(page, '/tmp/ferry-webhooks-key.png', { fullPage: true });

    // The example, exactly as shown, as a real command.
    const { stdout } = await run('bash', ['-c', curl], { timeout: 30_000 });
    const { message_id } = JSON.parse(stdout) as { message_id: string };
    expect(message_id).toMatch(/^msg_/);

    await page
      .getByRole('link', { name: /deploys/ })
      .first()
      .click();
    const item = page.locator(`li.message[data-id="${message_id}"]`);
    await item.waitFor();
    expect(await item.locator('.author').textContent()).toBe('Deploy bot');
    expect(await item.locator('.body strong').textContent()).toBe('curl');
    // Admins get the badge as a link to the key's page.
    await item.getByRole('link', { name: 'webhook' }).click();
    await page.getByRole('heading', { name: /Deploy bot/ }).waitFor();

    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.getByRole('heading', { name: 'Settings · Webhooks' }).waitFor();
    expect(await page.getByRole('cell', { name: 'Deploy bot' }).count()).toBe(1);
    await page.getByLabel('Target URL').waitFor();
    await page.getByRole('button', { name: 'Create hook' }).waitFor();
    await photograph(page, '/tmp/ferry-webhooks-tab.png', { fullPage: true });
    await context.close();
  });
});
