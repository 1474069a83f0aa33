import { AppError, isId, newId } from '@ferry/core';
import type { AuthorKind, Db, Message, MessageKind } from '@ferry/db';
import { writeEvent } from '@ferry/queues';
import { z } from 'zod';
import { mentionedHandles, mentionHandles, type MentionHandles } from './mentions.js';

/**
 * Messages: one way in (`postMessage`) for every author - members on the room page, incoming
 * webhooks, agents, system notices from dispatch - so each message gets its outbox event and the
 * same validation wherever it comes from. Bodies are stored raw; markdown is rendered at read time.
 */

export const MESSAGE_BODY_MAX = 20_000;

export const messageBodySchema = z
  .string('Write a message.')
  .trim()
  .min(1, 'Write a message.')
  .max(MESSAGE_BODY_MAX, `At most ${MESSAGE_BODY_MAX.toLocaleString('en-US')} characters.`);

export const postMessageSchema = z.object({ body: messageBodySchema });

export interface PostMessageInput {
  roomId: string;
  workspaceId: string;
  authorKind: AuthorKind;
  /** The member's seat for author_kind 'member'; null otherwise. */
  authorMemberId?: string | null;
  /** The non-member author: incoming webhook key id, agent id, ... */
  authorRef?: string | null;
  displayName: string;
  body: string;
  kind?: MessageKind;
  metadata?: Record<string, unknown>;
}

/**
 * Stores a message and its `message_created` outbox event in one transaction: the event exists
 * exactly when the message does (DESIGN.md, transactional outbox). Given a transaction, it joins
 * it, so callers can add their own writes (an idempotency record) to the same commit.
 *
 * The caller has checked the author may post in the room; this only validates the message itself.
 * Throws a 422 AppError naming `body` for an empty or over-long body.
 */
export async function postMessage(db: Db, input: PostMessageInput): Promise<Message> {
  const parsed = messageBodySchema.safeParse(input.body);
  if (!parsed.success) {
    const problem = parsed.error.issues[0]?.message ?? 'Write a message.';
    throw new AppError('validation_failed', `The message is not valid: ${problem}`, {
      fields: { body: problem },
    });
  }
  const displayName = input.displayName.trim().slice(0, 200) || 'Unknown';
  if (input.authorKind === 'member' && !input.authorMemberId) {
    throw new Error('postMessage: a member message needs authorMemberId');
  }
  const write = async (trx: Db): Promise<Message> => {
    const message = await trx
      .insertInto('messages')
      .values({
        id: newId('message'),
        room_id: input.roomId,
        workspace_id: input.workspaceId,
        author_kind: input.authorKind,
        author_member_id: input.authorMemberId ?? null,
        author_ref: input.authorRef ?? null,
        display_name: displayName,
        body: parsed.data,
        kind: input.kind ?? 'text',
        metadata: JSON.stringify(input.metadata ?? {}),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await writeEvent(trx, 'message_created', {
      messageId: message.id,
      roomId: message.room_id,
      workspaceId: message.workspace_id,
      authorKind: message.author_kind,
    });
    if (message.author_kind === 'member') {
      const agentIds = await addressedAgents(trx, message);
      if (agentIds.length) {
        await writeEvent(trx, 'agent_addressed', {
          messageId: message.id,
          roomId: message.room_id,
          workspaceId: message.workspace_id,
          agentIds,
        });
      }
    }
    return message;
  };
  return db.isTransaction ? write(db) : db.transaction().execute(write);
}

/**
 * The local agents a member's message is for (DESIGN.md): the agent whose own room it is posted
 * in, and in a ticket conversation every agent it @-mentions. One indexed query per member message.
 */
async function addressedAgents(
  trx: Db,
  message: Pick<Message, 'room_id' | 'workspace_id' | 'body'>,
): Promise<string[]> {
  const handles = mentionedHandles(message.body).slice(0, 50);
  const rows = await trx
    .selectFrom('agents')
    .innerJoin('rooms', (join) => join.on('rooms.id', '=', message.room_id))
    .select('agents.id')
    .where('agents.workspace_id', '=', message.workspace_id)
    .where((eb) =>
      handles.length
        ? eb.or([
            eb('agents.room_id', '=', message.room_id),
            eb.and([
              eb('rooms.kind', '=', 'conversation'),
              eb(eb.fn('lower', ['agents.name']), 'in', handles),
            ]),
          ])
        : eb('agents.room_id', '=', message.room_id),
    )
    .orderBy('agents.id')
    .limit(50)
    .execute();
  return rows.map((row) => row.id);
}

export const MESSAGE_PAGE = 100;

/**
 * The room's messages, oldest first: the latest page, or with `before` the page that ends just
 * before that message. `more` says whether older messages exist.
 */
export async function listMessages(
  db: Db,
  roomId: string,
  options: { before?: string | undefined; limit?: number } = {},
): Promise<{ messages: Message[]; more: boolean }> {
  const limit = options.limit ?? MESSAGE_PAGE;
  let query = db
    .selectFrom('messages')
    .selectAll()
    .where('room_id', '=', roomId)
    .orderBy('id', 'desc')
    .limit(limit + 1);
  if (options.before) query = query.where('id', '<', options.before);
  const rows = await query.execute();
  return { messages: rows.slice(0, limit).reverse(), more: rows.length > limit };
}

export function findMessage(
  db: Db,
  roomId: string,
  messageId: string,
): Promise<Message | undefined> {
  if (!isId(messageId, 'message')) return Promise.resolve(undefined);
  return db
    .selectFrom('messages')
    .selectAll()
    .where('room_id', '=', roomId)
    .where('id', '=', messageId)
    .executeTakeFirst();
}

/** The `@handles` of the workspace's active members, for highlighting mentions. */
export async function workspaceMentionHandles(
  db: Db,
  workspaceId: string,
): Promise<MentionHandles> {
  const rows = await db
    .selectFrom('members')
    .innerJoin('users', 'users.id', 'members.user_id')
    .select('users.name')
    .where('members.workspace_id', '=', workspaceId)
    .where('members.left_at', 'is', null)
    .execute();
  return mentionHandles(rows.map((r) => r.name));
}
