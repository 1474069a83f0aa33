import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFeedback,
  createMember,
  createMessage,
  createUser,
  createWorkspace,
} from '@ferry/testing';
import {
  axeViolations,
  photograph,
  launchBrowser,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import type { Page } from 'playwright-core';
import { startWeb, type WebHarness } from './harness.js';

const SHOTS = '/tmp/shots/feedback-triage';

/** Screenshots at a phone's and a desktop's width (looked at by hand), then back to desktop. */
async function shoot(page: Page, name: string): Promise<void> {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await photograph(page, `${SHOTS}/${name}-${width}.png`, { fullPage: true });
  }
}

describe('feedback triage in a browser', () => {
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

  it('a member filters the inbox, closes and assigns a ticket, and sees who takes part', async () => {
    const db = web.ctx.db;
    const workspace = await createWorkspace(db, { name: 'Acme Shop' });
    const ada = await createMember(db, workspace, {
      user: await createUser(db, { name: 'Ada Lovelace' }),
    });
    const grace = await createMember(db, workspace, {
      user: await createUser(db, { name: 'Grace Hopper' }),
    });
    const linus = await createMember(db, workspace, {
      user: await createUser(db, { name: 'Linus Pauling' }),
    });
    await createFeedback(db, workspace, {
      title: 'Coupon field rejects lower case',
      note: 'Typing save10 fails, SAVE10 works.',
      status: 'triaged',
      assignee_member_id: ada.id,
      reporter_label: 'Marie',
      reporter_email: 'marie@example.test',
    });
    await createFeedback(db, workspace, {
      title: 'Old invoice link 404s',
      note: 'The invoice link in last month’s email is a 404.',
      status: 'closed',
      reporter_label: 'Rosalind',
    });
    const ticket = await createFeedback(db, workspace, {
      title: 'Pay button does nothing on Safari',
      note: 'Clicking Pay on the checkout page does nothing. Safari 17 on macOS.',
      reporter_label: 'Chen Ning',
      reporter_role: 'customer',
      reporter_email: 'chen@example.test',
    });
    const room = { id: ticket.room_id, workspace_id: workspace.id };
    await createMessage(db, room, {
      body: 'New feedback from Chen Ning (customer) on /checkout:\n\nClicking Pay does nothing.',
    });
    await createMessage(db, room, {
      author_kind: 'member',
      author_member_id: grace.id,
      display_name: 'Grace Hopper',
      body: '@ada can you look? It fails in **Safari** only, see `checkout.js`.',
    });
    await createMessage(db, room, {
      author_kind: 'agent',
      author_ref: 'agt_laptop',
      display_name: 'shop',
      kind: 'progress',
      body: 'Reading app/checkout.js',
    });
    await createMessage(db, room, {
      author_kind: 'agent',
      author_ref: 'agt_laptop',
      display_name: 'shop',
      kind: 'proposal',
      body: 'The click handler was bound before the button existed; bind it on load.',
      metadata: {
        route: 'quick_fix',
        reason: '1 file, 4 lines',
        files: ['app/checkout.js'],
        lines: 4,
      },
    });

    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signInWithForm(page, web.url, ada.user.email, ada.user.password);
    await page.getByRole('heading', { name: 'Acme Shop' }).waitFor();

    // The inbox: status tabs with counts, then the assignee and search form.
    await page.getByRole('link', { name: 'Feedback', exact: true }).click();
    await page.getByRole('heading', { name: 'Feedback', exact: true }).waitFor();
    expect(await page.locator('table.inbox tbody tr').count()).toBe(3);
    expect(await axeViolations(page)).toEqual([]);
    await shoot(page, 'inbox');

    await page.getByLabel('Assignee').selectOption({ label: 'Me' });
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL((url) => url.searchParams.get('assignee') === 'me');
    expect(await page.locator('table.inbox tbody tr').count()).toBe(1);
    expect(await page.locator('table.inbox').textContent()).toContain('Coupon field');

    await page.getByLabel('Assignee').selectOption({ label: 'Anyone' });
    await page.getByLabel('Search').fill('SAFARI');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL((url) => url.searchParams.get('q') === 'SAFARI');
    expect(await page.locator('table.inbox tbody tr').count()).toBe(1);
    await page
      .getByRole('navigation', { name: 'Filter by status' })
      .getByRole('link', { name: /^Closed/ })
      .click();
    await page.getByRole('heading', { name: 'No closed tickets match these filters' }).waitFor();
    expect(await page.getByLabel('Search').inputValue()).toBe('SAFARI');
    expect(await axeViolations(page)).toEqual([]);
    await shoot(page, 'inbox-no-match');
    await page.getByRole('link', { name: 'Clear the filters' }).click();
    await page.waitForURL((url) => url.search === '?status=closed');
    expect(await page.locator('table.inbox').textContent()).toContain('Old invoice link');

    // The ticket page: the conversation renders as in the room (markdown, mention, chip, badge).
    await page.goto(`${web.url}/w/${workspace.id}/${workspace.slug}/feedback/${ticket.id}`);
    await page.getByRole('heading', { name: /Pay button does nothing/ }).waitFor();
    const conversation = page.locator('ol.messages');
    expect(await conversation.locator('strong', { hasText: 'Safari' }).count()).toBe(1);
    expect(await conversation.locator('.mention').count()).toBeGreaterThan(0);
    expect(await conversation.locator('.kind-progress').textContent()).toContain(
      'Reading app/checkout.js',
    );
    expect(await conversation.locator('.badge.route').textContent()).toBe('quick fix');
    expect(await axeViolations(page)).toEqual([]);
    await shoot(page, 'ticket');

    await page.getByLabel('Status').selectOption('closed');
    await page.getByLabel('Assignee').selectOption({ label: 'Grace Hopper' });
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Triage saved.').waitFor();
    expect(await page.locator('h1 .badge').textContent()).toBe('closed');
    expect(await conversation.textContent()).toContain('Ada Lovelace closed this');
    expect(await conversation.textContent()).toContain('Assigned to Grace Hopper by Ada Lovelace');
    expect(await axeViolations(page)).toEqual([]);
    await shoot(page, 'ticket-triaged');

    // Someone leaves between loading the form and saving it: an inline error, nothing changes.
    await page.getByLabel('Assignee').selectOption({ label: 'Linus Pauling' });
    await db
      .updateTable('members')
      .set({ left_at: new Date() })
      .where('id', '=', linus.id)
      .execute();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Pick an active member of this workspace.').waitFor();
    expect(await page.getByLabel('Assignee').getAttribute('aria-invalid')).toBe('true');
    // The select falls back to the current assignee, so saving again changes nothing by accident.
    expect(await page.getByLabel('Assignee').inputValue()).toBe(grace.id);
    expect(await axeViolations(page)).toEqual([]);
    await shoot(page, 'ticket-error');

    // The conversation room names who takes part instead of "0 members".
    await page.getByRole('link', { name: 'Reply in the conversation room' }).click();
    await page.locator('#room-title').waitFor();
    const head = await page.locator('.room-head .participants').textContent();
    expect(head).toContain('Taking part: Chen Ning (reporter), Grace Hopper, shop (agent)');
    expect(head).not.toContain('0 members');
    expect(await axeViolations(page)).toEqual([]);
    await shoot(page, 'conversation-room');
    await context.close();
  }, 240_000);
});
