import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createApiToken,
  createFeedback,
  createMember,
  createRoom,
  createTestContext,
  createUser,
  createWorkspace,
  type TestContext,
} from '@ferry/testing';
import {
  mentionedHandles,
  mentionSuggestions,
  registerAgent,
  roomMentionSuggestions,
} from '../src/index.js';

/** The composer's @-autocomplete (issue #28 item 12): whom it offers, and what it inserts. */
describe('mention suggestions', () => {
  it('inserts the first name when it is unique, else the whole name, and what it inserts is read back', () => {
    const people = [
      { name: 'Ada Lovelace', kind: 'member' as const },
      { name: 'Ada Byron', kind: 'member' as const },
      { name: 'Grace Hopper', kind: 'member' as const },
      { name: "Miles O'Brien", kind: 'member' as const },
      { name: "O'Hara", kind: 'member' as const },
      { name: 'shop-bot', kind: 'agent' as const },
    ];
    const suggestions = mentionSuggestions(people);
    expect(suggestions).toEqual([
      { handle: 'adalovelace', name: 'Ada Lovelace', kind: 'member' },
      { handle: 'adabyron', name: 'Ada Byron', kind: 'member' },
      { handle: 'grace', name: 'Grace Hopper', kind: 'member' },
      { handle: 'miles', name: "Miles O'Brien", kind: 'member' },
      { handle: 'shop-bot', name: 'shop-bot', kind: 'agent' },
    ]);
    // Each inserted mention is parsed back as exactly that handle (O'Hara makes none: left out).
    for (const { handle } of suggestions) {
      expect(mentionedHandles(`hi @${handle} there`)).toEqual([handle]);
    }
  });

  describe('in the database', () => {
    let ctx: TestContext;
    beforeAll(async () => {
      ctx = await createTestContext();
    });
    afterAll(async () => {
      await ctx?.close();
    });

    it("offers a room's people but not the viewer, an agent room its agent, a conversation every member and agent", async () => {
      const { db } = ctx;
      const workspace = await createWorkspace(db);
      const person = async (name: string) =>
        createMember(db, workspace, { user: await createUser(db, { name }) });
      const [ada, grace, linus] = [
        await person('Ada Lovelace'),
        await person('Grace Hopper'),
        await person('Linus Torvalds'),
      ];
      const channel = await createRoom(db, workspace, { members: [ada, grace] });
      const token = await createApiToken(db, workspace, { scopes: ['platform:dispatch'] });
      const agent = await registerAgent(db, {
        workspaceId: workspace.id,
        installId: 'install-1',
        name: 'shop',
        tokenId: token.id,
      });
      const other = await createWorkspace(db);
      await createMember(db, other, { user: await createUser(db, { name: 'Outsider Olga' }) });

      expect(await roomMentionSuggestions(db, channel, ada)).toEqual([
        { handle: 'grace', name: 'Grace Hopper', kind: 'member' },
      ]);

      const agentRoom = await db
        .selectFrom('rooms')
        .selectAll()
        .where('id', '=', agent.room_id)
        .executeTakeFirstOrThrow();
      expect(
        (await roomMentionSuggestions(db, agentRoom, ada)).filter((s) => s.kind === 'agent'),
      ).toEqual([{ handle: 'shop', name: 'shop', kind: 'agent' }]);

      const ticket = await createFeedback(db, workspace);
      const conversation = await db
        .selectFrom('rooms')
        .selectAll()
        .where('id', '=', ticket.room_id)
        .executeTakeFirstOrThrow();
      const offered = await roomMentionSuggestions(db, conversation, linus);
      expect(offered.map((s) => s.name)).toEqual(
        expect.arrayContaining(['Ada Lovelace', 'Grace Hopper', 'shop']),
      );
      expect(offered.map((s) => s.name)).not.toContain('Linus Torvalds');
      expect(offered.map((s) => s.name)).not.toContain('Outsider Olga');

      // A guest pulled into the conversation is not shown the workspace's roster: only who is
      // seated in it (nobody yet), and the agents a mention there reaches.
      const guest = await createMember(db, workspace, {
        role: 'guest',
        user: await createUser(db, { name: 'Gina Guest' }),
      });
      expect(await roomMentionSuggestions(db, conversation, guest)).toEqual([
        { handle: 'shop', name: 'shop', kind: 'agent' },
      ]);
    });
  });
});
