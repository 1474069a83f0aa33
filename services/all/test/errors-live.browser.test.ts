import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createErrorGroup,
  createErrorOccurrence,
  createMember,
  createRoom,
  createWorkspace,
} from '@ferry/testing';
import {
  photograph,
  launchBrowser,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import type { Workspace } from '@ferry/db';
import type { BrowserContext, Page } from 'playwright-core';
import { startFerry, type FerryHarness } from './support/ferry.js';

interface Heard {
  workspaceId: string;
  occurrences: number;
}

/**
 * Issue 26: the Errors list updates live, on `pnpm start`. A member has the Errors page open (one
 * tab unfiltered, one on production only, one on ignored groups); errors are posted to
 * /ingest/errors; the open tabs say "N new errors arrived" counting what their filter shows, the
 * rows stay put until the line is clicked, and then the new groups are listed. A guest of the
 * workspace and a member of another workspace are refused the Errors channel and never hear of
 * the workspace's errors. Screenshots of the line at 390 and 1280 px go to
 * /tmp/ferry-errors-live-*.png.
 */
describe('the Errors list, live, on pnpm start', () => {
  let ferry: FerryHarness;
  let chrome: TestBrowser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [ferry, chrome] = await Promise.all([startFerry(), launchBrowser()]);
  });
  afterAll(async () => {
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

  const base = (workspace: Pick<Workspace, 'id' | 'slug'>) =>
    `${ferry.url}/w/${workspace.id}/${workspace.slug}`;

  /** An Errors page whose socket the server let into the workspace's Errors channel. */
  async function openErrors(page: Page, url: string): Promise<void> {
    await page.goto(url);
    await page.locator('.errors-view[data-connected="true"]').waitFor({ timeout: 30_000 });
  }

  /** Records every `errors:new` this page's socket receives (the sidebar's shared socket). */
  async function listen(page: Page): Promise<void> {
    await page.waitForFunction(() => (window as unknown as { ferrySocket?: unknown }).ferrySocket);
    await page.evaluate(() => {
      const w = window as unknown as {
        ferrySocket: { on(event: string, fn: (e: unknown) => void): void };
        heard: unknown[];
      };
      w.heard = [];
      w.ferrySocket.on('errors:new', (event) => w.heard.push(event));
    });
  }

  const heard = (page: Page): Promise<Heard[]> =>
    page.evaluate(() => (window as unknown as { heard: Heard[] }).heard);

  /** What the server answers this page's socket when it asks to watch a workspace's errors. */
  function tryJoin(page: Page, workspaceId: string): Promise<{ ok: boolean }> {
    return page.evaluate(
      (id) =>
        new Promise<{ ok: boolean }>((resolve) => {
          const w = window as unknown as {
            ferrySocket: {
              emit(event: string, payload: unknown, ack: (reply: { ok: boolean }) => void): void;
            };
          };
          w.ferrySocket.emit(
            'errors:join',
            { workspaceId: id, filter: { status: 'all' } },
            resolve,
          );
        }),
      workspaceId,
    );
  }

  async function postErrors(
    workspace: Pick<Workspace, 'public_key'>,
    errors: Record<string, unknown>[],
  ): Promise<void> {
    const res = await fetch(`${ferry.url}/ingest/errors`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-tenant': workspace.public_key },
      body: JSON.stringify({ errors, source: 'ruby' }),
    });
    expect(res.status).toBe(202);
  }

  const timeout = (environment: string) => ({
    error_class: 'PaymentGateway::Timeout',
    message: 'charge timed out after 30s',
    backtrace: ['app/services/charge.rb:42:in `call`', 'app/jobs/checkout.rb:9'],
    environment,
  });

  it('says "N new errors arrived" to members on the page, and to nobody else', async () => {
    const { db } = ferry.ctx;
    const [shop, other] = await Promise.all([
      createWorkspace(db, { name: 'Acme Shop' }),
      createWorkspace(db, { name: 'Other Corp' }),
    ]);
    const member = await createMember(db, shop, { role: 'member' });
    const guest = await createMember(db, shop, { role: 'guest' });
    const outsider = await createMember(db, other, { role: 'owner' });
    const lobby = await createRoom(db, shop, { name: 'lobby', members: [guest] });

    // A group already listed (stored directly: nothing announces it), so there are rows to stay put.
    const listed = await createErrorGroup(db, shop, {
      error_class: 'NoMethodError',
      latest_message: 'undefined method `total`',
      environments: ['production'],
    });
    await createErrorOccurrence(db, listed);
    const errorsUrl = `${base(shop)}/errors`;
    const [page, productionPage, ignoredPage, guestPage, outsiderPage] = await Promise.all([
      signedIn(member.user),
      signedIn(member.user),
      signedIn(member.user),
      signedIn(guest.user),
      signedIn(outsider.user),
    ]);
    await openErrors(page, errorsUrl);
    expect(await page.locator('table.errors').textContent()).toContain('NoMethodError');
    await openErrors(productionPage, `${errorsUrl}?environment=production`);
    await openErrors(ignoredPage, `${errorsUrl}?status=ignored`);
    await guestPage.goto(`${base(shop)}/rooms/${lobby.id}`);
    await openErrors(outsiderPage, `${base(other)}/errors`);
    await Promise.all([page, ignoredPage, guestPage, outsiderPage].map(listen));

    // Neither a guest of the workspace nor a member of another one may watch its errors.
    expect(await tryJoin(guestPage, shop.id)).toMatchObject({ ok: false });
    expect(await tryJoin(outsiderPage, shop.id)).toMatchObject({ ok: false });
    // The outsider's own Errors page still listens to its own workspace.
    await openErrors(outsiderPage, `${base(other)}/errors`);
    await listen(outsiderPage);

    const rowsBefore = await page.locator('table.errors tbody tr').count();
    await postErrors(shop, [
      timeout('production'),
      timeout('production'),
      timeout('staging'),
      { error_class: 'KeyError', message: 'key not found: :sku', environment: 'staging' },
    ]);

    const arrived = page.getByTestId('errors-arrived');
    await arrived.waitFor({ state: 'visible', timeout: 30_000 });
    expect((await arrived.textContent())?.trim()).toBe(
      '4 new errors arrived (2 new groups): show them',
    );
    const production = productionPage.getByTestId('errors-arrived');
    await production.waitFor({ state: 'visible', timeout: 30_000 });
    expect((await production.textContent())?.trim()).toBe(
      '2 new errors arrived (1 new group): show them',
    );
    // The rows did not move under the reader: only the line appeared.
    expect(await page.locator('table.errors tbody tr').count()).toBe(rowsBefore);
    expect(await page.locator('table.errors').textContent()).not.toContain('KeyError');

    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await photograph(page, `/tmp/ferry-errors-live-${width}.png`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });

    // The other workspace's own errors reach its member, and only those ever did.
    await postErrors(other, [{ error_class: 'Other::Error', environment: 'production' }]);
    await outsiderPage.getByTestId('errors-arrived').waitFor({ state: 'visible', timeout: 30_000 });
    expect(await heard(outsiderPage)).toEqual([
      { workspaceId: other.id, occurrences: 1, newGroups: 1 },
    ]);
    expect(await heard(guestPage)).toEqual([]);
    expect(await heard(ignoredPage)).toEqual([]);
    expect(await ignoredPage.getByTestId('errors-arrived').isHidden()).toBe(true);
    expect(await heard(page)).toEqual([{ workspaceId: shop.id, occurrences: 4, newGroups: 2 }]);

    // "Show them": the list again, with the new groups.
    await arrived.getByRole('link').click();
    await page.locator('table.errors', { hasText: 'KeyError' }).waitFor();
    const table = (await page.locator('table.errors').textContent()) ?? '';
    expect(table).toContain('PaymentGateway::Timeout');
    expect(table).toContain('NoMethodError');
    expect(await page.getByTestId('errors-arrived').isHidden()).toBe(true);
  });
});
