import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createMember, createRoom, createWorkspace, Receiver, waitUntil } from '@ferry/testing';
import {
  photograph,
  launchBrowser,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import { startFerry, type FerryHarness } from './support/ferry.js';

/**
 * The browser check: an admin creates an outgoing hook to a local receiver on the room's
 * Webhooks tab, a member posts in the room, and the admin sees the delivery in the hook's log.
 * Everything is real, as `pnpm start` runs it: pages, the outbox relay and the webhooks-out
 * workers. Loopback targets need the dev flag.
 */
describe('outgoing webhooks in a browser', () => {
  let web: FerryHarness;
  let chrome: TestBrowser;
  let receiver: Receiver;

  beforeAll(async () => {
    web = await startFerry({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' });
    receiver = await new Receiver().start();
    chrome = await launchBrowser();
  });
  afterAll(async () => {
    await chrome?.close();
    await receiver?.close();
    await web?.close();
  });

  async function signIn(page: Page, email: string, password: string, workspaceName: string) {
    await signInWithForm(page, web.url, email, password);
    await page.getByRole('heading', { name: workspaceName }).waitFor();
  }

  it('creates a hook, a member posts, and the delivery shows in the hook log', async () => {
    const workspace = await createWorkspace(web.ctx.db, { name: 'Acme Support' });
    const admin = await createMember(web.ctx.db, workspace, { role: 'admin' });
    const member = await createMember(web.ctx.db, workspace, { role: 'member' });
    const room = await createRoom(web.ctx.db, workspace, {
      name: 'deploys',
      members: [admin, member],
    });
    const roomUrl = `${web.url}/w/${workspace.id}/${workspace.slug}/rooms/${room.id}`;

    const adminContext = await chrome.browser.newContext({
      viewport: { width: 1280, height: 900 },
    });
    const adminPage = await adminContext.newPage();
    await signIn(adminPage, admin.user.email, admin.user.password, 'Acme Support');
    await adminPage.goto(`${roomUrl}/settings/webhooks`);
    await adminPage.getByLabel('Target URL').fill(`${receiver.url}/ferry-hook`);
    await adminPage.getByRole('button', { name: 'Create hook' }).click();
    await adminPage.getByRole('heading', { name: /Outgoing webhook/ }).waitFor();
    // Before Reveal: revealing is a POST whose page has the /reveal address.
    const hookUrl = adminPage.url();
    expect(await adminPage.getByTestId('signing-secret').textContent()).not.toMatch(
      /whsec_[A-Za-z0-9+/]{32}/,
    );
    await adminPage.getByRole('button', { name: 'Reveal' }).click();
    const secret = ((await adminPage.getByTestId('signing-secret').textContent()) ?? '').trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);

    const memberContext = await chrome.browser.newContext();
    const memberPage = await memberContext.newPage();
    await signIn(memberPage, member.user.email, member.user.password, 'Acme Support');
    await memberPage.goto(roomUrl);
    await memberPage.getByLabel('Message').fill('Deploy #42 finished green');
    await memberPage.getByRole('button', { name: 'Send' }).click();

    await receiver.waitFor(1, 30_000);
    const request = receiver.requests[0]!;
    expect(request.path).toBe('/ferry-hook');
    expect(JSON.parse(request.body)).toMatchObject({
      event: 'message_created',
      message: { body: 'Deploy #42 finished green', sender: { type: 'member', id: member.id } },
    });
    const expected = createHmac('sha256', secret).update(request.body).digest('hex');
    expect(request.headers['x-service-signature']).toBe(`sha256=${expected}`);

    // The admin reloads the hook page until the attempt is in the log.
    await waitUntil(
      async () => {
        await adminPage.goto(hookUrl);
        return (await adminPage.getByTestId('attempt').count()) > 0;
      },
      'the delivery to show in the log',
      60_000,
      250,
    );
    const delivery = adminPage.getByTestId('delivery').first();
    expect(await delivery.textContent()).toContain('succeeded');
    const attempt = adminPage.getByTestId('attempt').first();
    expect(await attempt.textContent()).toContain('200');
    expect(await attempt.textContent()).toContain('ok');
    expect(await adminPage.getByTestId('consecutive-failures').textContent()).toBe('0');
    await photograph(adminPage, '/tmp/ferry-hook.png', { fullPage: true });
  });
});
