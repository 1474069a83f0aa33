import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '@ferry/core';
import type { Page } from 'playwright-core';
import {
  createMember,
  createRoom,
  createWorkspace,
  FormClient,
  Receiver,
  waitUntil,
} from '@ferry/testing';
import {
  axeViolations,
  photograph,
  launchBrowser,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import { createOutgoingHook } from '@ferry/workspace';
import { startFerry, type FerryHarness } from './support/ferry.js';

const SHOTS = '/tmp/shots/ux-basics';
/** The second try waits 10 minutes (+-20%), so "next try" has a time well in the future. */
const RETRY_MS = 600_000;

/**
 * An outgoing hook's page controls, with everything running (pages, relay, webhooks-out): "next
 * try" shows when the retry is due; Disable holds what the hook is owed; Re-enable releases it in
 * message order; Delete asks first and then nothing more is sent.
 */
describe('outgoing hook controls in a browser', () => {
  let ferry: FerryHarness;
  let chrome: TestBrowser;
  let receiver: Receiver;

  beforeAll(async () => {
    ferry = await startFerry({
      ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
      WEBHOOK_RETRY_SCHEDULE_MS: `0,${RETRY_MS}`,
    });
    receiver = await new Receiver().start();
    chrome = await launchBrowser();
  });
  afterAll(async () => {
    await chrome?.close();
    await receiver?.close();
    await ferry?.close();
  });

  async function check(page: Page, name: string): Promise<void> {
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      expect(await axeViolations(page)).toEqual([]);
      await photograph(page, `${SHOTS}/${name}-${width}.png`, { fullPage: true });
    }
  }

  /** Reloads the hook page until `ready` holds (deliveries are written by other workers). */
  async function reloadUntil(page: Page, ready: () => Promise<boolean>, what: string) {
    await waitUntil(
      async () => {
        await page.reload();
        return ready();
      },
      `the hook page to show ${what}`,
      60_000,
      250,
    );
  }

  it('shows the next try, disables, re-enables in order and deletes after asking', async () => {
    const { db } = ferry.ctx;
    const workspace = await createWorkspace(db, { name: 'Acme Support' });
    const admin = await createMember(db, workspace, { role: 'admin' });
    const member = await createMember(db, workspace, { role: 'member' });
    const room = await createRoom(db, workspace, { name: 'deploys', members: [admin, member] });
    const box = new SecretBox(ferry.ctx.config.APP_SECRET);
    const { hook } = await createOutgoingHook(db, box, {
      workspaceId: workspace.id,
      roomId: room.id,
      targetUrl: `${receiver.url}/hook`,
      createdBy: admin.id,
    });
    const roomPath = `/w/${workspace.id}/${workspace.slug}/rooms/${room.id}`;
    const hookUrl = `${ferry.url}${roomPath}/settings/webhooks/outgoing/${hook.id}`;
    const poster = new FormClient(ferry.url);
    await poster.signIn(member.user.email, member.user.password);
    const post = async (body: string) => {
      const res = await poster.post(`${roomPath}/messages`, { body }, { csrfFrom: roomPath });
      expect(res.status).toBe(302);
    };
    /**
     * Waits for the receiver to have `count` requests; if it gives up, it says what the hook and
     * its deliveries looked like then (a loaded CI host once saw no send for 20 s after Re-enable).
     */
    const waitForSends = async (count: number, what: string) => {
      try {
        await receiver.waitFor(count, 30_000);
      } catch (error) {
        const state = await db
          .selectFrom('outgoing_webhooks')
          .select(['state', 'consecutive_failures'])
          .where('id', '=', hook.id)
          .executeTakeFirst();
        const deliveries = await db
          .selectFrom('webhook_deliveries')
          .select(['id', 'status', 'attempts', 'next_attempt_at', 'created_at', 'message_id'])
          .where('hook_id', '=', hook.id)
          .orderBy('created_at')
          .execute();
        throw new Error(
          `${String(error)} while waiting for ${what} (now ${new Date().toISOString()}); hook ${JSON.stringify(state)}, deliveries ${JSON.stringify(deliveries)}`,
        );
      }
    };
    const sentBodies = () =>
      receiver.requests.map(
        (r) => (JSON.parse(r.body) as { message: { body: string } }).message.body,
      );

    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signInWithForm(page, ferry.url, admin.user.email, admin.user.password);
    await page.getByRole('heading', { name: 'Acme Support' }).waitFor();
    await page.goto(hookUrl);

    // The receiver is down: the first try fails and the next is scheduled 10 minutes out.
    receiver.reply({ status: 503, body: 'down for maintenance' });
    await post('one');
    await waitForSends(1, 'the first try of "one"');
    const nextTry = page.getByTestId('next-try');
    // (While a try is under way its lease shows as the next try; wait for the failure's record.)
    await reloadUntil(
      page,
      async () =>
        (await page.getByTestId('attempt').count()) === 1 && (await nextTry.count()) === 1,
      'the failed attempt and the next try',
    );
    expect(await nextTry.textContent()).toMatch(
      /^next try in (8|9|10|11|12) minutes \(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\)$/,
    );
    const due = Date.parse((await nextTry.locator('time').getAttribute('datetime')) ?? '');
    expect(due - Date.now()).toBeGreaterThan(RETRY_MS * 0.75);
    expect(due - Date.now()).toBeLessThan(RETRY_MS * 1.25);
    await check(page, 'hook-next-try');

    // Disabled by hand: the pending delivery and everything posted meanwhile is held.
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByText('The hook is disabled').waitFor();
    expect(await page.getByTestId('hook-state').textContent()).toBe('disabled');
    receiver.reply({ status: 200, body: 'ok' });
    await post('two');
    await post('three');
    const held = page.getByText('held until the hook is re-enabled');
    await reloadUntil(page, async () => (await held.count()) === 3, 'three held deliveries');
    expect(receiver.requests).toHaveLength(1);
    await check(page, 'hook-disabled');

    // Re-enabled: what was held goes out, in message order.
    await page.getByRole('button', { name: 'Re-enable' }).click();
    await page.getByText(/3 held deliveries go out in message order/).waitFor();
    await waitForSends(4, 'the held deliveries after Re-enable');
    expect(sentBodies()).toEqual(['one', 'one', 'two', 'three']);

    // Deleting asks first; afterwards nothing more is sent.
    await page.getByRole('link', { name: 'Delete hook' }).click();
    await page.getByRole('heading', { name: `Delete the hook to ${receiver.url}/hook?` }).waitFor();
    await check(page, 'confirm-delete-hook');
    await page.getByRole('button', { name: 'Delete hook' }).click();
    await page.getByText('is deleted: nothing more is sent to it').waitFor();
    await page.getByRole('heading', { name: 'No outgoing hooks yet' }).waitFor();
    await post('four');
    await page.waitForTimeout(1_500);
    expect(receiver.requests).toHaveLength(4);
    await context.close();
  });
});
