import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFerryClient } from '@ferry/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Workspace } from '@ferry/db';
import { createApiToken, createMember, createWorkspace, waitUntil } from '@ferry/testing';
import {
  checkBothWidths,
  launchBrowser,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import { WIDGET_SNIPPET } from '@ferry/widget';
import { startFerry, type FerryHarness } from './support/ferry.js';

const SHOTS = '/tmp/ferry-shots/linked-errors';

/**
 * Issue 45 part 3 end to end: a customer page on another origin reports its own error through
 * the widget (`service('reportError', …)`, sent with the visitor's header), and the same visitor
 * then files feedback. The ticket page lists the error's group and the group page lists the
 * ticket ("1 person reported this"), both ways. A member unlinks it on the group page, is told
 * plainly when a pasted link is not a group's, and links it again by pasting the group's address
 * on the ticket page. Both pages pass axe without sideways scroll at 390 and 1280 px.
 */
describe('feedback linked to the reporter’s errors, in a browser', () => {
  let ferry: FerryHarness;
  let chrome: TestBrowser;
  let hostServer: http.Server;
  let hostUrl: string;
  let workspace: Workspace;

  beforeAll(async () => {
    [ferry, chrome] = await Promise.all([startFerry(), launchBrowser()]);
    workspace = await createWorkspace(ferry.ctx.db, { name: 'Acme Linked' });
    hostServer = http.createServer((_req, res) => {
      const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Acme cart</title>
${WIDGET_SNIPPET(ferry.url, workspace.public_key)}
</head><body><h1>Cart</h1></body></html>`;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(body);
    });
    await new Promise<void>((resolve) => hostServer.listen(0, '127.0.0.1', resolve));
    hostUrl = `http://127.0.0.1:${(hostServer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    hostServer?.closeAllConnections();
    await new Promise((resolve) => hostServer?.close(resolve));
    await chrome?.close();
    await ferry?.close();
  });

  async function stored<T>(what: string, read: () => Promise<T | undefined>): Promise<T> {
    await waitUntil(async () => (await read()) !== undefined, what);
    return (await read())!;
  }

  it('links the visitor’s error and their ticket both ways, and a member unlinks and links by hand', async () => {
    const visitorContext = await chrome.browser.newContext();
    const host = await visitorContext.newPage();
    await host.goto(hostUrl);
    await host.getByRole('button', { name: 'Send feedback' }).waitFor();
    const reported = host.waitForResponse((r) => r.url().endsWith('/ingest/errors'));
    await host.evaluate(() => {
      const service = (window as unknown as { service: (...args: unknown[]) => void }).service;
      service('reportError', new TypeError('Cart total is NaN'), { step: 'cart' });
    });
    expect((await reported).status()).toBe(202);
    const group = await stored('the reported error’s group', () =>
      ferry.ctx.db
        .selectFrom('error_groups')
        .select(['id'])
        .where('workspace_id', '=', workspace.id)
        .where('error_class', '=', 'TypeError')
        .executeTakeFirst(),
    );

    await host.getByRole('button', { name: 'Send feedback' }).click();
    const dialog = host.getByRole('dialog', { name: 'Send feedback' });
    await dialog.getByLabel('What happened?').fill('The total says NaN');
    await dialog.getByRole('button', { name: 'Send', exact: true }).click();
    await dialog.getByText('Thanks! Your feedback was sent.').waitFor();
    await visitorContext.close();
    const ticket = await stored('the ticket', () =>
      ferry.ctx.db
        .selectFrom('feedback')
        .select(['id'])
        .where('workspace_id', '=', workspace.id)
        .where('note', '=', 'The total says NaN')
        .executeTakeFirst(),
    );

    const member = await createMember(ferry.ctx.db, workspace, { role: 'member' });
    const staffContext = await chrome.browser.newContext({
      viewport: { width: 1280, height: 900 },
    });
    const staff = await staffContext.newPage();
    await signInWithForm(staff, ferry.url, member.user.email, member.user.password);
    const base = `${ferry.url}/w/${workspace.id}/${workspace.slug}`;
    const ticketUrl = `${base}/feedback/${ticket.id}`;
    const groupUrl = `${base}/errors/${group.id}`;

    // The ticket lists the group, with why it is linked.
    await staff.goto(ticketUrl);
    const linkedErrors = staff.getByRole('region', { name: 'Linked errors' });
    const row = linkedErrors.getByTestId('linked-error');
    await row.waitFor();
    expect(await row.innerText()).toMatch(
      /TypeError[\s\S]*Cart total is NaN[\s\S]*the reporter hit it 1 time within 10 minutes of the report/,
    );
    await checkBothWidths(staff, `${SHOTS}/ticket`, { shoot: linkedErrors });

    // The group lists the ticket, and how many people.
    await row.getByRole('link', { name: 'TypeError' }).click();
    await staff.waitForURL(groupUrl);
    const reportedBy = staff.getByRole('region', { name: 'Feedback' });
    await reportedBy.getByText('1 person reported this').waitFor();
    await reportedBy.getByRole('link', { name: 'The total says NaN' }).waitFor();
    await checkBothWidths(staff, `${SHOTS}/group`, { shoot: reportedBy });

    // Unlinked on the group page: gone from both sides.
    await reportedBy.getByRole('button', { name: /^Unlink/ }).click();
    await staff.getByText('Unlinked.').waitFor();
    await reportedBy.getByText('No feedback linked.').waitFor();
    await staff.goto(ticketUrl);
    await linkedErrors.getByText('No errors linked.').waitFor();

    // A pasted address that is not a group's is refused on the form, as typed.
    const input = linkedErrors.getByLabel('Link an error group');
    await input.fill(`${base}/feedback/${ticket.id}`);
    await linkedErrors.getByRole('button', { name: 'Link', exact: true }).click();
    await linkedErrors
      .getByText('Paste the error group’s id (egr_…) or the link to its page.')
      .waitFor();
    expect(await input.inputValue()).toBe(`${base}/feedback/${ticket.id}`);
    await checkBothWidths(staff, `${SHOTS}/ticket-refused`, { shoot: linkedErrors });
    // The group's own address links it again, by hand.
    await input.fill(groupUrl);
    await linkedErrors.getByRole('button', { name: 'Link', exact: true }).click();
    await staff.getByText('Linked.').waitFor();
    expect(await linkedErrors.getByTestId('linked-error').innerText()).toContain(
      'Cart total is NaN',
    );
    // The conversation says who did what.
    await staff
      .getByText(`${member.user.name} linked this ticket to the error TypeError`)
      .waitFor();
    await staff.goto(groupUrl);
    await reportedBy.getByText('1 person reported this').waitFor();
    await staffContext.close();

    // The API says the same, both ways.
    const token = await createApiToken(ferry.ctx.db, workspace, { scopes: ['tenant:read'] });
    const api = createFerryClient(ferry.url, token.raw);
    const read = await api.GET('/api/v1/feedback/{id}', { params: { path: { id: ticket.id } } });
    expect(read.data!.linked_errors).toEqual([
      expect.objectContaining({
        group_id: group.id,
        error_class: 'TypeError',
        message: 'Cart total is NaN',
        linked_by: 'hand',
        visitor_occurrences: 1,
      }),
    ]);
    const groupRead = await api.GET('/api/v1/errors/{groupId}', {
      params: { path: { groupId: group.id } },
    });
    expect(groupRead.data!.feedback).toEqual({
      people: 1,
      total: 1,
      tickets: [expect.objectContaining({ id: ticket.id, linked_by: 'hand', status: 'new' })],
    });
  });
});
