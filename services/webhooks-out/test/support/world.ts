import type { Redis } from 'ioredis';
import { SecretBox } from '@ferry/core';
import type { Member, Room, Workspace } from '@ferry/db';
import { createRedisConnection, runOutboxRelay } from '@ferry/queues';
import {
  createMember,
  createRoom,
  createTestContext,
  createWorkspace,
  Receiver,
  type TestContext,
} from '@ferry/testing';
import { postMessage, createOutgoingHook } from '@ferry/workspace';
import {
  loadWebhooksOutSettings,
  startWebhooksOut,
  type RunningWebhooksOut,
} from '../../src/index.js';

/**
 * The whole outgoing path in one test process, as production runs it: postMessage writes the
 * message and its outbox row, the real outbox relay moves it to BullMQ, and the real webhooks-out
 * workers fan out and send to a real loopback Receiver. Settings come from `env` like a process.
 */
export interface World {
  ctx: TestContext;
  box: SecretBox;
  workspace: Workspace;
  member: Member;
  /** Null when the world runs no worker in-process (the kill test's children do). */
  running: RunningWebhooksOut | null;
  receivers: Receiver[];
  newRoom(): Promise<Room>;
  newHook(room: Room, targetUrl: string): Promise<{ hookId: string; secret: string }>;
  newReceiver(): Promise<Receiver>;
  post(
    room: Room,
    body: string,
    authorKind?: 'member' | 'webhook' | 'agent' | 'system',
  ): Promise<string>;
  close(): Promise<void>;
}

export async function startWorld(
  env: Record<string, string>,
  options: { worker?: boolean } = {},
): Promise<World> {
  const ctx = await createTestContext(env);
  const box = new SecretBox(ctx.config.APP_SECRET);
  const workspace = await createWorkspace(ctx.db);
  const member = await createMember(ctx.db, workspace, { role: 'member' });
  const relay = runOutboxRelay({ db: ctx.db, config: ctx.config, logger: ctx.logger });
  let connections: Redis[] = [];
  let running: RunningWebhooksOut | null = null;
  if (options.worker !== false) {
    const connection = createRedisConnection(ctx.config.redis, { role: 'worker' });
    const producerConnection = createRedisConnection(ctx.config.redis, { role: 'producer' });
    connections = [connection, producerConnection];
    running = startWebhooksOut({
      config: ctx.config,
      settings: loadWebhooksOutSettings(ctx.env),
      db: ctx.db,
      logger: ctx.logger,
      connection,
      producerConnection,
    });
  }
  const receivers: Receiver[] = [];
  return {
    ctx,
    box,
    workspace,
    member,
    running,
    receivers,
    newRoom: () => createRoom(ctx.db, workspace, { members: [member] }),
    newHook: async (room, targetUrl) => {
      const { hook, secret } = await createOutgoingHook(ctx.db, box, {
        workspaceId: workspace.id,
        roomId: room.id,
        targetUrl,
        createdBy: member.id,
      });
      return { hookId: hook.id, secret };
    },
    newReceiver: async () => {
      const receiver = await new Receiver().start();
      receivers.push(receiver);
      return receiver;
    },
    post: async (room, body, authorKind = 'member') => {
      const message = await postMessage(ctx.db, {
        roomId: room.id,
        workspaceId: workspace.id,
        authorKind,
        authorMemberId: authorKind === 'member' ? member.id : null,
        authorRef: authorKind === 'member' ? null : 'ref_test',
        displayName: authorKind === 'member' ? 'Ada' : 'Bot',
        body,
      });
      return message.id;
    },
    close: async () => {
      await relay.stop();
      await running?.stop();
      for (const connection of connections) connection.disconnect();
      await Promise.all(receivers.map((r) => r.close()));
      await ctx.close();
    },
  };
}

/** The message id inside a delivered body. */
export function messageIdOf(body: string): string {
  const parsed = JSON.parse(body) as { message: { id: string } };
  return parsed.message.id;
}

/**
 * The webhooks-out workers started now, in this test process, on the world's stores (for tests
 * that post first and start the worker after, so a backlog is certain). `stop` closes them.
 */
export function startWorldWorker(world: World): {
  running: RunningWebhooksOut;
  stop: () => Promise<void>;
} {
  const connection = createRedisConnection(world.ctx.config.redis, { role: 'worker' });
  const producerConnection = createRedisConnection(world.ctx.config.redis, {
    role: 'producer',
  });
  const running = startWebhooksOut({
    config: world.ctx.config,
    settings: loadWebhooksOutSettings(world.ctx.env),
    db: world.ctx.db,
    logger: world.ctx.logger,
    connection,
    producerConnection,
  });
  return {
    running,
    stop: async () => {
      await running.stop();
      connection.disconnect();
      producerConnection.disconnect();
    },
  };
}
