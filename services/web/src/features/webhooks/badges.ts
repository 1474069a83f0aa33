import type { Db, Message, Workspace } from '@ferry/db';
import { findRoomSeat, incomingKeyRooms } from '@ferry/workspace';
import { incomingKeyPath } from './views.js';

/**
 * Where each webhook message's badge links: the key's page under the key's own room (a key on
 * #general may post to #deploys), for a viewer who may manage webhooks and can see that room.
 * Keys that are deleted, or whose room the viewer cannot open, get no link (a plain badge).
 */
export async function webhookKeyLinks(
  db: Db,
  input: {
    workspace: Pick<Workspace, 'id' | 'slug'>;
    userId: string;
    canManageWebhooks: boolean;
    messages: readonly Pick<Message, 'author_kind' | 'author_ref'>[];
  },
): Promise<Map<string, string>> {
  const links = new Map<string, string>();
  if (!input.canManageWebhooks) return links;
  const keyIds = input.messages
    .filter((m) => m.author_kind === 'webhook' && m.author_ref)
    .map((m) => m.author_ref as string);
  const keyRooms = await incomingKeyRooms(db, input.workspace.id, keyIds);
  const visible = new Map<string, boolean>();
  for (const roomId of new Set(keyRooms.values())) {
    const seat = await findRoomSeat(db, {
      userId: input.userId,
      roomId,
      workspaceId: input.workspace.id,
    });
    visible.set(roomId, !!seat && seat.access !== 'hidden' && seat.room.kind !== 'dm');
  }
  for (const [keyId, roomId] of keyRooms) {
    if (visible.get(roomId)) links.set(keyId, incomingKeyPath(input.workspace, roomId, keyId));
  }
  return links;
}
