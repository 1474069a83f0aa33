import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createErrorGroup,
  createErrorOccurrence,
  createMember,
  createUser,
  createWorkspace,
} from '@ferry/testing';
import {
  launchBrowser,
  signInWithForm,
  type TestBrowser,
  checkBothWidths,
} from '@ferry/testing/browser';
import { startWeb, type WebHarness } from './harness.js';

const SHOTS = '/tmp/shots/errors-assign';

/** Issue 43: assigning from the group page, then "Assigned to me" from the sidebar. */
describe('assigning an error group in a browser', () => {
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

  it('a member assigns a group to themself and finds it under Assigned to me', async () => {
    const db = web.ctx.db;
    const workspace = await createWorkspace(db, { name: 'Acme Shop' });
    const member = await createMember(db, workspace, {
      role: 'member',
      user: await createUser(db, { name: 'Grace Hopper' }),
    });
    await createMember(db, workspace, {
      role: 'member',
      user: await createUser(db, { name: 'Katherine Johnson-Goble The Longest Name' }),
    });
    const group = await createErrorGroup(db, workspace, {
      error_class: 'Payments::CardDeclinedError',
      latest_message: 'The card was declined while charging order 1042',
      source: 'ruby',
      environments: ['production'],
    });
    await createErrorOccurrence(db, group, { message: 'The card was declined' });
    await createErrorGroup(db, workspace, {
      error_class: 'TypeError',
      latest_message: "Cannot read properties of undefined (reading 'id')",
      source: 'js',
    });

    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signInWithForm(page, web.url, member.user.email, member.user.password);
    await page.getByRole('heading', { name: 'Acme Shop' }).waitFor();
    const base = `/w/${workspace.id}/${workspace.slug}`;
    await page.goto(`${web.url}${base}/errors/${group.id}`);
    await page.getByTestId('group-assignee').locator('strong', { hasText: 'nobody' }).waitFor();
    await page.getByLabel('Assignee').selectOption({ label: 'Grace Hopper' });
    await page.getByRole('button', { name: 'Assign' }).click();
    await page
      .getByTestId('group-assignee')
      .locator('strong', { hasText: 'Grace Hopper' })
      .waitFor();
    await checkBothWidths(page, `${SHOTS}/group`);

    await page.getByRole('link', { name: 'Assigned to me' }).click();
    await page.getByTestId('assigned-filter').waitFor();
    expect(await page.locator('table.errors tbody tr').count()).toBe(1);
    await expect(page.getByTestId('row-assignee').textContent()).resolves.toContain('Grace Hopper');
    await checkBothWidths(page, `${SHOTS}/assigned-to-me`);

    await page.getByRole('link', { name: 'Show everyone’s' }).click();
    await page.locator('table.errors tbody tr').nth(1).waitFor();
    await checkBothWidths(page, `${SHOTS}/list`);
    await context.close();
  });
});
