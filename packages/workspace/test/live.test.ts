import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createLogger } from '@ferry/core';
import {
  createMember,
  createRoom,
  createTestContext,
  createWorkspace,
  waitUntil,
  type TestContext,
} from '@ferry/testing';
import {
  createAnnouncer,
  fileFeedback,
  liveChannelKey,
  MESSAGES_STORED_EVENT,
  postMessage,
  startRelay,
  storedMessagesSchema,
  type StoredMessage,
} from '../src/index.js';

/**
 * Every message-storing path announces: the announcement comes from the relayed
 * `message_created` event, so whatever wrote the message (a member, an incoming webhook, the
 * system message of a filed ticket, an agent) it reaches the web processes, ids only.
 */
describe('live announce of stored messages', () => {
  let ctx: TestContext;
  let subscriber: Redis;
  let relay: { stop(): Promise<void> };
  const heard: { raw: unknown; messages: StoredMessage[] }[] = [];
  const heardIds = (): string[] => heard.flatMap((h) => h.messages.map((m) => m.id));

  beforeAll(async () => {
    ctx = await createTestContext();
    // What a web process's socket.io Redis adapter hears: the default namespace's request channel.
    subscriber = ctx.redis.duplicate();
    subscriber.on('message', (_channel: string, text: string) => {
      const request = JSON.parse(text) as { type: number; data: [string, unknown] };
      if (request.type !== 6 || request.data[0] !== MESSAGES_STORED_EVENT) return;
      const parsed = storedMessagesSchema.parse(request.data[1]);
      heard.push({ raw: request.data[1], messages: parsed.messages });
    });
    await subscriber.subscribe(`${liveChannelKey(ctx.config.REDIS_PREFIX)}-request#/#`);
    relay = startRelay(ctx);
  });
  afterAll(async () => {
    await relay?.stop();
    subscriber?.disconnect();
    await ctx?.close();
  });

  it('announces messages of every author kind, the filed ticket’s system message included', async () => {
    const workspace = await createWorkspace(ctx.db);
    const member = await createMember(ctx.db, workspace);
    const room = await createRoom(ctx.db, workspace, { members: [member] });
    const byMember = await postMessage(ctx.db, {
      roomId: room.id,
      workspaceId: workspace.id,
      authorKind: 'member',
      authorMemberId: member.id,
      displayName: member.user.name,
      body: 'from a member',
    });
    const byWebhook = await ctx.db.transaction().execute((trx) =>
      postMessage(trx, {
        roomId: room.id,
        workspaceId: workspace.id,
        authorKind: 'webhook',
        authorRef: 'whk_test',
        displayName: 'Deploy bot',
        body: 'from a webhook, inside its own transaction',
      }),
    );
    const ticket = await fileFeedback(ctx.db, workspace.id, {
      note: 'The pay button does nothing',
      title: null,
      reporter: null,
      page: null,
      element: null,
    });
    const system = await ctx.db
      .selectFrom('messages')
      .select(['id', 'room_id', 'author_kind'])
      .where('room_id', '=', ticket.room_id)
      .executeTakeFirstOrThrow();
    expect(system.author_kind).toBe('system');

    const expected = [byMember.id, byWebhook.id, system.id];
    await waitUntil(() => expected.every((id) => heardIds().includes(id)), 'announcements');
    const all = heard.flatMap((h) => h.messages);
    expect(all.find((m) => m.id === system.id)).toEqual({
      id: system.id,
      roomId: ticket.room_id,
      workspaceId: workspace.id,
    });
    expect(all.find((m) => m.id === byMember.id)?.roomId).toBe(room.id);
    // Ids and plain fields only: nothing a page could render as markup.
    for (const { raw } of heard) {
      for (const message of (raw as { messages: object[] }).messages) {
        expect(Object.keys(message).sort()).toEqual(['id', 'roomId', 'workspaceId']);
      }
    }
    // Each message once (the relay marks what it announced as sent).
    expect(new Set(heardIds()).size).toBe(heardIds().length);
  });

  it('never announces a message whose transaction rolled back', async () => {
    const workspace = await createWorkspace(ctx.db);
    const room = await createRoom(ctx.db, workspace);
    let doomed = '';
    await expect(
      ctx.db.transaction().execute(async (trx) => {
        doomed = (
          await postMessage(trx, {
            roomId: room.id,
            workspaceId: workspace.id,
            authorKind: 'system',
            displayName: 'Ferry',
            body: 'never committed',
          })
        ).id;
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const after = await postMessage(ctx.db, {
      roomId: room.id,
      workspaceId: workspace.id,
      authorKind: 'system',
      displayName: 'Ferry',
      body: 'committed',
    });
    await waitUntil(() => heardIds().includes(after.id), 'the committed message');
    expect(doomed).toMatch(/^msg_/);
    expect(heardIds()).not.toContain(doomed);
  });

  it('an announcer whose Redis is down neither throws nor rejects', async () => {
    const dead = new Redis('redis://127.0.0.1:1', {
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      lazyConnect: true,
      retryStrategy: () => null,
    });
    dead.on('error', () => undefined);
    try {
      const announcer = createAnnouncer(dead, 'nowhere', createLogger({ level: 'silent' }));
      await expect(
        announcer.announce([{ id: 'msg_x', roomId: 'room_x', workspaceId: 'wsp_x' }]),
      ).resolves.toBeUndefined();
    } finally {
      dead.disconnect();
    }
  });
});
