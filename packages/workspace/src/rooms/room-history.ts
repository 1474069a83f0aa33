import { isId } from '@ferry/core';
import type { AuthorKind, Db, Message, RoomKind } from '@ferry/db';
import { z } from 'zod';

/**
 * The rooms API's reads (`GET /api/v1/rooms`, `/rooms/:id/messages`): the workspace's shared rooms
 * as an API token sees them. A token holds no seat, so these read at the workspace level instead of
 * through listRooms (which answers for one member); what a token may see is decided here, once:
 * channels, agent rooms and ticket conversations, never direct messages. A room of another
 * workspace, or a DM, reads exactly like one that never existed.
 */

/** Rooms an API token may read: everything but direct messages. */
const READABLE_KINDS: readonly RoomKind[] = ['channel', 'agent', 'conversation'];

export const HISTORY_PAGE_MAX = 200;
export const HISTORY_PAGE_DEFAULT = 50;

const ROOM_KINDS = [
  'channel',
  'dm',
  'conversation',
  'agent',
] as const satisfies readonly RoomKind[];
const AUTHOR_KINDS = [
  'member',
  'webhook',
  'agent',
  'system',
] as const satisfies readonly AuthorKind[];

/** A room as the API answers it (issue 46: the schema is the description and the type). */
export const apiRoomJsonSchema = z
  .object({
    id: z.string().meta({ example: 'room_01m95vcs448p8d8nkpkmbpan9e' }),
    name: z.string().meta({ example: 'support' }),
    kind: z.enum(ROOM_KINDS).meta({
      description: 'Never `dm`: direct messages are not readable with a token.',
    }),
  })
  .meta({ id: 'Room' });
export type ApiRoomJson = z.infer<typeof apiRoomJsonSchema>;

/**
 * A message as JSON wherever it leaves us: the rooms API's history and the `message` of every
 * outgoing webhook payload (services/webhooks-out payload.ts, DESIGN.md "Payload"). Outgoing
 * deliveries are signed over their raw bytes, so apiMessageJson's key order is part of the format.
 */
export const apiMessageJsonSchema = z
  .object({
    id: z.string().meta({ example: 'msg_01m95vf7e1wft897bnf3hv3khf' }),
    room_id: z.string(),
    body: z.string(),
    sender: z.object({
      type: z.enum(AUTHOR_KINDS),
      id: z.string().nullable().meta({
        description: 'A member’s id, or the webhook key or agent the message came through.',
      }),
      name: z.string(),
    }),
    created_at: z.iso.datetime({ offset: true }).meta({ description: 'ISO 8601, UTC.' }),
  })
  .meta({ id: 'Message' });
export type ApiMessageJson = z.infer<typeof apiMessageJsonSchema>;

export async function readableRooms(db: Db, workspaceId: string): Promise<ApiRoomJson[]> {
  return db
    .selectFrom('rooms')
    .select(['id', 'name', 'kind'])
    .where('workspace_id', '=', workspaceId)
    .where('kind', 'in', READABLE_KINDS)
    .orderBy('kind')
    .orderBy('name')
    .orderBy('id')
    .execute();
}

/** The room if the workspace has it and a token may read it. */
export async function findReadableRoom(
  db: Db,
  workspaceId: string,
  roomId: string,
): Promise<ApiRoomJson | undefined> {
  if (!isId(roomId, 'room')) return undefined;
  return db
    .selectFrom('rooms')
    .select(['id', 'name', 'kind'])
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', roomId)
    .where('kind', 'in', READABLE_KINDS)
    .executeTakeFirst();
}

/**
 * One page of a room's messages, newest first, as Slack's conversations.history pages: `before`
 * is the oldest id of the previous page, and `nextBefore` is set while older messages remain.
 * Message ids sort by creation time, so the id alone is the cursor.
 */
export async function roomHistory(
  db: Db,
  roomId: string,
  options: { limit: number; before?: string | undefined },
): Promise<{ messages: Message[]; nextBefore: string | null }> {
  let query = db
    .selectFrom('messages')
    .selectAll()
    .where('room_id', '=', roomId)
    .orderBy('id', 'desc')
    .limit(options.limit + 1);
  if (options.before) query = query.where('id', '<', options.before);
  const rows = await query.execute();
  const messages = rows.slice(0, options.limit);
  return {
    messages,
    nextBefore: rows.length > options.limit ? (messages.at(-1)?.id ?? null) : null,
  };
}

/** The columns apiMessageJson reads: a whole row, or the few a caller selected. */
export type MessageJsonSource = Pick<
  Message,
  | 'id'
  | 'room_id'
  | 'body'
  | 'author_kind'
  | 'author_member_id'
  | 'author_ref'
  | 'display_name'
  | 'created_at'
>;

export function apiMessageJson(message: MessageJsonSource): ApiMessageJson {
  return {
    id: message.id,
    room_id: message.room_id,
    body: message.body,
    sender: {
      type: message.author_kind,
      // A member's seat id, or the webhook key / agent the message came through.
      id: message.author_member_id ?? message.author_ref,
      name: message.display_name,
    },
    created_at: message.created_at.toISOString(),
  };
}
