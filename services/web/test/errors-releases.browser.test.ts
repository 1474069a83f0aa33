import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@ferry/core';
import { createErrorGroup, createMember, createUser, createWorkspace } from '@ferry/testing';
import {
  launchBrowser,
  signInWithForm,
  type TestBrowser,
  checkBothWidths,
} from '@ferry/testing/browser';
import { startWeb, type WebHarness } from './harness.js';

const SHOTS = '/tmp/shots/errors-releases';

/** Issue 43: Errors → Releases from the sidebar, then Resolve in next release on a group. */
describe('releases in a browser', () => {
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

  it('lists releases and resolves a group in the next release', async () => {
    const db = web.ctx.db;
    const workspace = await createWorkspace(db, { name: 'Acme Shop' });
    const member = await createMember(db, workspace, {
      role: 'member',
      user: await createUser(db, { name: 'Grace Hopper' }),
    });
    const hour = 3_600_000;
    await db
      .insertInto('releases')
      .values([
        { workspace_id: workspace.id, version: 'shop@2.4.0', first_event_at: new Date() },
        {
          workspace_id: workspace.id,
          version: 'shop@2.3.1',
          first_event_at: new Date(Date.now() - 30 * hour),
        },
        {
          workspace_id: workspace.id,
          version: 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0',
          first_event_at: null,
        },
      ])
      .execute();
    await db
      .insertInto('release_deploys')
      .values(
        ['staging', 'production'].map((environment, i) => ({
          id: newId('releaseDeploy'),
          workspace_id: workspace.id,
          version: 'shop@2.4.0',
          environment,
          name: i ? 'Friday afternoon' : null,
          date_finished: new Date(Date.now() - (2 - i) * hour),
        })),
      )
      .execute();
    const group = await createErrorGroup(db, workspace, {
      error_class: 'Payments::CardDeclinedError',
      latest_message: 'The card was declined while charging order 1042',
    });
    await db
      .updateTable('error_groups')
      .set({ first_release: 'shop@2.3.1', last_release: 'shop@2.4.0' })
      .where('id', '=', group.id)
      .execute();

    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signInWithForm(page, web.url, member.user.email, member.user.password);
    await page.getByRole('heading', { name: 'Acme Shop' }).waitFor();
    await page.getByRole('link', { name: 'Releases' }).click();
    await page.getByTestId('releases').waitFor();
    const versions = await page
      .getByTestId('release')
      .evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.version));
    expect(versions.indexOf('shop@2.4.0')).toBeLessThan(versions.indexOf('shop@2.3.1'));
    expect(versions).toHaveLength(3);
    await checkBothWidths(page, `${SHOTS}/releases`);

    const base = `/w/${workspace.id}/${workspace.slug}`;
    await page.goto(`${web.url}${base}/errors/${group.id}`);
    await page.getByRole('button', { name: 'Resolve in next release' }).click();
    await page.getByTestId('group-status').getByText('in the release after').waitFor();
    await checkBothWidths(page, `${SHOTS}/group-resolved-in-next`);
    await context.close();
  });
});
