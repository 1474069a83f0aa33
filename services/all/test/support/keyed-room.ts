import { SecretBox } from '@ferry/core';
import type { Member, Room, User, Workspace } from '@ferry/db';
import { createMember, createRoom, createWorkspace, type TestContext } from '@ferry/testing';
import { createIncomingKey } from '@ferry/workspace';

export interface KeyedRoom {
  workspace: Workspace;
  admin: Member & { user: User & { password: string } };
  room: Room;
  /** The room's incoming webhook key: POST /wh/in/<rawKey>. */
  rawKey: string;
}

/**
 * What a test of `pnpm start` posts through: a workspace, an admin in a room, and an incoming
 * webhook key on the room, made by the product's own functions.
 */
export async function keyedRoom(ctx: TestContext, name = 'Deploy bot'): Promise<KeyedRoom> {
  const workspace = await createWorkspace(ctx.db);
  const admin = await createMember(ctx.db, workspace, { role: 'admin' });
  const room = await createRoom(ctx.db, workspace, { members: [admin] });
  const { rawKey } = await createIncomingKey(ctx.db, new SecretBox(ctx.config.APP_SECRET), {
    workspaceId: workspace.id,
    roomId: room.id,
    name,
    createdBy: admin.id,
  });
  return { workspace, admin, room, rawKey };
}
