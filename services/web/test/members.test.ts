import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiToken, createMember, createUser, createWorkspace } from '@ferry/testing';
import { createWorkspace as createWorkspaceWithOwner } from '@ferry/workspace';
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
    expect(unknown.status).toBe(303);
    expect((await client.follow(unknown)).text).toContain('No account uses this email yet.');
    const badRole = await client.post(
      `${base}/members`,
      { email: newcomer.email, role: 'owner' },
      { csrfFrom: `${base}/members` },
    );
    expect(badRole.status).toBe(303);
    expect((await client.follow(badRole)).text).toContain('Pick a role.');
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
    expect(removeOther.status).toBe(303);

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
    // Said on the list (303 there), next to the remedy (make someone else owner).
    expect(leave.status).toBe(303);
    const list = await client.follow(leave);
    expect(list.text).toContain('needs an owner');
    expect(list.text).toContain('Invite links');
    expect(
      await web.ctx.db
        .selectFrom('members')
        .select('left_at')
        .where('id', '=', seat.id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ left_at: null });
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
  /** A workspace made the way the app makes one: its owner and #general. */
  const createWorkspaceFor = (user: { id: string }) =>
    createWorkspaceWithOwner(web.ctx.db, user, `Team ${Math.random().toString(36).slice(2, 8)}`);

  const roleOf = async (memberId: string) =>
    (
      await web.ctx.db
        .selectFrom('members')
        .select(['role', 'left_at'])
        .where('id', '=', memberId)
        .executeTakeFirstOrThrow()
    ).role;

  it('does not change an existing member’s role by adding them again', async () => {
    const { client, base, workspace } = await workspaceWith('admin');
    const existing = await createMember(web.ctx.db, workspace, { role: 'member' });
    const again = await client.post(
      `${base}/members`,
      { email: existing.user.email, role: 'guest' },
      { csrfFrom: `${base}/members` },
    );
    expect(again.status).toBe(303);
    expect((await client.follow(again)).text).toContain('Already a member, as member.');
    expect(await roleOf(existing.id)).toBe('member');
  });

  it('seats new members and admins in the default room, guests only where they are added', async () => {
    const db = web.ctx.db;
    const owner = await createUser(db);
    const { workspace, generalRoomId } = await createWorkspaceFor(owner);
    const client = new FormClient(web.url);
    await client.signIn(owner.email, owner.password);
    const base = `/w/${workspace.id}/${workspace.slug}`;
    const [memberUser, guestUser] = [await createUser(db), await createUser(db)];
    for (const [user, role] of [
      [memberUser, 'member'],
      [guestUser, 'guest'],
    ] as const) {
      const added = await client.post(
        `${base}/members`,
        { email: user.email, role },
        { csrfFrom: `${base}/members` },
      );
      expect(added.status).toBe(302);
    }
    const seatedIn = async (userId: string) =>
      db
        .selectFrom('room_members')
        .innerJoin('members', 'members.id', 'room_members.member_id')
        .select('room_members.room_id')
        .where('members.user_id', '=', userId)
        .where('room_members.left_at', 'is', null)
        .execute();
    expect(await seatedIn(memberUser.id)).toEqual([{ room_id: generalRoomId }]);
    expect(await seatedIn(guestUser.id)).toEqual([]);

    // The guest is reachable: someone in #general adds them from the room.
    const guestSeat = await db
      .selectFrom('members')
      .select('id')
      .where('user_id', '=', guestUser.id)
      .executeTakeFirstOrThrow();
    const people = `${base}/rooms/${generalRoomId}/people`;
    expect((await client.get(people)).text).toContain(guestUser.email);
    const add = await client.post(people, { member_id: guestSeat.id }, { csrfFrom: people });
    expect(add.status).toBe(302);
    expect(await seatedIn(guestUser.id)).toEqual([{ room_id: generalRoomId }]);
    const junk = await client.post(people, { member_id: 'mem_nope' }, { csrfFrom: people });
    expect(junk.status).toBe(303);
    const foreign = await createMember(db, await createWorkspace(db));
    const other = await client.post(people, { member_id: foreign.id }, { csrfFrom: people });
    expect(other.status).toBe(303);
    expect((await client.follow(other)).text).toContain('Pick someone from this workspace.');

    // A guest in the room may not add people; a room the viewer cannot open is 404.
    const guestClient = new FormClient(web.url);
    await guestClient.signIn(guestUser.email, guestUser.password);
    const page = await guestClient.get(people);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('Add someone');
    const refused = await guestClient.post(
      people,
      { member_id: guestSeat.id },
      { csrfFrom: people },
    );
    expect(refused.status).toBe(403);
    const { generalRoomId: elsewhere } = await createWorkspaceFor(await createUser(db));
    expect((await client.get(`${base}/rooms/${elsewhere}/people`)).status).toBe(404);
  });

  it('changes roles within the rules: admins below themselves, owners anything, one owner always', async () => {
    const db = web.ctx.db;
    const { client: ownerClient, base, workspace, seat: owner } = await workspaceWith('owner');
    const admin = await createMember(db, workspace, { role: 'admin' });
    const member = await createMember(db, workspace, { role: 'member' });
    const otherAdmin = await createMember(db, workspace, { role: 'admin' });
    const adminClient = new FormClient(web.url);
    await adminClient.signIn(admin.user.email, admin.user.password);
    const change = (client: FormClient, id: string, role: string) =>
      client.post(`${base}/members/${id}/role`, { role }, { csrfFrom: `${base}/members` });

    expect((await change(adminClient, member.id, 'guest')).status).toBe(302);
    expect(await roleOf(member.id)).toBe('guest');
    // An admin cannot make owners, nor touch another admin or an owner: said on the page.
    for (const [id, role] of [
      [member.id, 'owner'],
      [otherAdmin.id, 'member'],
      [owner.id, 'admin'],
    ] as const) {
      const refused = await change(adminClient, id, role);
      expect(refused.status).toBe(303);
      expect((await adminClient.follow(refused)).text).toContain('Only an owner can');
    }
    expect([await roleOf(member.id), await roleOf(otherAdmin.id), await roleOf(owner.id)]).toEqual([
      'guest',
      'admin',
      'owner',
    ]);
    // The sole owner cannot step down; after making someone else owner, they can, and can leave.
    const stepDown = await change(ownerClient, owner.id, 'admin');
    expect(stepDown.status).toBe(303);
    expect((await ownerClient.follow(stepDown)).text).toContain('needs an owner');
    expect(await roleOf(owner.id)).toBe('owner');
    expect((await change(ownerClient, admin.id, 'owner')).status).toBe(302);
    expect(await roleOf(admin.id)).toBe('owner');
    const leave = await ownerClient.post(
      `${base}/members/${owner.id}/remove`,
      {},
      { csrfFrom: `${base}/members` },
    );
    expect(leave.location).toBe('/workspaces');
    // Bad roles and unknown ids are refused.
    expect((await change(adminClient, member.id, 'emperor')).status).toBe(303);
    expect(await roleOf(member.id)).toBe('guest');
    expect((await change(adminClient, 'mem_nope', 'member')).status).toBe(404);
  });

  it('nobody raises themselves: a guest or member asking for admin (or owner) is refused, roles unchanged', async () => {
    const db = web.ctx.db;
    const { workspace, base, seat: guest, client: guestClient } = await workspaceWith('guest');
    const member = await createMember(db, workspace, { role: 'member' });
    const admin = await createMember(db, workspace, { role: 'admin' });
    const memberClient = new FormClient(web.url);
    await memberClient.signIn(member.user.email, member.user.password);
    const adminClient = new FormClient(web.url);
    await adminClient.signIn(admin.user.email, admin.user.password);
    const change = (client: FormClient, id: string, role: string) =>
      client.post(`${base}/members/${id}/role`, { role }, { csrfFrom: `${base}/members` });

    for (const [client, id, role] of [
      [guestClient, guest.id, 'admin'],
      [guestClient, guest.id, 'member'],
      [guestClient, guest.id, 'owner'],
      [memberClient, member.id, 'admin'],
      [memberClient, member.id, 'owner'],
      [adminClient, admin.id, 'owner'],
      // Nor anyone else, without members.manage.
      [memberClient, guest.id, 'member'],
    ] as const) {
      // Refused by the domain's rules: back to the list (303), which says why.
      const refused = await change(client, id, role);
      expect(refused.status).toBe(303);
      expect((await client.follow(refused)).text).toContain('class="flash error"');
    }
    expect(await roleOf(guest.id)).toBe('guest');
    expect(await roleOf(member.id)).toBe('member');
    expect(await roleOf(admin.id)).toBe('admin');
    // The members page offers them no control that would be refused.
    expect((await guestClient.get(`${base}/members`)).text).not.toContain(
      `/members/${guest.id}/role`,
    );
    // Stepping down is always yours to do.
    expect((await change(memberClient, member.id, 'guest')).status).toBe(302);
    expect(await roleOf(member.id)).toBe('guest');
  });

  it('tokens do not outlive their maker: leaving or losing tokens.manage revokes them, and the page says so', async () => {
    const db = web.ctx.db;
    const { workspace, base, client: ownerClient } = await workspaceWith('owner');
    const leaver = await createMember(db, workspace, { role: 'admin' });
    const demoted = await createMember(db, workspace, { role: 'admin' });
    const stays = await createMember(db, workspace, { role: 'owner' });
    const mint = (maker: { id: string }) =>
      createApiToken(db, workspace, { scopes: ['tenant:write'], createdBy: maker });
    const [leaverToken, demotedToken, staysToken] = await Promise.all([
      mint(leaver),
      mint(demoted),
      mint(stays),
    ]);
    const api = (raw: string) =>
      fetch(`${web.url}/api/v1/feedback`, { headers: { authorization: `Bearer ${raw}` } });
    expect((await api(leaverToken.raw)).status).toBe(200);

    const removed = await ownerClient.post(
      `${base}/members/${leaver.id}/remove`,
      {},
      { csrfFrom: `${base}/members` },
    );
    expect(removed.status).toBe(302);
    const demote = await ownerClient.post(
      `${base}/members/${demoted.id}/role`,
      { role: 'member' },
      { csrfFrom: `${base}/members` },
    );
    expect(demote.status).toBe(302);
    // An owner stepping down to admin can still mint tokens: theirs keep working.
    const stepDown = await ownerClient.post(
      `${base}/members/${stays.id}/role`,
      { role: 'admin' },
      { csrfFrom: `${base}/members` },
    );
    expect(stepDown.status).toBe(302);

    expect((await api(leaverToken.raw)).status).toBe(401);
    expect((await api(demotedToken.raw)).status).toBe(401);
    expect((await api(staysToken.raw)).status).toBe(200);
    const page = await ownerClient.get(`${base}/settings/tokens`);
    expect(page.text).toContain(`revoked when ${leaver.user.name} left`);
    expect(page.text).toContain(`revoked when ${demoted.user.name} became member`);
  });

  it('two owners removing each other at once leave one owner, every time', async () => {
    const db = web.ctx.db;
    for (let round = 0; round < 8; round++) {
      const workspace = await createWorkspace(db);
      const [a, b] = await Promise.all([
        createMember(db, workspace, { role: 'owner' }),
        createMember(db, workspace, { role: 'owner' }),
      ]);
      const [clientA, clientB] = [new FormClient(web.url), new FormClient(web.url)];
      await Promise.all([
        clientA.signIn(a.user.email, a.user.password),
        clientB.signIn(b.user.email, b.user.password),
      ]);
      const base = `/w/${workspace.id}/${workspace.slug}`;
      const [tokenA, tokenB] = await Promise.all([
        clientA.csrf(`${base}/members`),
        clientB.csrf(`${base}/members`),
      ]);
      const answers = await Promise.all([
        clientA.post(`${base}/members/${b.id}/remove`, { _csrf: tokenA }),
        clientB.post(`${base}/members/${a.id}/remove`, { _csrf: tokenB }),
      ]);
      const owners = await db
        .selectFrom('members')
        .select('id')
        .where('workspace_id', '=', workspace.id)
        .where('role', '=', 'owner')
        .where('left_at', 'is', null)
        .execute();
      expect({ round, owners: owners.length }).toEqual({ round, owners: 1 });
      // One removal went through; the other was refused: back to the list (303) when it reached
      // removeMember's lock after the first committed, 404 when the remover's seat was already
      // gone at the door.
      const [done, refused] = answers.map((a) => a.status).sort();
      expect({ round, done }).toEqual({ round, done: 302 });
      expect([303, 404]).toContain(refused);
    }
  });

  it('invite links: make, open, join by signing up, revoke; dead links are 404', async () => {
    const db = web.ctx.db;
    const { client, base, workspace } = await workspaceWith('admin');
    const made = await client.post(
      `${base}/members/invites`,
      { role: 'member', expires_in_days: '7' },
      { csrfFrom: `${base}/members` },
    );
    expect(made.status).toBe(302);
    const list = (await client.get(`${base}/members`)).text;
    // Rounded to the nearest unit: a moment after it is made, a 7-day link has 7 days left (#28).
    expect(list).toMatch(/Expires <time[^>]*>in 7 days<\/time>/);
    const path = /value="[^"]*?(\/invite\/inv_[A-Za-z0-9_-]+)"/.exec(list)?.[1];
    expect(path).toBeDefined();
    const stored = await db
      .selectFrom('workspace_invites')
      .selectAll()
      .where('workspace_id', '=', workspace.id)
      .executeTakeFirstOrThrow();
    // Looked up by hash; the raw token is only in the sealed copy.
    expect(JSON.stringify(stored)).not.toContain(path!.slice('/invite/'.length));

    const visitor = new FormClient(web.url);
    const offer = await visitor.get(path!);
    expect(offer.status).toBe(200);
    expect(offer.text).toContain(`Join ${workspace.name}`);
    expect(offer.text).toContain(`/signup?next=${encodeURIComponent(path!)}`);
    // The top bar's Sign in / Sign up come back here too, not only the page's own buttons.
    for (const to of ['/login', '/signup']) {
      const links = offer.text.split(`href="${to}?next=${encodeURIComponent(path!)}"`).length - 1;
      expect(links).toBe(2);
    }
    const signedUp = await visitor.post(
      '/signup',
      { name: 'Grace Hopper', email: 'grace@example.test', password: 'correct horse', next: path! },
      { csrfFrom: `/signup?next=${encodeURIComponent(path!)}` },
    );
    expect(signedUp.location).toBe(path);
    const joined = await visitor.post(path!, {}, { csrfFrom: path! });
    expect(joined.location).toBe(base);
    const seat = await db
      .selectFrom('members')
      .innerJoin('users', 'users.id', 'members.user_id')
      .select(['members.role'])
      .where('users.email', '=', 'grace@example.test')
      .where('members.workspace_id', '=', workspace.id)
      .executeTakeFirstOrThrow();
    expect(seat.role).toBe('member');
    // Opening it again changes nothing.
    await visitor.post(path!, {}, { csrfFrom: path! });
    expect((await client.get(`${base}/members`)).text).toContain('1 joined');

    const bad = await client.post(
      `${base}/members/invites`,
      { role: 'owner', expires_in_days: '365' },
      { csrfFrom: `${base}/members` },
    );
    expect(bad.status).toBe(303);
    expect(await db.selectFrom('workspace_invites').select('id').execute()).toHaveLength(1);

    await client.post(
      `${base}/members/invites/${stored.id}/revoke`,
      {},
      { csrfFrom: `${base}/members` },
    );
    expect((await visitor.get(path!)).status).toBe(404);
    expect((await visitor.get('/invite/inv_nothing')).status).toBe(404);
    expect((await visitor.get('/invite/%00junk')).status).toBe(404);
    await db
      .updateTable('workspace_invites')
      .set({ revoked_at: null, expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', stored.id)
      .execute();
    expect((await visitor.get(path!)).status).toBe(404);
    // Members cannot make links.
    const { client: memberClient, base: memberBase } = await workspaceWith('member');
    const refused = await memberClient.post(
      `${memberBase}/members/invites`,
      { role: 'member', expires_in_days: '7' },
      { csrfFrom: `${memberBase}/members` },
    );
    expect(refused.status).toBe(403);
  });
});
