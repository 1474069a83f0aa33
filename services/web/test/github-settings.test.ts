import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Workspace } from '@ferry/db';
import {
  createFeedback,
  createMember,
  createWorkspace,
  FormClient,
  startApp,
  type RunningApp,
} from '@ferry/testing';
import { FakeGitHub } from '@ferry/testing/fake-github';
import { createWebApp } from '../src/app.js';
import { loadWebSettings } from '../src/config.js';
import { webDeps, type WebResources } from '../src/deps.js';
import { startWeb, type WebHarness } from './harness.js';

type Answer = { status: number; text: string; location: string | null };

/**
 * Settings > GitHub and the ticket page's "Dispatch to GitHub", against the fake GitHub over real
 * HTTP: every redirect of the install and OAuth trips is followed by hand, so each state check
 * and each refusal is seen as a browser would see it.
 */
describe('GitHub settings and ticket dispatch', () => {
  let fake: FakeGitHub;
  let web: WebHarness;
  /** Every page body fetched from Ferry, checked at the end for leaked GitHub tokens. */
  const pages: string[] = [];

  beforeAll(async () => {
    fake = await new FakeGitHub().start();
    web = await startWeb(fake.env(), { ownPublicUrl: true });
    fake.setupUrl = `${web.url}/github/setup`;
    fake.callbackUrl = `${web.url}/github/callback`;
  });
  afterAll(async () => {
    await web?.close();
    await fake?.close();
  });

  const record = (answer: Answer): Answer => {
    pages.push(answer.text);
    return answer;
  };

  async function person(workspace: Workspace, role: 'owner' | 'admin' | 'member') {
    const seat = await createMember(web.ctx.db, workspace, { role });
    const client = new FormClient(web.url);
    await client.signIn(seat.user.email, seat.user.password);
    return { seat, client };
  }

  async function newWorkspace() {
    const workspace = await createWorkspace(web.ctx.db, { name: 'Acme Shop' });
    const base = `/w/${workspace.id}/${workspace.slug}`;
    return { workspace, base, settings: `${base}/settings/github` };
  }

  /**
   * Follows redirects between Ferry (with the client's cookies) and the fake GitHub (no cookies
   * needed) until an answer is not a redirect, or is a redirect to a Ferry page outside /github/.
   */
  async function follow(client: FormClient, first: Answer): Promise<Answer & { via: string[] }> {
    let answer = first;
    const via: string[] = [];
    for (let hop = 0; hop < 10; hop++) {
      const location = answer.location;
      if (answer.status < 300 || answer.status > 399 || !location) break;
      via.push(location);
      if (location.startsWith(fake.webUrl)) {
        const res = await fetch(location, { redirect: 'manual' });
        answer = {
          status: res.status,
          text: await res.text(),
          location: res.headers.get('location'),
        };
        continue;
      }
      const path = location.startsWith(web.url) ? location.slice(web.url.length) : location;
      if (!path.startsWith('/github/')) break;
      answer = record(await client.get(path));
    }
    return { ...answer, via };
  }

  /** Admin presses Connect GitHub: the install URL with our state. */
  async function pressConnect(client: FormClient, settings: string): Promise<Answer> {
    const answer = await client.post(`${settings}/connect`, {}, { csrfFrom: settings });
    expect(answer.status).toBe(303);
    expect(answer.location).toMatch(
      new RegExp(`^${fake.webUrl}/apps/${fake.slug}/installations/new\\?state=[\\w-]{20,}$`),
    );
    return answer;
  }

  async function connect(client: FormClient, settings: string, login: string) {
    fake.actAs(login);
    const done = await follow(client, await pressConnect(client, settings));
    expect(done.status).toBe(303);
    expect(done.location).toBe(settings);
    return done;
  }

  async function authorize(client: FormClient, settings: string, login: string) {
    fake.actAs(login);
    const start = await client.post(`${settings}/authorize`, {}, { csrfFrom: settings });
    expect(start.status).toBe(303);
    const url = new URL(start.location ?? '');
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.webUrl}/login/oauth/authorize`);
    expect(url.searchParams.get('client_id')).toBe(fake.clientId);
    expect(url.searchParams.get('redirect_uri')).toBe(`${web.url}/github/callback`);
    const done = await follow(client, start);
    expect(done.status).toBe(303);
    expect(done.location).toBe(settings);
    return done;
  }

  it('names the missing variables and the App URLs when GitHub is not configured', async () => {
    // The same database, served by an app whose environment has no GITHUB_* at all.
    const env = Object.fromEntries(
      Object.entries(web.ctx.env).filter(([name]) => !name.startsWith('GITHUB_')),
    );
    const bare: WebResources = webDeps(web.ctx, loadWebSettings(env));
    const bareWeb = createWebApp(bare);
    const app: RunningApp = await startApp(bareWeb.app, (server) =>
      bareWeb.realtime.attach(server),
    );
    try {
      expect(bare.github).toBeNull();
      const { workspace, base, settings } = await newWorkspace();
      const seat = await createMember(web.ctx.db, workspace, { role: 'admin' });
      const client = new FormClient(app.url);
      await client.signIn(seat.user.email, seat.user.password);
      const page = record(await client.get(settings));
      expect(page.status).toBe(200);
      expect(page.text).toContain('Set up the GitHub App');
      for (const name of [
        'GITHUB_APP_ID',
        'GITHUB_APP_PRIVATE_KEY',
        'GITHUB_APP_SLUG',
        'GITHUB_CLIENT_ID',
        'GITHUB_CLIENT_SECRET',
      ]) {
        expect(page.text).toContain(`<code>${name}</code>`);
      }
      expect(page.text).toContain(`${web.ctx.config.PUBLIC_URL}/github/setup`);
      expect(page.text).toContain(`${web.ctx.config.PUBLIC_URL}/github/callback`);
      for (const permission of [
        'Metadata',
        'Issues',
        'Pull requests',
        'Agent tasks',
        'Actions',
        'Contents',
      ]) {
        expect(page.text).toContain(`<th scope="row">${permission}</th>`);
      }
      expect(page.text).toContain(`href="${settings}"`); // the nav entry
      expect(page.text).not.toContain('Connect GitHub</button>');
      // Nothing else breaks: the ticket page says where to set it up; Connect is a clear 404.
      const ticket = await createFeedback(web.ctx.db, workspace);
      const ticketPage = record(await client.get(`${base}/feedback/${ticket.id}`));
      expect(ticketPage.status).toBe(200);
      expect(ticketPage.text).toContain('GitHub is not set up on this server yet');
      const connect = await client.post(`${settings}/connect`, {}, { csrfFrom: settings });
      expect(connect.status).toBe(404);
      expect(connect.text).toContain('GitHub is not configured on this server');
      expect((await client.get(base)).status).toBe(200);
    } finally {
      await bareWeb.realtime.close();
      await app.close();
      await bare.close();
    }
  });

  it('connects the App end to end: install, authorize, installation proven, repositories read', async () => {
    const { workspace, settings } = await newWorkspace();
    const { seat, client } = await person(workspace, 'admin');
    const before = record(await client.get(settings));
    expect(before.text).toContain('Connect GitHub</button>');
    expect(before.text).toContain('Connect GitHub to list the repositories');

    fake.nextInstallRepos = [
      { name: 'storefront', defaultBranch: 'main' },
      { name: 'api', defaultBranch: 'develop' },
    ];
    const done = await connect(client, settings, 'acme-admin');
    // Install page -> Setup URL -> authorize -> Callback URL -> the settings page.
    expect(done.via.map((url) => new URL(url, web.url).pathname)).toEqual([
      `/apps/${fake.slug}/installations/new`,
      '/github/setup',
      '/login/oauth/authorize',
      '/github/callback',
      settings,
    ]);
    expect(fake.requestsTo('GET', '/user/installations')).toHaveLength(1);

    const installation = await web.ctx.db
      .selectFrom('github_installations')
      .selectAll()
      .where('workspace_id', '=', workspace.id)
      .executeTakeFirstOrThrow();
    expect(installation).toMatchObject({ account_login: 'acme-admin', connected_by: seat.id });
    const authorization = await web.ctx.db
      .selectFrom('github_authorizations')
      .selectAll()
      .where('member_id', '=', seat.id)
      .executeTakeFirstOrThrow();
    expect(authorization.github_login).toBe('acme-admin');

    const page = record(await client.get(settings));
    expect(page.text).toContain('Connected to acme-admin as @acme-admin: 2 repositories found.');
    expect(page.text).toContain('Connected to <strong>acme-admin</strong>');
    expect(page.text).toContain('acme-admin/<wbr />storefront</span>');
    expect(page.text).toContain('acme-admin/<wbr />api</span>');
    expect(page.text).toContain('<code>develop</code>');
    expect(page.text).toContain('Refresh repositories');
    expect(page.text).toContain('Reconnect');
    // Connecting authorized the admin too.
    expect(page.text).toContain('Authorized as <strong>@acme-admin</strong>');

    // The callback's state was single use: replaying the last GitHub redirect is refused.
    const replay = record(await client.get(done.via[3]!.slice(web.url.length)));
    expect(replay.status).toBe(400);
    expect(replay.text).toContain('This GitHub link has expired');

    // Refresh re-reads the installation's repositories.
    const refreshed = await client.post(`${settings}/refresh`, {}, { csrfFrom: settings });
    expect(refreshed.status).toBe(303);
    expect(record(await client.get(settings)).text).toContain(
      'Repositories refreshed: the installation reaches 2 repositories.',
    );
  });

  it('refuses a wrong, foreign or expired state, and an installation the admin does not hold', async () => {
    const { workspace, settings } = await newWorkspace();
    const { client } = await person(workspace, 'admin');
    await client.get(settings);

    const bogus = record(
      await client.get('/github/setup?installation_id=1&setup_action=install&state=not-ours'),
    );
    expect(bogus.status).toBe(400);
    expect(bogus.text).toContain('This GitHub link has expired');
    expect(bogus.text).toContain('Start again');
    const noState = record(await client.get('/github/callback?code=abc'));
    expect(noState.status).toBe(400);

    // A state from another session (another admin's browser) is not this session's.
    const other = await person(workspace, 'admin');
    const theirs = await pressConnect(other.client, settings);
    const state = new URL(theirs.location ?? '').searchParams.get('state') ?? '';
    const stolen = record(
      await client.get(`/github/setup?installation_id=1&setup_action=install&state=${state}`),
    );
    expect(stolen.status).toBe(400);

    // A forged installation id: someone else's installation, which the admin's token does not list.
    const foreign = fake.addInstallation({
      account: 'someone-else',
      repos: [{ name: 'secret-sauce' }],
    });
    fake.actAs('acme-admin-2');
    const start = await pressConnect(client, settings);
    const ours = new URL(start.location ?? '').searchParams.get('state') ?? '';
    const forged = record(
      await client.get(
        `/github/setup?installation_id=${foreign.id}&setup_action=install&state=${ours}`,
      ),
    );
    expect(forged.status).toBe(302);
    const refused = await follow(client, forged);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('That installation is not yours');
    expect(refused.text).toContain(`installation ${foreign.id}`);
    expect(refused.text).not.toContain('secret-sauce');
    const recorded = await web.ctx.db
      .selectFrom('github_installations')
      .select('id')
      .where('workspace_id', '=', workspace.id)
      .execute();
    expect(recorded).toHaveLength(0);

    // Declining on GitHub comes back as a notice, not an error page.
    const auth = await client.post(`${settings}/authorize`, {}, { csrfFrom: settings });
    const authState = new URL(auth.location ?? '').searchParams.get('state') ?? '';
    const denied = await client.get(
      `/github/callback?error=access_denied&error_description=denied&state=${authState}`,
    );
    expect(denied.status).toBe(303);
    expect(record(await client.get(settings)).text).toContain(
      'GitHub authorization was cancelled, so nothing changed.',
    );

    // GitHub failing the code exchange is a clear page, never a 500.
    fake.failNext({ method: 'POST', path: '/login/oauth/access_token', status: 502 });
    const again = await client.post(`${settings}/authorize`, {}, { csrfFrom: settings });
    const failed = await follow(client, again);
    expect(failed.status).toBe(502);
    expect(failed.text).toContain('GitHub could not finish the authorization');
    expect(failed.text).toContain('Back to GitHub settings');
  });

  it('links and enables repositories, marks the ready and the unreachable ones', async () => {
    const { workspace, settings } = await newWorkspace();
    const { client } = await person(workspace, 'owner');
    const member = await person(workspace, 'member');
    fake.nextInstallRepos = [{ name: 'web' }, { name: 'ios' }];
    await connect(client, settings, 'switch-owner');
    const repos = await web.ctx.db
      .selectFrom('github_repos')
      .selectAll()
      .where('workspace_id', '=', workspace.id)
      .orderBy('full_name')
      .execute();
    expect(repos.map((r) => [r.full_name, r.linked, r.enabled])).toEqual([
      ['switch-owner/ios', false, false],
      ['switch-owner/web', false, false],
    ]);
    const [ios, webRepo] = repos;
    const page = record(await client.get(settings));
    expect(page.text).toContain(`aria-label="Linked: switch-owner/web"`);
    expect(page.text).toContain(`aria-label="Enabled: switch-owner/web"`);
    expect(page.text).not.toContain('ready-badge');

    const link = await client.post(
      `${settings}/repos/${webRepo!.id}`,
      { linked: 'true' },
      { csrfFrom: settings },
    );
    expect(link.status).toBe(303);
    expect(record(await client.get(settings)).text).toContain(
      'switch-owner/web is linked; enable it to dispatch to it.',
    );
    await client.post(
      `${settings}/repos/${webRepo!.id}`,
      { enabled: 'true' },
      { csrfFrom: settings },
    );
    // Enabling alone links too.
    await client.post(`${settings}/repos/${ios!.id}`, { enabled: 'true' }, { csrfFrom: settings });
    const after = record(await client.get(settings));
    expect(after.text).toContain('switch-owner/ios is ready for dispatch.');
    expect(after.text.match(/ready-badge/g)).toHaveLength(2);
    await client.post(`${settings}/repos/${ios!.id}`, { linked: 'false' }, { csrfFrom: settings });
    const iosRow = await web.ctx.db
      .selectFrom('github_repos')
      .select(['linked', 'enabled'])
      .where('id', '=', ios!.id)
      .executeTakeFirstOrThrow();
    expect(iosRow).toEqual({ linked: false, enabled: false });

    // A repository the installation no longer lists stays, marked and not ready.
    await web.ctx.db
      .updateTable('github_repos')
      .set({ reachable: false })
      .where('id', '=', webRepo!.id)
      .execute();
    const unreachable = record(await client.get(settings));
    expect(unreachable.text).toContain('not reachable</span');
    expect(unreachable.text).not.toContain('ready-badge');

    // Members see the table read-only, and every admin POST answers 403.
    const memberPage = record(await member.client.get(settings));
    expect(memberPage.status).toBe(200);
    expect(memberPage.text.replaceAll('<wbr />', '')).toContain('>switch-owner/web</span>');
    expect(memberPage.text).not.toContain('role="switch"');
    expect(memberPage.text).not.toContain('Refresh repositories');
    expect(memberPage.text).not.toContain('Connect GitHub</button>');
    expect(memberPage.text).not.toContain('name="member_id"');
    for (const [path, form] of [
      ['connect', {}],
      ['refresh', {}],
      [`repos/${webRepo!.id}`, { enabled: 'true' }],
      ['identity', { member_id: '' }],
    ] as const) {
      const answer = await member.client.post(`${settings}/${path}`, form, { csrfFrom: settings });
      expect([path, answer.status]).toEqual([path, 403]);
    }
    // The nav shows GitHub to members too.
    expect(memberPage.text).toMatch(/aria-current="page"\s*>GitHub<\/a/);
  });

  it('lets a member authorize, and the identity lists only authorized members', async () => {
    const { workspace, settings } = await newWorkspace();
    const admin = await person(workspace, 'admin');
    const member = await person(workspace, 'member');
    const bystander = await person(workspace, 'member');
    fake.nextInstallRepos = [{ name: 'shop' }];
    await connect(admin.client, settings, 'ident-admin');

    const before = record(await member.client.get(settings));
    expect(before.text).toContain('Authorize GitHub</button>');
    await authorize(member.client, settings, 'ident-member');
    const after = record(await member.client.get(settings));
    expect(after.text).toContain('Authorized as @ident-member.');
    expect(after.text).toContain('Authorized as <strong>@ident-member</strong>');
    expect(after.text).toContain('Disconnect</button>');

    const adminPage = record(await admin.client.get(settings));
    const select =
      /<select[^>]*name="member_id"[^>]*>([\s\S]*?)<\/select>/.exec(adminPage.text)?.[1] ?? '';
    const options = [...select.matchAll(/<option\s+value="([^"]*)"/g)].map((m) => m[1]);
    expect(options.sort()).toEqual(['', admin.seat.id, member.seat.id].sort());
    expect(select).toContain(
      'None — dispatches from the ticket page run as the person clicking; API dispatches are refused',
    );
    expect(select).toContain('(@ident-member)');
    expect(options).not.toContain(bystander.seat.id);

    const refusedPost = await admin.client.post(
      `${settings}/identity`,
      { member_id: bystander.seat.id },
      { csrfFrom: settings },
    );
    // Back to the page (303, #42), which says why.
    expect(refusedPost.status).toBe(303);
    const refused = record(await admin.client.follow(refusedPost));
    expect(refused.text).toContain('Choose a member who has authorized GitHub.');
    const saved = await admin.client.post(
      `${settings}/identity`,
      { member_id: member.seat.id },
      { csrfFrom: settings },
    );
    expect(saved.status).toBe(303);
    const row = await web.ctx.db
      .selectFrom('workspaces')
      .select('dispatch_member_id')
      .where('id', '=', workspace.id)
      .executeTakeFirstOrThrow();
    expect(row.dispatch_member_id).toBe(member.seat.id);
    const shown = record(await admin.client.get(settings));
    expect(shown.text).toContain('Dispatches now run as');
    expect(shown.text).toMatch(new RegExp(`<option\\s+value="${member.seat.id}"\\s+selected`));

    // Disconnecting removes the authorization: the member drops out of the choices.
    const gone = await member.client.post(`${settings}/disconnect`, {}, { csrfFrom: settings });
    expect(gone.status).toBe(303);
    expect(record(await member.client.get(settings)).text).toContain(
      'You were the dispatch identity',
    );
    const reloaded = record(await admin.client.get(settings));
    expect(reloaded.text).not.toContain(`value="${member.seat.id}"`);
    expect(reloaded.text).toContain('Now: <strong>None</strong>');
  });

  it('dispatches from the ticket page as the clicker, refusing a clicker who has not authorized', async () => {
    const { workspace, base, settings } = await newWorkspace();
    const admin = await person(workspace, 'admin');
    const clicker = await person(workspace, 'member');
    const stranger = await person(workspace, 'member');
    fake.nextInstallRepos = [{ name: 'checkout' }, { name: 'docs' }];
    await connect(admin.client, settings, 'disp-admin');
    const ticket = await createFeedback(web.ctx.db, workspace, { title: 'Pay button dead' });
    const ticketPath = `${base}/feedback/${ticket.id}`;

    // Nothing ready yet: the panel says so and points to the settings page.
    const empty = record(await clicker.client.get(ticketPath));
    expect(empty.text).toContain('Dispatch to GitHub');
    expect(empty.text).toContain('No repository is ready for dispatch yet');
    expect(empty.text).toContain(`href="${settings}"`);

    const repos = await web.ctx.db
      .selectFrom('github_repos')
      .selectAll()
      .where('workspace_id', '=', workspace.id)
      .orderBy('full_name')
      .execute();
    const checkout = repos.find((r) => r.full_name === 'disp-admin/checkout')!;
    const docs = repos.find((r) => r.full_name === 'disp-admin/docs')!;
    await admin.client.post(
      `${settings}/repos/${checkout.id}`,
      { enabled: 'true' },
      { csrfFrom: settings },
    );

    const panel = record(await stranger.client.get(ticketPath));
    expect(panel.text).toContain(`value="${checkout.id}"`);
    expect(panel.text).not.toContain(`value="${docs.id}"`);
    expect(panel.text).toContain('authorize GitHub</a> first');

    // No identity and the clicker never authorized: refused, visibly, on the ticket page.
    const refusedPost = await stranger.client.post(
      `${ticketPath}/dispatch`,
      { repo: checkout.id },
      { csrfFrom: ticketPath },
    );
    // Back to the page (303, #42), which says why.
    expect(refusedPost.status).toBe(303);
    const refused = record(await stranger.client.follow(refusedPost));
    expect(refused.text).toContain('role="alert"');
    expect(refused.text).toContain(
      'No dispatch identity is set, so this dispatch would run as you',
    );
    expect(refused.text).toContain('Pay button dead');

    // A repository that is not ready is refused the same way.
    const notReadyPost = await stranger.client.post(
      `${ticketPath}/dispatch`,
      { repo: docs.id },
      { csrfFrom: ticketPath },
    );
    // Back to the page (303, #42), which says why.
    expect(notReadyPost.status).toBe(303);
    const notReady = record(await stranger.client.follow(notReadyPost));
    expect(notReady.text).toContain('disp-admin/docs is not ready for dispatch');

    // The clicker authorized: it runs as them.
    await authorize(clicker.client, settings, 'disp-clicker');
    const ok = await clicker.client.post(
      `${ticketPath}/dispatch`,
      { repo: checkout.id },
      { csrfFrom: ticketPath },
    );
    expect(ok.status).toBe(303);
    expect(ok.location).toBe(ticketPath);
    const rows = await web.ctx.db
      .selectFrom('dispatches')
      .selectAll()
      .where('feedback_id', '=', ticket.id)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      repo_id: checkout.id,
      started_via: 'member',
      started_by_member_id: clicker.seat.id,
      run_as_member_id: clicker.seat.id,
      status: 'queued',
    });
    const shown = record(await clicker.client.get(ticketPath));
    expect(shown.text).toContain('Dispatched to disp-admin/checkout.');
    expect(shown.text).toContain('data-status="queued">Queued</span>');

    // A second one while the first is in flight: refused, visibly, back on the ticket (303, #42).
    const twicePost = await clicker.client.post(
      `${ticketPath}/dispatch`,
      { repo: checkout.id },
      { csrfFrom: ticketPath },
    );
    expect(twicePost.status).toBe(303);
    const twice = record(await clicker.client.follow(twicePost));
    expect(twice.text).toContain('is already running');

    // Progress as the dispatch service records it: human labels, links to GitHub in a new tab.
    await web.ctx.db
      .updateTable('dispatches')
      .set({
        status: 'pr_opened',
        issue_url: 'https://github.com/disp-admin/checkout/issues/12',
        pr_url: 'https://github.com/disp-admin/checkout/pull/13',
      })
      .where('id', '=', rows[0]!.id)
      .execute();
    const progressed = record(await clicker.client.get(ticketPath));
    expect(progressed.text).toContain('data-status="pr_opened">PR opened</span>');
    expect(progressed.text).toMatch(
      /<a class="" href="https:\/\/github.com\/disp-admin\/checkout\/issues\/12" target="_blank" rel="noopener noreferrer"\s*>Issue #12/,
    );
    expect(progressed.text).toMatch(/rel="noopener noreferrer"\s*>Pull request #13/);
    await web.ctx.db
      .updateTable('dispatches')
      .set({ status: 'failed', error: 'The coding agent is not enabled for this repository.' })
      .where('id', '=', rows[0]!.id)
      .execute();
    const failed = record(await clicker.client.get(ticketPath));
    expect(failed.text).toContain('data-status="failed">Failed</span>');
    expect(failed.text).toContain('The coding agent is not enabled for this repository.');
  });

  it('never puts a GitHub token in a page', async () => {
    const sealed = await web.ctx.db
      .selectFrom('github_authorizations')
      .select(['access_token_sealed', 'refresh_token_sealed'])
      .execute();
    expect(sealed.length).toBeGreaterThan(3);
    const secrets = sealed.flatMap((row) => [
      web.deps.box.decrypt(row.access_token_sealed),
      ...(row.refresh_token_sealed ? [web.deps.box.decrypt(row.refresh_token_sealed)] : []),
    ]);
    for (const request of fake.requests) {
      const bearer = /^bearer (gh[a-z]_\w+)$/i.exec(request.headers.authorization ?? '')?.[1];
      if (bearer) secrets.push(bearer);
    }
    expect(secrets.length).toBeGreaterThan(6);
    expect(pages.length).toBeGreaterThan(20);
    for (const text of pages) {
      for (const secret of secrets) expect(text.includes(secret)).toBe(false);
      expect(text).not.toMatch(/gh[usr]_[0-9a-f]{16,}/);
      expect(text).not.toContain(fake.clientSecret);
    }
  });
});
