import { AppError, firstIdAt, idTime, isId, newId } from '@ferry/core';
import type { AuthorKind, Db, Message, MessageKind, NewMessage } from '@ferry/db';
import { outboxRows, writeEvents, type OutboxEvent } from '@ferry/queues';
import { sql } from 'kysely';
import { z } from 'zod';
import { activeSeatNames } from '../members/members.js';
import {
  BROADCAST_HANDLES,
  mentionedHandles,
  mentionHandles,
  type MentionHandles,
} from './mentions.js';
import { recordMentions } from './notifications.js';
import { emitWorkspaceEvents, messageData, workspaceEvent } from '../event-webhooks/index.js';

/**
 * Messages: one way in (`postMessage`, or `postMessages` for a batch) for every author - members
 * on the room page, incoming webhooks, agents, system notices from dispatch - so each message gets
 * its outbox event and the same validation wherever it comes from. Bodies are stored raw; markdown
 * is rendered at read time.
 */

export const MESSAGE_BODY_MAX = 20_000;

export const messageBodySchema = z
  .string('Write a message.')
  .trim()
  .min(1, 'Write a message.')
  .max(MESSAGE_BODY_MAX, `At most ${MESSAGE_BODY_MAX.toLocaleString('en-US')} characters.`);

export const postMessageSchema = z.object({ body: messageBodySchema });

export interface PostMessageInput {
  /**
   * The message's id, when the caller must know it before the insert (an idempotency record that
   * names it, written first in the same transaction); a new one otherwise.
   */
  id?: string;
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
  /**
   * What the message was rendered from, when it came from another system (an incoming webhook's
   * payload, capped by the caller): stored beside it in message_payloads.
   */
  originalPayload?: OriginalPayload;
}

export interface OriginalPayload {
  format: string;
  payload: string;
  truncated: boolean;
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
  const [message] = await postMessages(db, [input]);
  if (!message) throw new Error('postMessage: the insert returned no row');
  return message;
}

/**
 * postMessage for many messages at once (a group commit): the same validation and rules, one
 * INSERT for the messages and one for their outbox events (plus one query per member message to
 * find the agents it addresses, and the mentions' few: see recordMentions). All or nothing: one invalid input throws before anything is
 * written. Returns the messages in the order given.
 */
export async function postMessages(
  db: Db,
  inputs: readonly PostMessageInput[],
): Promise<Message[]> {
  const rows = inputs.map(messageRow);
  if (!rows.length) return [];
  const payloads = inputs.flatMap((input, i) =>
    input.originalPayload ? [{ message_id: rows[i]!.id, ...input.originalPayload }] : [],
  );
  // Each message's message_created event is known before the INSERT (ids are made here).
  const created = outboxRows(
    rows.map((row) => ({
      type: 'message_created' as const,
      payload: {
        messageId: row.id,
        roomId: row.room_id,
        workspaceId: row.workspace_id,
        authorKind: row.author_kind,
      },
    })),
  );
  const write = async (trx: Db): Promise<Message[]> => {
    const inserted = await insertMessages(trx, rows, payloads, created);
    // RETURNING's order is not promised: put the rows back in the caller's order by id.
    const byId = new Map(inserted.map((message) => [message.id, message]));
    const messages = rows.map(({ id }) => {
      const message = byId.get(id);
      if (!message) throw new Error(`postMessages: no row returned for ${id}`);
      return message;
    });
    // A member's message may address agents: those events need a lookup, so they follow in a
    // statement of their own (after every message_created of the batch, which they never precede).
    const events: OutboxEvent[] = [];
    for (const message of messages) {
      if (message.author_kind !== 'member') continue;
      const agentIds = await addressedAgents(trx, message);
      if (agentIds.length) {
        events.push({
          type: 'agent_addressed',
          payload: {
            messageId: message.id,
            roomId: message.room_id,
            workspaceId: message.workspace_id,
            agentIds,
          },
        });
      }
    }
    await writeEvents(trx, events);
    // Issue 44: a member's message is a message.created event for the endpoints that chose its
    // room (the loop guard of room hooks: webhook, agent and system messages never go out).
    const members = messages.filter((message) => message.author_kind === 'member');
    await emitWorkspaceEvents(
      trx,
      members.map((message) =>
        workspaceEvent({
          workspaceId: message.workspace_id,
          type: 'message.created',
          data: { message: messageData(message) },
          roomId: message.room_id,
        }),
      ),
    );
    await recordMentions(trx, messages);
    return messages;
  };
  return db.isTransaction ? write(db) : db.transaction().execute(write);
}

/** Validates one input and turns it into its messages row (the rules every message follows). */
function messageRow(input: PostMessageInput): NewMessage & { id: string } {
  const parsed = messageBodySchema.safeParse(input.body);
  if (!parsed.success) {
    const problem = parsed.error.issues[0]?.message ?? 'Write a message.';
    throw new AppError('validation_failed', `The message is not valid: ${problem}`, {
      fields: { body: problem },
    });
  }
  if (input.authorKind === 'member' && !input.authorMemberId) {
    throw new Error('postMessage: a member message needs authorMemberId');
  }
  if (input.id !== undefined && !isId(input.id, 'message')) {
    throw new Error('postMessage: input.id is not a message id');
  }
  return {
    id: input.id ?? newId('message'),
    room_id: input.roomId,
    workspace_id: input.workspaceId,
    author_kind: input.authorKind,
    author_member_id: input.authorMemberId ?? null,
    author_ref: input.authorRef ?? null,
    display_name: input.displayName.trim().slice(0, 200) || 'Unknown',
    body: parsed.data,
    kind: input.kind ?? 'text',
    metadata: JSON.stringify(input.metadata ?? {}),
  };
}

/**
 * The messages, their original payloads and their message_created events in one statement
 * (data-modifying CTEs; the payloads' foreign key is checked at the statement's end): in the group
 * commit of incoming posts every statement of a batch is a round trip, and one more cost ~8% of the
 * throughput. Fixed text with one array per column (unnest), whatever the batch's size: a VALUES
 * list built by the query builder cost the incoming path about a tenth of its CPU in perf, in the
 * app building and compiling it value by value and in Postgres parsing it (issue 48).
 */
async function insertMessages(
  trx: Db,
  rows: readonly (NewMessage & { id: string })[],
  payloads: readonly ({ message_id: string } & OriginalPayload)[],
  events: readonly { id: string; type: string; payload: string }[],
): Promise<Message[]> {
  const column = <K extends keyof (NewMessage & { id: string })>(key: K) =>
    rows.map((row) => row[key] ?? null);
  const { rows: inserted } = await sql<Message>`
    with events as (
      insert into outbox (id, type, payload)
      select * from unnest(
        ${events.map((e) => e.id)}::text[],
        ${events.map((e) => e.type)}::text[],
        ${events.map((e) => e.payload)}::jsonb[])
    ), payloads as (
      insert into message_payloads (message_id, format, payload, truncated)
      select * from unnest(
        ${payloads.map((p) => p.message_id)}::text[],
        ${payloads.map((p) => p.format)}::text[],
        ${payloads.map((p) => p.payload)}::text[],
        ${payloads.map((p) => p.truncated)}::bool[])
    )
    insert into messages (id, room_id, workspace_id, author_kind, author_member_id, author_ref,
      display_name, body, kind, metadata)
    select * from unnest(
      ${column('id')}::text[],
      ${column('room_id')}::text[],
      ${column('workspace_id')}::text[],
      ${column('author_kind')}::text[],
      ${column('author_member_id')}::text[],
      ${column('author_ref')}::text[],
      ${column('display_name')}::text[],
      ${column('body')}::text[],
      ${rows.map((row) => row.kind ?? 'text')}::text[],
      ${rows.map((row) => row.metadata ?? '{}')}::jsonb[])
    returning *`.execute(trx);
  return inserted;
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

/**
 * The original payloads of those of `messageIds` that have one (webhook messages), by message id:
 * what the room page's "view payload" disclosure shows admins. One indexed read for a page.
 */
export async function messagePayloads(
  db: Db,
  messageIds: readonly string[],
): Promise<Map<string, OriginalPayload>> {
  if (!messageIds.length) return new Map();
  const rows = await db
    .selectFrom('message_payloads')
    .select(['message_id', 'format', 'payload', 'truncated'])
    .where('message_id', 'in', messageIds)
    .execute();
  return new Map(
    rows.map((row) => [
      row.message_id,
      { format: row.format, payload: row.payload, truncated: row.truncated },
    ]),
  );
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

/**
 * The message just before `messageId` in the room (ids sort by creation time), if any: what a
 * message rendered on its own (live, or in a send's answer) is grouped with.
 */
export function messageBefore(
  db: Db,
  roomId: string,
  messageId: string,
): Promise<Message | undefined> {
  return db
    .selectFrom('messages')
    .selectAll()
    .where('room_id', '=', roomId)
    .where('id', '<', messageId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * The message and the one just before it in the room, in one read: what the live path renders
 * (grouped with its predecessor exactly as the room page groups them). Undefined when the message
 * is not in the room.
 */
export async function findMessageWithPrevious(
  db: Db,
  roomId: string,
  messageId: string,
): Promise<{ message: Message; previous: Message | undefined } | undefined> {
  if (!isId(messageId, 'message')) return undefined;
  const rows = await db
    .selectFrom('messages')
    .selectAll()
    .where('room_id', '=', roomId)
    .where('id', '<=', messageId)
    .orderBy('id', 'desc')
    .limit(2)
    .execute();
  const [message, previous] = rows;
  if (message?.id !== messageId) return undefined;
  return { message, previous };
}

/** A reconnecting page's catch-up is sent in pages of this many messages (all of them, in turn). */
export const CATCH_UP_MAX = 100;

/**
 * How far before the page's newest message a catch-up starts. A message's id is made when its
 * transaction writes it, and transactions commit out of order: another process's group commit may
 * commit a message older than the newest one the page has after it, while the page is away. Such
 * a message is sent again on the next join only if the catch-up looks back past the page's newest;
 * the page drops what it already has (room.js). A commit later than this after its id was made is
 * the rare one a page shows only on its next load.
 */
export const CATCH_UP_LOOKBACK_MS = 5_000;

/** Where a page's catch-up starts (exclusive), given the newest message it has. */
export function catchUpFrom(after: string): string {
  const made = idTime(after);
  return made ? firstIdAt('message', new Date(made.getTime() - CATCH_UP_LOOKBACK_MS)) : after;
}

/**
 * The room's messages after `afterId`, oldest first (ids sort by creation time): what a page that
 * rendered up to that message missed before its live connection joined the room.
 */
export function messagesAfter(
  db: Db,
  roomId: string,
  afterId: string,
  limit = CATCH_UP_MAX,
): Promise<Message[]> {
  return db
    .selectFrom('messages')
    .selectAll()
    .where('room_id', '=', roomId)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The `@handles` of the workspace's active members, for highlighting mentions. */
export async function workspaceMentionHandles(
  db: Db,
  workspaceId: string,
): Promise<MentionHandles> {
  const seats = await activeSeatNames(db, [workspaceId]);
  // `@here` and the like mention the room (recordMentions), so they are highlighted as mentions.
  return new Set([...mentionHandles(seats.map((seat) => seat.name)), ...BROADCAST_HANDLES]);
}
