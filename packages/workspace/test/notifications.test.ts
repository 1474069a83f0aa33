import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Member, Room, Workspace } from '@ferry/db';
import {
  createFeedback,
  createMember,
  createRoom,
  createTestContext,
  createUser,
  createWorkspace,
  joinRoom as seatInRoom,
  type TestContext,
} from '@ferry/testing';
import {
  joinRoom,
  leaveRoom,
  listMentions,
  markMentionsRead,
  markRoomRead,
  postMessage,
  postMessages,
  unreadChanges,
  unreadState,
  UNREAD_COUNT_LIMIT,
} from '../src/index.js';

/**
 * Unread counts and mentions (issue #13), against the real schema: what the sidebar, the Mentions
 * page and the live counts read.
 */
describe('notifications', () => {
  let ctx: TestContext;
  let workspace: Workspace;

  beforeAll(async () => {
    ctx = await createTestContext();
    workspace = await createWorkspace(ctx.db);
  });
  afterAll(async () => {
    await ctx?.close();
  });

  async function person(name: string, role: Member['role'] = 'member') {
    const user = await createUser(ctx.db, { name });
    return createMember(ctx.db, workspace, { user, role });
  }

  const say = (room: Room, author: Member & { user: { name: string } }, body: string) =>
    postMessage(ctx.db, {
      roomId: room.id,
      workspaceId: room.workspace_id,
      authorKind: 'member',
      authorMemberId: author.id,
      displayName: author.user.name,
      body,
    });

  const unreadIn = async (member: Member, room: Room) =>
    (await unreadState(ctx.db, member)).rooms.find((r) => r.id === room.id)?.unread;

  it('counts what others wrote after the seat was taken, until the room is read', async () => {
    const ada = await person('Ada Lovelace');
    const bob = await person('Bob Stone');
    const room = await createRoom(ctx.db, workspace, { members: [bob] });
    // History from before Ada joined is not unread for her.
    await say(room, bob, 'old news');
    await say(room, bob, 'older news');
    await joinRoom(ctx.db, room.id, ada.id);
    expect(await unreadIn(ada, room)).toBe(0);

    const first = await say(room, bob, 'one');
    await say(room, ada, 'my own message never counts');
    const last = await say(room, bob, 'two');
    expect(await unreadIn(ada, room)).toBe(2);
    expect(await unreadIn(bob, room)).toBe(1);

    await markRoomRead(ctx.db, { memberId: ada.id, roomId: room.id, messageId: last.id });
    expect(await unreadIn(ada, room)).toBe(0);
    // The mark never moves back (an older tab reading an earlier message).
    await markRoomRead(ctx.db, { memberId: ada.id, roomId: room.id, messageId: first.id });
    expect(await unreadIn(ada, room)).toBe(0);
    // A message of another room moves nothing.
    const other = await createRoom(ctx.db, workspace, { members: [ada, bob] });
    const elsewhere = await say(other, bob, 'elsewhere');
    await say(room, bob, 'three');
    await markRoomRead(ctx.db, { memberId: ada.id, roomId: room.id, messageId: elsewhere.id });
    expect(await unreadIn(ada, room)).toBe(1);
  });

  it('stops counting at the limit, lists joined rooms but no ticket conversations, by name', async () => {
    const ada = await person('Ada Cap');
    const bob = await person('Bob Cap');
    const busy = await createRoom(ctx.db, workspace, { name: 'zz-busy', members: [ada, bob] });
    const quiet = await createRoom(ctx.db, workspace, { name: 'aa-quiet', members: [ada] });
    const notMine = await createRoom(ctx.db, workspace, { name: 'mm-not-mine', members: [bob] });
    const ticket = await createFeedback(ctx.db, workspace);
    await seatInRoom(ctx.db, { id: ticket.room_id }, ada);
    await postMessages(
      ctx.db,
      Array.from({ length: UNREAD_COUNT_LIMIT + 5 }, (_, i) => ({
        roomId: busy.id,
        workspaceId: workspace.id,
        authorKind: 'member' as const,
        authorMemberId: bob.id,
        displayName: 'Bob Cap',
        body: `flood ${i}`,
      })),
    );
    const state = await unreadState(ctx.db, ada);
    const names = state.rooms.map((r) => r.name);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(['aa-quiet', 'zz-busy']));
    expect(names).not.toContain(notMine.name);
    expect(state.rooms.map((r) => r.id)).not.toContain(ticket.room_id);
    expect(state.rooms.find((r) => r.id === busy.id)?.unread).toBe(UNREAD_COUNT_LIMIT);
    expect(state.rooms.find((r) => r.id === quiet.id)?.unread).toBe(0);
  });

  it('starts a retaken seat from now: what was said while away is not unread', async () => {
    const ada = await person('Ada Away');
    const bob = await person('Bob Stays');
    const room = await createRoom(ctx.db, workspace, { members: [ada, bob] });
    await say(room, bob, 'before leaving');
    expect(await unreadIn(ada, room)).toBe(1);
    await leaveRoom(ctx.db, room.id, ada.id);
    await say(room, bob, 'while away');
    expect(await unreadIn(ada, room)).toBeUndefined();
    await joinRoom(ctx.db, room.id, ada.id);
    expect(await unreadIn(ada, room)).toBe(0);
  });

  it('records @-mentions for the people named, never the author, and counts them where they may read', async () => {
    const grace = await person('Grace Hopper');
    const alan = await person('Alan Turing');
    const guest = await person('Gus Guest', 'guest');
    const room = await createRoom(ctx.db, workspace, { members: [grace, alan] });
    const mention = await say(room, alan, 'Can @grace review? cc @gus and @alan and @nobody');
    await say(room, alan, 'an email like alan@grace.test is not a mention');

    const rows = await ctx.db
      .selectFrom('mentions')
      .select(['member_id', 'reason'])
      .where('message_id', '=', mention.id)
      .orderBy('member_id')
      .execute();
    expect(rows).toEqual(
      [
        { member_id: grace.id, reason: 'mention' },
        { member_id: guest.id, reason: 'mention' },
      ].sort((a, b) => (a.member_id < b.member_id ? -1 : 1)),
    );
    expect((await unreadState(ctx.db, grace)).mentions).toBe(1);
    // A seat in no room still gets its count (the rooms and the count are one read): mentioned
    // in a ticket's conversation, which members open without a seat and the sidebar leaves out.
    const roomless = await person('Rita Roomless');
    const ticket = await createRoom(ctx.db, workspace, { kind: 'conversation', members: [alan] });
    await say(ticket, alan, 'and @rita');
    expect(await unreadState(ctx.db, roomless)).toEqual({
      workspaceId: workspace.id,
      rooms: [],
      roomCount: 0,
      mentions: 1,
    });
    // The guest is not in the channel: the mention is kept but not shown until they are.
    expect((await unreadState(ctx.db, guest)).mentions).toBe(0);
    expect((await listMentions(ctx.db, guest, { page: 1 })).total).toBe(0);
    await seatInRoom(ctx.db, room, guest);
    expect((await unreadState(ctx.db, guest)).mentions).toBe(1);

    const listed = await listMentions(ctx.db, grace, { page: 1 });
    expect(listed.total).toBe(1);
    expect(listed.items[0]).toMatchObject({
      reason: 'mention',
      unread: true,
      room: { id: room.id, name: room.name },
      message: { id: mention.id, body: mention.body },
    });

    // Reading the room up to the mention reads the mention.
    await markRoomRead(ctx.db, { memberId: grace.id, roomId: room.id, messageId: mention.id });
    expect((await unreadState(ctx.db, grace)).mentions).toBe(0);
    expect((await listMentions(ctx.db, grace, { page: 1 })).items[0]?.unread).toBe(false);
    // Opening the Mentions page reads the rest.
    await markMentionsRead(ctx.db, guest.id);
    expect((await unreadState(ctx.db, guest)).mentions).toBe(0);
  });

  it('records @here, @channel and @everyone as a mention of every seat in the room, never the author', async () => {
    const ida = await person('Ida Here');
    const joe = await person('Joe Channel');
    const gone = await person('Gone Away');
    const outside = await person('Otto Outside');
    const room = await createRoom(ctx.db, workspace, { members: [ida, joe, gone] });
    await leaveRoom(ctx.db, room.id, gone.id);
    const mentioned = async (body: string, author: typeof ida | undefined) => {
      const message = author
        ? await say(room, author, body)
        : await postMessage(ctx.db, {
            roomId: room.id,
            workspaceId: room.workspace_id,
            authorKind: 'webhook',
            authorRef: 'iwh_test',
            displayName: 'CI',
            body,
          });
      const rows = await ctx.db
        .selectFrom('mentions')
        .select('member_id')
        .where('message_id', '=', message.id)
        .execute();
      return rows.map((row) => row.member_id).sort();
    };
    // A webhook's Slack `<!here>`, as the decoder writes it: everyone seated, nobody who left.
    expect(await mentioned('Deploy failed @here', undefined)).toEqual([ida.id, joe.id].sort());
    expect(await mentioned('@channel: standup', ida)).toEqual([joe.id]);
    expect(await mentioned('ping @EVERYONE.', joe)).toEqual([ida.id]);
    expect(await mentioned('not a broadcast: ops@here.example', ida)).toEqual([]);
    expect((await unreadState(ctx.db, outside)).mentions).toBe(0);
  });

  it("counts an agent's (or GitHub's) reply on a ticket as a mention of its assignee", async () => {
    const owner = await person('Olive Owner', 'admin');
    const ticket = await createFeedback(ctx.db, workspace, { assignee_member_id: owner.id });
    const unassigned = await createFeedback(ctx.db, workspace);
    const [reply, update] = await postMessages(ctx.db, [
      {
        roomId: ticket.room_id,
        workspaceId: workspace.id,
        authorKind: 'agent',
        authorRef: 'agt_x',
        displayName: 'claude',
        body: 'Fixed in the branch.',
      },
      {
        roomId: ticket.room_id,
        workspaceId: workspace.id,
        authorKind: 'system',
        displayName: 'GitHub',
        body: 'Pull request opened.',
      },
      {
        roomId: unassigned.room_id,
        workspaceId: workspace.id,
        authorKind: 'agent',
        authorRef: 'agt_x',
        displayName: 'claude',
        body: 'Nobody is assigned here.',
      },
    ]);
    // An admin reads feedback: the conversation is open to her without a seat.
    const listed = await listMentions(ctx.db, owner, { page: 1 });
    // Newest first: one process's ids keep their order even within a millisecond.
    expect(listed.items.map((i) => [i.message.id, i.reason])).toEqual([
      [update!.id, 'ticket_reply'],
      [reply!.id, 'ticket_reply'],
    ]);
    expect((await unreadState(ctx.db, owner)).mentions).toBe(2);
  });

  it('tells the live path who a message concerns: seated, mentioned, never its author', async () => {
    const ada = await person('Ada Live');
    const bob = await person('Bob Live');
    const cat = await person('Cat Live');
    const outsider = await person('Olga Outside');
    const room = await createRoom(ctx.db, workspace, { members: [ada, bob, cat] });
    const message = await say(room, bob, 'Hello @ada');
    const users = [ada, bob, cat, outsider].map((m) => m.user_id);
    const changes = await unreadChanges(ctx.db, [message.id], users);
    const byUser = new Map(changes.map((c) => [c.userId, c]));
    expect(byUser.get(ada.user_id)).toMatchObject({
      roomId: room.id,
      workspaceId: workspace.id,
      messageId: message.id,
      seated: true,
      mention: true,
    });
    expect(byUser.get(cat.user_id)).toMatchObject({ seated: true, mention: false });
    expect(byUser.has(bob.user_id)).toBe(false);
    expect(byUser.has(outsider.user_id)).toBe(false);
    // Only the users asked about.
    expect(await unreadChanges(ctx.db, [message.id], [cat.user_id])).toHaveLength(1);
  });
});
