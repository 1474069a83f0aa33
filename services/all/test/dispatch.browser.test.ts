import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFerryClient } from '@ferry/client';
import { createApiToken, createMember, createWorkspace, waitUntil } from '@ferry/testing';
import {
  photograph,
  launchBrowser,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import { FakeGitHub } from '@ferry/testing/fake-github';
import { startFerry, type FerryHarness } from './support/ferry.js';

const SHOTS = '/tmp/ferry-shots';

/**
 * Hosted dispatch as people do it, against the fake GitHub: an admin connects the App (install,
 * then authorize, in the browser), links and enables a repo; a member authorizes; the admin picks
 * the dispatch identity. An API client dispatches a ticket and polls it to `pr_opened` (the PR
 * found from the task's artifact by GraphQL) and on to `completed`; the conversation shows
 * GitHub's messages and the ticket links the PR; the ticket is triaged. Without an identity, the
 * ticket page's button runs as the person clicking; that task fails, and the ticket shows GitHub's
 * own reason. The fake answers only in the shapes of GitHub's description (assertConformance).
 */
describe('hosted dispatch end to end', () => {
  let fake: FakeGitHub;
  let ferry: FerryHarness;
  let chrome: TestBrowser;

  beforeAll(async () => {
    fake = await new FakeGitHub().start();
    fake.addUser('owner-gh');
    fake.addUser('ada-gh');
    fake.addInstallation({
      account: 'owner-gh',
      repos: [
        { name: 'shop', defaultBranch: 'main' },
        { name: 'blog', defaultBranch: 'main' },
      ],
      users: ['owner-gh', 'ada-gh'],
    });
    fake.scriptTasks([
      'queued',
      'in_progress',
      { state: 'in_progress', pr: true },
      { state: 'in_progress', pr: true },
      { state: 'completed', pr: true },
    ]);
    [ferry, chrome] = await Promise.all([
      startFerry({ ...fake.env(), DISPATCH_POLL_MS: '200', DISPATCH_POLL_MAX_MS: '400' }),
      launchBrowser(),
    ]);
    fake.setupUrl = `${ferry.url}/github/setup`;
    fake.callbackUrl = `${ferry.url}/github/callback`;
  });
  afterAll(async () => {
    await chrome?.close();
    await ferry?.close();
    await fake?.close();
  });

  it('connects GitHub, dispatches through the API to a PR, and runs as the clicker without an identity', async () => {
    const { db } = ferry.ctx;
    const workspace = await createWorkspace(db, { name: 'Acme Shop', slug: 'acme-shop' });
    const owner = await createMember(db, workspace, { role: 'owner' });
    const ada = await createMember(db, workspace, { role: 'member' });
    const token = (await createApiToken(db, workspace, { scopes: ['tenant:write'] })).raw;
    const base = `${ferry.url}/w/${workspace.id}/${workspace.slug}`;

    // The admin connects the App: GitHub's install page, then the OAuth authorization.
    fake.actAs('owner-gh');
    const admin = await (
      await chrome.browser.newContext({ viewport: { width: 1280, height: 900 } })
    ).newPage();
    await signInWithForm(admin, ferry.url, owner.user.email, owner.user.password);
    await admin.goto(`${base}/settings/github`);
    await admin.getByRole('button', { name: 'Connect GitHub' }).click();
    await admin.waitForLoadState('networkidle');
    await photograph(admin, `${SHOTS}/dispatch-connected-1280.png`, { fullPage: true });
    await admin.getByText('owner-gh/shop').first().waitFor();
    await admin.getByRole('switch', { name: 'Linked: owner-gh/shop' }).click();
    await admin.getByRole('switch', { name: 'Enabled: owner-gh/shop' }).click();
    await waitUntil(
      async () =>
        (await admin
          .getByRole('switch', { name: 'Enabled: owner-gh/shop' })
          .getAttribute('aria-checked')) === 'true',
      'the repo to show enabled',
    );

    // A member authorizes GitHub from the same page.
    fake.actAs('ada-gh');
    const member = await (
      await chrome.browser.newContext({ viewport: { width: 390, height: 844 } })
    ).newPage();
    await signInWithForm(member, ferry.url, ada.user.email, ada.user.password);
    await member.goto(`${base}/settings/github`);
    await member.getByRole('button', { name: 'Authorize GitHub' }).click();
    await member.waitForURL(`${base}/settings/github**`);
    await member.getByText('@ada-gh').first().waitFor();
    await photograph(member, `${SHOTS}/dispatch-member-authorized-390.png`, { fullPage: true });

    // The admin designates the member; the list holds only members who authorized.
    await admin.reload();
    const identity = admin.locator('select[name="member_id"]');
    const options = await identity.locator('option').allTextContents();
    expect(options.some((o) => o.includes(ada.user.name))).toBe(true);
    expect(options.some((o) => o.includes(owner.user.name))).toBe(true);
    await identity.selectOption(ada.id);
    await admin.getByRole('button', { name: 'Save' }).click();
    await admin.waitForURL(`${base}/settings/github**`);
    await photograph(admin, `${SHOTS}/dispatch-github-settings-1280.png`, { fullPage: true });

    // An API client (the typed client generated from the description): repos, a ticket, a
    // dispatch, then polling to the PR.
    const api = createFerryClient(ferry.url, token);
    const ticketView = async (feedbackId: string) => {
      const { data } = await api.GET('/api/v1/feedback/{id}', {
        params: { path: { id: feedbackId } },
      });
      if (!data) throw new Error(`GET /api/v1/feedback/${feedbackId} answered no ticket`);
      return data;
    };
    const { data: repoList } = await api.GET('/api/v1/repos');
    const repos = repoList!.repos;
    const shop = repos.find((r) => r.full_name === 'owner-gh/shop')!;
    expect(shop.dispatch_ready).toBe(true);
    expect(repos.find((r) => r.full_name === 'owner-gh/blog')!.dispatch_ready).toBe(false);
    const { data: filed } = await api.POST('/api/v1/feedback', {
      body: {
        note: 'The Pay button does nothing on Safari.',
        page: {
          url: 'https://shop.example/checkout',
          path: '/checkout',
          partials: ['checkout/_form'],
        },
        element: {
          selector: 'button#pay',
          tag: 'button',
          text: 'Pay',
          outer_html: '<button id="pay">Pay</button>',
        },
      },
    });
    const started = await api.POST('/api/v1/feedback/{feedbackId}/dispatch', {
      params: { path: { feedbackId: filed!.id } },
      body: { repo: shop.id },
    });
    expect(started.response.status).toBe(202);
    const seen: string[] = [];
    let ticket: Awaited<ReturnType<typeof ticketView>> | undefined;
    await waitUntil(
      async () => {
        ticket = await ticketView(filed!.id);
        const status = ticket.dispatches[0]?.status;
        if (status && seen.at(-1) !== status) seen.push(status);
        return status === 'pr_opened';
      },
      'the dispatch to reach pr_opened',
      20_000,
    );
    expect(seen[0]).toBe('queued');
    expect(seen).toContain('pr_opened');
    expect(ticket!.dispatches[0]!.pr_url).toMatch(/\/owner-gh\/shop\/pull\/\d+$/);
    expect(ticket!.dispatches[0]!.issue_url).toMatch(/\/owner-gh\/shop\/issues\/\d+$/);
    expect(ticket!.status).toBe('triaged');
    // The task ran as the identity: the member's token, not the admin's.
    const taskCall = fake.requestsTo('POST', '/agents/repos/owner-gh/shop/tasks').at(-1)!;
    const adaTokens = fake.requests.filter(
      (r) => r.path === '/user' && r.headers.authorization === taskCall.headers.authorization,
    );
    expect(adaTokens.length).toBeGreaterThan(0);
    // GitHub's task names its PR only by GraphQL global id: the link came from node(id:).
    const prUrl = ticket!.dispatches[0]!.pr_url!;
    expect(
      fake.requestsTo('POST', '/graphql').some((r) => JSON.stringify(r.body).includes('node(id:')),
    ).toBe(true);

    // The task goes on to completed.
    await waitUntil(
      async () => {
        ticket = await ticketView(filed!.id);
        return ticket.dispatches[0]?.status === 'completed';
      },
      'the dispatch to complete',
      20_000,
    );

    // The conversation shows GitHub's messages, and the ticket links the pull request.
    await admin.goto(`${base}/feedback/${filed!.id}`);
    await admin
      .getByText(/opened a pull request/)
      .first()
      .waitFor();
    await admin
      .getByText(/started GitHub’s coding agent/)
      .first()
      .waitFor();
    await admin
      .getByText(/completed the task/)
      .first()
      .waitFor();
    const prLink = admin.locator(`.dispatch-links a[href="${prUrl}"]`);
    await prLink.waitFor();
    expect(await prLink.textContent()).toMatch(/^Pull request #\d+/);
    await photograph(admin, `${SHOTS}/dispatch-ticket-1280.png`, { fullPage: true });

    // No identity: the ticket page's button runs as the person clicking (Ada authorized).
    await admin.goto(`${base}/settings/github`);
    await admin.locator('select[name="member_id"]').selectOption('');
    await admin.getByRole('button', { name: 'Save' }).click();
    await admin.waitForURL(`${base}/settings/github**`);
    const { data: second } = await api.POST('/api/v1/feedback', {
      body: { note: 'Search is slow' },
    });
    const refused = await api.POST('/api/v1/feedback/{feedbackId}/dispatch', {
      params: { path: { feedbackId: second!.id } },
      body: { repo: shop.id },
    });
    expect(refused.response.status).toBe(422);
    expect(refused.error?.error.code).toBe('no_dispatch_identity');
    // This task fails: GitHub gives its reason on the session (sessions[].error.message).
    const reason = 'The checkout tests failed on Safari.';
    fake.scriptTasks(['in_progress', { state: 'failed', error: reason }]);
    await member.goto(`${base}/feedback/${second!.id}`);
    await member.getByLabel(/Repository/).selectOption(shop.id);
    await member.getByRole('button', { name: 'Dispatch' }).click();
    await member
      .getByText(/Dispatched to owner-gh\/shop/)
      .first()
      .waitFor();
    await photograph(member, `${SHOTS}/dispatch-ticket-clicked-390.png`, { fullPage: true });
    const row = await db
      .selectFrom('dispatches')
      .select(['run_as_member_id', 'started_via', 'started_by_member_id'])
      .where('feedback_id', '=', second!.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      run_as_member_id: ada.id,
      started_via: 'member',
      started_by_member_id: ada.id,
    });
    await waitUntil(
      async () => {
        const view = await ticketView(second!.id);
        return view.dispatches[0]?.status === 'failed';
      },
      'the second dispatch to fail',
      20_000,
    );
    await member.reload();
    await member
      .locator('.dispatch-error')
      .getByText(`GitHub’s coding agent failed: ${reason}`)
      .waitFor();
    await photograph(member, `${SHOTS}/dispatch-ticket-failed-390.png`, { fullPage: true });

    // Every request Ferry sent was one GitHub's description takes; every answer, one it allows.
    fake.assertConformance();
  });
});
