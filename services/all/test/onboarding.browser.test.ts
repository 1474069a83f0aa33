import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormClient, createApiToken, createUser } from '@ferry/testing';
import {
  axeViolations,
  launchBrowser,
  photograph,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import { createWorkspace } from '@ferry/workspace';
import type { BrowserContext, Page } from 'playwright-core';
import { startFerry, type FerryHarness } from './support/ferry.js';

/**
 * Issue 42, a guided start, on `pnpm start`: the owner of a new workspace has its Dashboard open;
 * each of the five steps is then done elsewhere (a message posted from another session, an invite
 * link made there, an error sent to /ingest/errors, an incoming webhook key made, an agent opening
 * its stream on the agent gateway) and ticks on the open page without a reload. A seat of another
 * workspace may not listen. Then the owner hides the checklist. Photographs of the Dashboard at
 * 390 and 1280 px (new, all done, hidden) go to /tmp/ferry-onboarding-*.png.
 */
describe('the Dashboard checklist, live, on pnpm start', () => {
  let ferry: FerryHarness;
  let chrome: TestBrowser;
  const contexts: BrowserContext[] = [];
  const streams: AbortController[] = [];

  beforeAll(async () => {
    [ferry, chrome] = await Promise.all([startFerry(), launchBrowser()]);
  });
  afterAll(async () => {
    for (const stream of streams) stream.abort();
    for (const context of contexts) await context.close();
    await chrome?.close();
    await ferry?.close();
  });

  async function signedIn(person: { email: string; password: string }): Promise<Page> {
    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    await signInWithForm(page, ferry.url, person.email, person.password);
    await page.waitForURL(/\/w\//);
    return page;
  }

  async function photographs(page: Page, name: string): Promise<void> {
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await photograph(page, `/tmp/ferry-onboarding-${name}-${width}.png`, { fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  /** Waits for the step to show done on the open page: the live tick, no reload. */
  async function ticks(page: Page, step: string): Promise<void> {
    const item = page.locator(`.onboarding-step[data-step="${step}"][data-done="true"]`);
    await item.waitFor({ timeout: 30_000 }).catch((err: Error) => {
      throw new Error(`"${step}" did not tick on the open Dashboard: ${err.message}`);
    });
    expect(await item.locator('.step-state').textContent()).toBe('Done');
  }

  const doneSteps = (page: Page) =>
    page
      .locator('.onboarding-step[data-done="true"]')
      .evaluateAll((items) => items.map((item) => item.getAttribute('data-step')));

  it('ticks each step live as it is done elsewhere, then hides for good', async () => {
    const { db } = ferry.ctx;
    const owner = await createUser(db);
    const { workspace, generalRoomId } = await createWorkspace(db, owner, 'Acme Shop');
    const base = `/w/${workspace.id}/${workspace.slug}`;
    // The owner of another workspace, not a seat of this one.
    const outsider = await createUser(db);
    await createWorkspace(db, outsider, 'Other Corp');

    const page = await signedIn(owner);
    await page.goto(ferry.url + base);
    const card = page.locator('.onboarding');
    await page.locator('.onboarding[data-connected="true"]').waitFor({ timeout: 30_000 });
    expect(await doneSteps(page)).toEqual([]);
    expect((await card.locator('.onboarding-count').textContent())?.trim()).toBe('0 of 5 done');
    expect(await axeViolations(page)).toEqual([]);
    // The first error's DSN and curl, unfolded as someone about to copy them would.
    await card.getByText('Show the DSN and a curl command').click();
    await card.getByTestId('sentry-dsn').waitFor();
    await photographs(page, 'new');

    // A seat of another workspace is refused this workspace's checklist channel.
    const outsiderPage = await signedIn(outsider);
    await outsiderPage.waitForFunction(() => 'ferrySocket' in window);
    const refused = await outsiderPage.evaluate(
      (id) =>
        new Promise<{ ok: boolean }>((resolve) => {
          const w = window as unknown as {
            ferrySocket: {
              emit(event: string, payload: unknown, ack: (reply: { ok: boolean }) => void): void;
            };
          };
          w.ferrySocket.emit('onboarding:join', { workspaceId: id }, resolve);
        }),
      workspace.id,
    );
    expect(refused).toMatchObject({ ok: false });

    // The owner again, in another session (another browser, say).
    const other = new FormClient(ferry.url);
    await other.signIn(owner.email, owner.password);

    const posted = await other.post(
      `${base}/rooms/${generalRoomId}/messages`,
      { body: 'Hello, team!' },
      { csrfFrom: `${base}/rooms/${generalRoomId}` },
    );
    expect(posted.status).toBe(302);
    await ticks(page, 'post');

    const invited = await other.post(
      `${base}/members/invites`,
      { role: 'member', expires_in_days: '7' },
      { csrfFrom: `${base}/members` },
    );
    expect(invited.status).toBeLessThan(400);
    await ticks(page, 'invite');

    const reported = await fetch(`${ferry.url}/ingest/errors`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-tenant': workspace.public_key },
      body: JSON.stringify({
        errors: [{ error_class: 'RuntimeError', message: 'first error', environment: 'dev' }],
        source: 'ruby',
      }),
    });
    expect(reported.status).toBe(202);
    await ticks(page, 'error');

    const webhooks = `${base}/rooms/${generalRoomId}/settings/webhooks`;
    const keyed = await other.post(`${webhooks}/incoming`, { name: 'CI' }, { csrfFrom: webhooks });
    expect(keyed.status).toBe(303);
    await ticks(page, 'webhook');

    // An agent connects as the Python agent does: its stream, with a dispatch token.
    const token = await createApiToken(db, workspace, { scopes: ['platform:dispatch'] });
    const stream = new AbortController();
    streams.push(stream);
    const connected = await fetch(`${ferry.url}/agents/v1/stream`, {
      headers: {
        authorization: `Bearer ${token.raw}`,
        'x-service-install-id': 'install-onboarding-e2e',
        'x-service-agent-name': 'shop',
      },
      signal: stream.signal,
    });
    expect(connected.status).toBe(200);
    await ticks(page, 'agent');
    stream.abort();

    // All done, none of it by a reload.
    expect(await doneSteps(page)).toEqual(['post', 'invite', 'error', 'webhook', 'agent']);
    expect((await card.locator('.onboarding-count').textContent())?.trim()).toBe('5 of 5 done');
    await card.locator('.onboarding-complete').waitFor();
    expect(await card.getAttribute('data-complete')).toBe('true');
    await photographs(page, 'done');

    // Hidden, for good: Post/Redirect/Get back to the Dashboard, and gone on reload.
    await card.getByRole('button', { name: 'Hide this checklist' }).click();
    await page.getByText('The checklist is hidden for everyone in the workspace.').waitFor();
    expect(new URL(page.url()).pathname).toBe(base);
    expect(await page.locator('.onboarding').count()).toBe(0);
    await photographs(page, 'hidden');
    await page.reload();
    await page.locator('h1', { hasText: 'Acme Shop' }).waitFor();
    expect(await page.locator('.onboarding').count()).toBe(0);
  });
});
