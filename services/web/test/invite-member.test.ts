import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInvite, invitePath } from '@ferry/workspace';
import { createMember, createUser } from '@ferry/testing';
import { FormClient, signedInSeat, startWeb, type WebHarness } from './harness.js';

/**
 * Issue 42, defect 9: an invite link opened by someone who already has a seat in its workspace
 * says so and opens the workspace, instead of offering to join it again.
 */
describe('an invite link opened by a member', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWeb();
  });
  afterAll(async () => {
    await web.close();
  });

  async function inviteInto(role: 'owner' | 'member') {
    const { client, base, workspace, seat } = await signedInSeat(web, role);
    const { token } = await createInvite(web.ctx.db, web.deps.box, {
      workspaceId: workspace.id,
      role: 'member',
      expiresInDays: 7,
      createdBy: seat.id,
    });
    return { client, base, workspace, path: invitePath(token) };
  }

  it('says "You are already a member" with a link to the workspace, not "Join"', async () => {
    const { client, base, workspace, path } = await inviteInto('member');
    const page = await client.get(path);
    expect(page.status).toBe(200);
    expect(page.text).toContain('You are already a member');
    expect(page.text).toContain(`href="${base}"`);
    expect(page.text).not.toMatch(/<button[^>]*>\s*Join/);
    expect(page.text).not.toContain(`action="${path}"`);
    expect(page.text).toContain(workspace.name);

    // The join POST (an old tab, a double click) still only says so and changes nothing.
    const joined = await client.post(path, {}, { csrfFrom: '/workspaces' });
    expect(joined.status).toBe(302);
    expect(joined.location).toBe(base);
    expect((await client.get(base)).text).toContain('You are already a member of');
    const invite = await web.ctx.db
      .selectFrom('workspace_invites')
      .select('joined_count')
      .where('workspace_id', '=', workspace.id)
      .executeTakeFirstOrThrow();
    expect(invite.joined_count).toBe(0);
  });

  it('still offers "Join" to a signed-in person without a seat, and to one who left', async () => {
    const { workspace, path } = await inviteInto('owner');
    const stranger = await createUser(web.ctx.db);
    const strangerClient = new FormClient(web.url);
    await strangerClient.signIn(stranger.email, stranger.password);
    const offer = await strangerClient.get(path);
    expect(offer.text).toMatch(/<button[^>]*type="submit"[^>]*>\s*Join/);
    expect(offer.text).not.toContain('You are already a member');

    const former = await createMember(web.ctx.db, workspace, { role: 'member' });
    await web.ctx.db
      .updateTable('members')
      .set({ left_at: new Date() })
      .where('id', '=', former.id)
      .execute();
    const formerClient = new FormClient(web.url);
    await formerClient.signIn(former.user.email, former.user.password);
    expect((await formerClient.get(path)).text).toMatch(/<button[^>]*type="submit"[^>]*>\s*Join/);
  });
});
