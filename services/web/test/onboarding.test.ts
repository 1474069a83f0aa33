import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '@ferry/db';
import {
  createApiToken,
  createErrorGroup,
  createMember,
  createMessage,
  createUser,
  waitUntil,
} from '@ferry/testing';
import {
  createIncomingKey,
  createWorkspace,
  onboardingProgress,
  registerAgent,
} from '@ferry/workspace';
import {
  createLiveOnboarding,
  type OnboardingStateEvent,
  type WatchingDashboard,
} from '../src/features/dashboard/live.js';
import { FormClient, startWeb, type WebHarness } from './harness.js';

/**
 * Issue 42, the Dashboard's "Get started" checklist: which steps each role is shown, that each is
 * done from the data (whoever did it), and who may hide it (for the whole workspace, and it stays
 * hidden). The live ticking is services/all/test/onboarding.browser.test.ts.
 */
describe('the Dashboard checklist', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWeb();
  });
  afterAll(async () => {
    await web.close();
  });

  /** A workspace as sign-up makes it: its owner, and #general with the owner in it. */
  async function newWorkspace() {
    const owner = await createUser(web.ctx.db);
    const made = await createWorkspace(web.ctx.db, owner, 'Acme Shop');
    const client = new FormClient(web.url);
    await client.signIn(owner.email, owner.password);
    const base = `/w/${made.workspace.id}/${made.workspace.slug}`;
    return { ...made, client, base };
  }

  async function seatedClient(workspace: { id: string }, role: Role) {
    const seat = await createMember(web.ctx.db, workspace, { role });
    const client = new FormClient(web.url);
    await client.signIn(seat.user.email, seat.user.password);
    return { seat, client };
  }

  /** Each step on the page, and whether it shows done; undefined when there is no checklist. */
  function stepsOn(page: string): Record<string, boolean> | undefined {
    if (!page.includes('class="card onboarding"')) return undefined;
    const steps: Record<string, boolean> = {};
    for (const match of page.matchAll(/data-step="(\w+)" data-done="(true|false)"/g)) {
      steps[match[1]!] = match[2] === 'true';
    }
    return steps;
  }

  it('shows a new workspace its five steps, each done from the data, whoever did it', async () => {
    const { workspace, owner, generalRoomId, client, base } = await newWorkspace();
    const dashboard = await client.get(base);
    expect(dashboard.status).toBe(200);
    expect(stepsOn(dashboard.text)).toEqual({
      post: false,
      invite: false,
      error: false,
      webhook: false,
      agent: false,
    });
    // Each step links to where it is done, and the first error's DSN and curl are right there.
    for (const href of [
      `${base}/rooms/${generalRoomId}`,
      `${base}/members#invites`,
      `${base}/settings/errors`,
      `${base}/rooms/${generalRoomId}/settings/webhooks`,
      `${base}/agents`,
    ]) {
      expect(dashboard.text).toContain(`href="${href}"`);
    }
    expect(dashboard.text).toContain('data-testid="sentry-dsn"');
    expect(dashboard.text).toContain('data-testid="ingest-curl"');
    expect(dashboard.text).toContain(workspace.public_key);

    const room = { id: generalRoomId, workspace_id: workspace.id };
    // A webhook's or the system's message is not a person posting.
    await createMessage(web.ctx.db, room, { author_kind: 'webhook' });
    await createMessage(web.ctx.db, room, { author_kind: 'system' });
    expect((await onboardingProgress(web.ctx.db, workspace.id)).done.post).toBe(false);
    await createMessage(web.ctx.db, room, {
      author_kind: 'member',
      author_member_id: owner.id,
    });
    await createErrorGroup(web.ctx.db, workspace);
    expect(stepsOn((await client.get(base)).text)).toEqual({
      post: true,
      invite: false,
      error: true,
      webhook: false,
      agent: false,
    });

    const { seat: admin } = await seatedClient(workspace, 'admin');
    expect(stepsOn((await client.get(base)).text)).toMatchObject({ invite: true });
    await createIncomingKey(web.ctx.db, web.deps.box, {
      workspaceId: workspace.id,
      roomId: generalRoomId,
      name: 'CI',
      createdBy: admin.id,
    });
    const token = await createApiToken(web.ctx.db, workspace, { scopes: ['platform:dispatch'] });
    await registerAgent(web.ctx.db, {
      workspaceId: workspace.id,
      installId: 'install-onboarding-1',
      tokenId: token.id,
    });
    expect(await onboardingProgress(web.ctx.db, workspace.id)).toEqual({
      done: { post: true, invite: true, error: true, webhook: true, agent: true },
      dismissed: false,
    });
    // Nothing left to guide anyone to: the checklist is gone.
    expect(stepsOn((await client.get(base)).text)).toBeUndefined();
  });

  it('invites by email count too: a second seat is someone invited', async () => {
    const { workspace } = await newWorkspace();
    expect((await onboardingProgress(web.ctx.db, workspace.id)).done.invite).toBe(false);
    await createMember(web.ctx.db, workspace, { role: 'member' });
    expect((await onboardingProgress(web.ctx.db, workspace.id)).done.invite).toBe(true);
  });

  it('shows each role only the steps it can take, and hides when those are done', async () => {
    const { workspace, generalRoomId, base } = await newWorkspace();
    const member = await seatedClient(workspace, 'member');
    const guest = await seatedClient(workspace, 'guest');
    const admin = await seatedClient(workspace, 'admin');
    expect(Object.keys(stepsOn((await admin.client.get(base)).text) ?? {})).toEqual([
      'post',
      'invite',
      'error',
      'webhook',
      'agent',
    ]);
    const memberPage = (await member.client.get(base)).text;
    expect(Object.keys(stepsOn(memberPage) ?? {})).toEqual(['post', 'error']);
    // Only owners and admins may hide it.
    expect(memberPage).not.toContain('/onboarding/dismiss');
    expect(Object.keys(stepsOn((await guest.client.get(base)).text) ?? {})).toEqual(['post']);

    // Someone posted: the guest has nothing left to do; the others still see their steps.
    await createMessage(
      web.ctx.db,
      { id: generalRoomId, workspace_id: workspace.id },
      { author_kind: 'member', author_member_id: member.seat.id },
    );
    expect(stepsOn((await guest.client.get(base)).text)).toBeUndefined();
    expect(stepsOn((await member.client.get(base)).text)).toEqual({ post: true, error: false });
  });

  it('is hidden by an owner or admin for everyone, stays hidden, and nobody else may', async () => {
    const { workspace, client: owner, base } = await newWorkspace();
    const member = await seatedClient(workspace, 'member');
    const guest = await seatedClient(workspace, 'guest');
    const admin = await seatedClient(workspace, 'admin');
    const dismiss = `${base}/onboarding/dismiss`;

    for (const refused of [member.client, guest.client]) {
      const res = await refused.post(dismiss, {}, { csrfFrom: base });
      expect(res.status).toBe(403);
    }
    // A form post without its CSRF token is refused, whoever sends it.
    expect((await owner.post(dismiss, { _csrf: '' })).status).toBe(403);
    expect((await onboardingProgress(web.ctx.db, workspace.id)).dismissed).toBe(false);
    expect(stepsOn((await member.client.get(base)).text)).toBeDefined();

    // Post/Redirect/Get: the admin lands on the Dashboard, told, without the checklist.
    const hidden = await admin.client.post(dismiss, {}, { csrfFrom: base });
    expect(hidden.status).toBe(303);
    expect(hidden.location).toBe(base);
    const after = await admin.client.get(base);
    expect(after.text).toContain('The checklist is hidden for everyone in the workspace.');
    expect(stepsOn(after.text)).toBeUndefined();
    // For everyone, and on every later load.
    for (const client of [owner, member.client, guest.client, admin.client]) {
      expect(stepsOn((await client.get(base)).text)).toBeUndefined();
    }
    // Hiding it again is harmless.
    expect((await owner.post(dismiss, {}, { csrfFrom: base })).status).toBe(303);
    const row = await web.ctx.db
      .selectFrom('onboarding_dismissals')
      .selectAll()
      .where('workspace_id', '=', workspace.id)
      .executeTakeFirstOrThrow();
    expect(row.dismissed_by).toBe(admin.seat.id);
  });

  it('tells each open Dashboard only its role’s steps, and evicts a seat that is gone', async () => {
    const { workspace, owner } = await newWorkspace();
    const guest = await createMember(web.ctx.db, workspace, { role: 'guest' });
    const gone = await createMember(web.ctx.db, workspace, { role: 'admin', left: true });
    const told = new Map<string, OnboardingStateEvent>();
    const evicted = new Set<string>();
    const watcher = (userId: string): WatchingDashboard => ({
      userId,
      emit: (event) => told.set(userId, event),
      evict: () => {
        evicted.add(userId);
        return Promise.resolve();
      },
    });
    const sockets = [watcher(owner.user_id), watcher(guest.user_id), watcher(gone.user_id)];
    const live = createLiveOnboarding({
      db: web.ctx.db,
      watchers: () => sockets,
      onError: (err) => {
        throw err;
      },
    });
    live.changed(workspace.id);
    await waitUntil(
      () => told.size + evicted.size === 3,
      () => `a delivery to all three sockets (told ${told.size}, evicted ${evicted.size})`,
    );
    expect(told.get(owner.user_id)).toEqual({
      workspaceId: workspace.id,
      done: { post: false, invite: true, error: false, webhook: false, agent: false },
    });
    expect(told.get(guest.user_id)).toEqual({ workspaceId: workspace.id, done: { post: false } });
    expect([...evicted]).toEqual([gone.user_id]);
  });
});
