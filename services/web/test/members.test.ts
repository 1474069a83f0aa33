import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createMember, createUser, createWorkspace } from '@ferry/testing';
import { FormClient, signedInSeat, startWeb, type WebHarness } from './harness.js';

describe('members and roles', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWeb();
  });
  afterAll(async () => {
    await web.close();
  });

  const workspaceWith = (role: 'owner' | 'admin' | 'member' | 'guest') => signedInSeat(web, role);

  it('lets an admin add an existing account with a role, and shows inline errors otherwise', async () => {
    const { client, base, workspace } = await workspaceWith('admin');
    const newcomer = await createUser(web.ctx.db);
    const added = await client.post(
      `${base}/members`,
      { email: newcomer.email, role: 'guest' },
      { csrfFrom: `${base}/members` },
    );
    expect(added.status).toBe(302);
    const seat = await web.ctx.db
      .selectFrom('members')
      .selectAll()
      .where('user_id', '=', newcomer.id)
      .executeTakeFirstOrThrow();
    expect(seat).toMatchObject({ workspace_id: workspace.id, role: 'guest', left_at: null });

    const unknown = await client.post(
      `${base}/members`,
      { email: 'nobody@example.test', role: 'member' },
      { csrfFrom: `${base}/members` },
    );
    expect(unknown.status).toBe(422);
    expect(unknown.text).toContain('No account uses this email yet.');
    const badRole = await client.post(
      `${base}/members`,
      { email: newcomer.email, role: 'owner' },
      { csrfFrom: `${base}/members` },
    );
    expect(badRole.status).toBe(422);
    expect(badRole.text).toContain('Pick a role.');
  });

  it('refuses member management to members, and removal cuts access at once', async () => {
    const { client, base, workspace } = await workspaceWith('member');
    const other = await createMember(web.ctx.db, workspace);
    const refused = await client.post(
      `${base}/members`,
      { email: other.user.email, role: 'admin' },
      { csrfFrom: `${base}/members` },
    );
    expect(refused.status).toBe(403);
    const removeOther = await client.post(
      `${base}/members/${other.id}/remove`,
      {},
      { csrfFrom: `${base}/members` },
    );
    expect(removeOther.status).toBe(403);

    const admin = await createMember(web.ctx.db, workspace, { role: 'admin' });
    const adminClient = new FormClient(web.url);
    await adminClient.signIn(admin.user.email, admin.user.password);
    const me = await web.ctx.db
      .selectFrom('members')
      .select('id')
      .where('workspace_id', '=', workspace.id)
      .where('role', '=', 'member')
      .orderBy('joined_at')
      .executeTakeFirstOrThrow();
    const removed = await adminClient.post(
      `${base}/members/${me.id}/remove`,
      {},
      { csrfFrom: `${base}/members` },
    );
    expect(removed.status).toBe(302);
    expect((await client.get(base)).status).toBe(404);
  });

  it('keeps the last owner, and answers junk member ids with 404', async () => {
    const { client, base, seat } = await workspaceWith('owner');
    const leave = await client.post(
      `${base}/members/${seat.id}/remove`,
      {},
      { csrfFrom: `${base}/members` },
    );
    expect(leave.status).toBe(409);
    expect(leave.text).toContain('needs an owner');
    const junk = await client.post(
      `${base}/members/not-an-id/remove`,
      {},
      { csrfFrom: `${base}/members` },
    );
    expect(junk.status).toBe(404);
    const foreign = await createMember(web.ctx.db, await createWorkspace(web.ctx.db));
    const other = await client.post(
      `${base}/members/${foreign.id}/remove`,
      {},
      { csrfFrom: `${base}/members` },
    );
    expect(other.status).toBe(404);
  });
});
