import { isId } from '@ferry/core';
import type { Db, MentionReason, Member, Message, Role, RoomKind } from '@ferry/db';
import { sql } from 'kysely';
import { activeSeatNames } from '../members/members.js';
import { BROADCAST_HANDLES, mentionedHandles, mentionHandles } from './mentions.js';
import { roomAccess, roomsWithSeats } from '../rooms/rooms.js';

/**
 * Notifications (issue #13): unread counts per room and the Mentions list.
 *
 * - A seat's unread messages in a room are those after its `last_read_message_id` (message ids sort
 *   by time) that it did not write. Reading the room (its page, or a live message arriving while
 *   the page is in view) moves the mark forward; it never moves back.
 * - A mention is a message that asks for a seat's attention: an `@handle` of theirs, `@here`,
 *   `@channel` or `@everyone` in a room they sit in (an incoming webhook's `<!here>`), or an agent's
 *   (or GitHub's) reply in the conversation of a ticket assigned to them. Rows are written in the
 *   message's own transaction (postMessages), so a mention exists exactly when its message does.
 *   Who may open the room is decided when mentions are read: access changes after writing.
 */

/** Counts stop here: a badge says "99+", and a busy room's count never scans its history. */
export const UNREAD_COUNT_LIMIT = 100;

const ROOM_KINDS: readonly RoomKind[] = ['channel', 'dm', 'conversation', 'agent'];

/** The kinds of room this role may open without a seat in them (see roomAccess). */
export function kindsOpenWithoutSeat(role: Role): RoomKind[] {
  return ROOM_KINDS.filter((kind) => roomAccess(kind, role, false) === 'open');
}

type MentionedMessage = Pick<
  Message,
  'id' | 'room_id' | 'workspace_id' | 'author_kind' | 'author_member_id' | 'body'
>;

/**
 * Writes the mentions of freshly inserted messages, in the caller's transaction. At most one read
 * of the workspaces' seats (only when some message has an `@`) and one of the tickets (only when
 * an agent or the system wrote some): a batch without either costs nothing.
 */
export async function recordMentions(
  trx: Db,
  messages: readonly MentionedMessage[],
): Promise<void> {
  const rows = new Map<
    string,
    { member_id: string; message_id: string; room_id: string; reason: MentionReason }
  >();
  const add = (memberId: string, message: MentionedMessage, reason: MentionReason): void => {
    // Oneself is never notified; a reply that also @-mentions keeps the first reason.
    if (memberId === message.author_member_id) return;
    const key = `${memberId} ${message.id}`;
    if (!rows.has(key)) {
      rows.set(key, {
        member_id: memberId,
        message_id: message.id,
        room_id: message.room_id,
        reason,
      });
    }
  };

  const mentioning = messages
    .map((message) => ({ message, handles: mentionedHandles(message.body).slice(0, 50) }))
    .filter((entry) => entry.handles.length > 0);
  if (mentioning.length) {
    const seats = await activeSeatNames(
      trx,
      mentioning.map((entry) => entry.message.workspace_id),
    );
    const byHandle = new Map<string, string[]>();
    for (const seat of seats) {
      for (const handle of mentionHandles([seat.name])) {
        const key = `${seat.workspace_id} ${handle}`;
        byHandle.set(key, [...(byHandle.get(key) ?? []), seat.id]);
      }
    }
    for (const { message, handles } of mentioning) {
      for (const handle of handles) {
        for (const memberId of byHandle.get(`${message.workspace_id} ${handle}`) ?? []) {
          add(memberId, message, 'mention');
        }
      }
    }
    // `@here`/`@channel`/`@everyone`: every active seat in the room (one read for the batch).
    const broadcasts = mentioning
      .filter((entry) => entry.handles.some((handle) => BROADCAST_HANDLES.has(handle)))
      .map((entry) => entry.message);
    if (broadcasts.length) {
      const roomSeats = await trx
        .selectFrom('room_members as rm')
        .innerJoin('members as m', 'm.id', 'rm.member_id')
        .select(['rm.room_id', 'rm.member_id'])
        .where('rm.room_id', 'in', [...new Set(broadcasts.map((message) => message.room_id))])
        .where('rm.left_at', 'is', null)
        .where('m.left_at', 'is', null)
        .execute();
      for (const message of broadcasts) {
        for (const seat of roomSeats) {
          if (seat.room_id === message.room_id) add(seat.member_id, message, 'mention');
        }
      }
    }
  }

  const replies = messages.filter((m) => m.author_kind === 'agent' || m.author_kind === 'system');
  if (replies.length) {
    const tickets = await trx
      .selectFrom('feedback')
      .select(['room_id', 'assignee_member_id'])
      .where('room_id', 'in', [...new Set(replies.map((m) => m.room_id))])
      .where('assignee_member_id', 'is not', null)
      .execute();
    const assignees = new Map(tickets.map((t) => [t.room_id, t.assignee_member_id]));
    for (const message of replies) {
      const assignee = assignees.get(message.room_id);
      if (assignee) add(assignee, message, 'ticket_reply');
    }
  }

  if (rows.size) {
    await trx
      .insertInto('mentions')
      .values([...rows.values()])
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}

export interface SidebarRoom {
  id: string;
  kind: RoomKind;
  name: string;
  /** Unread messages, at most UNREAD_COUNT_LIMIT. */
  unread: number;
}

/**
 * The sidebar lists at most this many of the seat's rooms, those with unread messages first: a
 * seat in 1,000 rooms (the form fuzz's owner) would otherwise get all of them on every page. The
 * rest are a link away (the paged Rooms page).
 */
export const SIDEBAR_ROOMS_MAX = 30;

export interface UnreadState {
  workspaceId: string;
  /**
   * The seat's rooms for the sidebar (joined channels, DMs and agent rooms), by name: at most
   * SIDEBAR_ROOMS_MAX, unread ones first.
   */
  rooms: SidebarRoom[];
  /** All the seat's sidebar rooms, listed or not. */
  roomCount: number;
  /** Unread mentions in rooms the seat may open, at most UNREAD_COUNT_LIMIT. */
  mentions: number;
}

type Seat = Pick<Member, 'id' | 'role' | 'workspace_id'>;

/**
 * Mentions of this seat in rooms it may open right now (a seat in the room, or a room its role
 * opens without one), for the count and the list alike.
 */
function visibleMentions(db: Db, seat: Seat) {
  const open = kindsOpenWithoutSeat(seat.role);
  return roomsWithSeats(db)
    .innerJoin('mentions', (join) =>
      join
        .onRef('mentions.room_id', '=', 'rooms.id')
        .onRef('mentions.member_id', '=', 'members.id'),
    )
    .where('members.id', '=', seat.id)
    .where((eb) =>
      open.length
        ? eb.or([eb('room_members.member_id', 'is not', null), eb('rooms.kind', 'in', open)])
        : eb('room_members.member_id', 'is not', null),
    );
}

/**
 * The sidebar's counts: two indexed reads, each bounded by UNREAD_COUNT_LIMIT rows per room, in
 * one statement (every workspace page runs it): the one-row mention count, with the seat's rooms
 * joined beside it (none: one row of nulls).
 */
export async function unreadState(db: Db, seat: Seat): Promise<UnreadState> {
  const mentions = db
    .selectFrom(
      visibleMentions(db, seat)
        .where('mentions.read_at', 'is', null)
        .select('mentions.message_id')
        .limit(UNREAD_COUNT_LIMIT)
        .as('unread'),
    )
    .select((eb) => eb.fn.countAll<string>().as('n'));
  const rooms = db
    .selectFrom('room_members')
    .innerJoin('rooms', 'rooms.id', 'room_members.room_id')
    .select(['rooms.id', 'rooms.kind', 'rooms.name'])
    .select(
      sql<number>`(select count(*)::int from (
          select 1 from messages
          where messages.room_id = rooms.id
            and messages.id > coalesce(room_members.last_read_message_id, '')
            and messages.author_member_id is distinct from room_members.member_id
          limit ${UNREAD_COUNT_LIMIT}) unread)`.as('unread'),
    )
    .select(sql<string>`count(*) over ()`.as('total'))
    .where('room_members.member_id', '=', seat.id)
    .where('room_members.left_at', 'is', null)
    // A ticket's conversation is reached from the inbox and the Mentions list, not the sidebar.
    .where('rooms.kind', '!=', 'conversation');
  const rows = await db
    .selectFrom(mentions.as('m'))
    .leftJoin(rooms.as('r'), (join) => join.onTrue())
    .select(['m.n', 'r.id', 'r.kind', 'r.name', 'r.unread', 'r.total'])
    .orderBy(sql`r.unread > 0`, 'desc')
    .orderBy('r.name')
    .limit(SIDEBAR_ROOMS_MAX)
    .execute();
  const sidebar: SidebarRoom[] = [];
  for (const { id, kind, name, unread } of rows) {
    if (id !== null && kind !== null && name !== null && unread !== null)
      sidebar.push({ id, kind, name, unread });
  }
  // Unread first chose which rooms are listed; they are shown by name.
  sidebar.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    workspaceId: seat.workspace_id,
    rooms: sidebar,
    roomCount: Number(rows[0]?.total ?? 0),
    mentions: Number(rows[0]?.n ?? 0),
  };
}

/**
 * The seat has read the room up to `messageId` (a message of that room): its unread mark moves
 * there unless it is already further, and its mentions there up to it are read. Returns how many
 * mentions that read. A message id of another room, or none, changes nothing.
 */
export async function markRoomRead(
  db: Db,
  { memberId, roomId, messageId }: { memberId: string; roomId: string; messageId: string },
): Promise<number> {
  if (!isId(messageId, 'message') || !isId(roomId, 'room')) return 0;
  const inRoom = await db
    .selectFrom('messages')
    .select('id')
    .where('id', '=', messageId)
    .where('room_id', '=', roomId)
    .executeTakeFirst();
  if (!inRoom) return 0;
  const [, mentions] = await Promise.all([
    db
      .updateTable('room_members')
      .set({ last_read_message_id: messageId })
      .where('room_id', '=', roomId)
      .where('member_id', '=', memberId)
      .where('left_at', 'is', null)
      .where((eb) =>
        eb.or([eb('last_read_message_id', 'is', null), eb('last_read_message_id', '<', messageId)]),
      )
      .execute(),
    db
      .updateTable('mentions')
      .set({ read_at: new Date() })
      .where('member_id', '=', memberId)
      .where('room_id', '=', roomId)
      .where('message_id', '<=', messageId)
      .where('read_at', 'is', null)
      .executeTakeFirst(),
  ]);
  return Number(mentions.numUpdatedRows);
}

/** Every mention of the seat is read (it opened its Mentions list). */
export async function markMentionsRead(db: Db, memberId: string): Promise<void> {
  await db
    .updateTable('mentions')
    .set({ read_at: new Date() })
    .where('member_id', '=', memberId)
    .where('read_at', 'is', null)
    .execute();
}

export const MENTIONS_PAGE = 30;

export interface MentionItem {
  message: Message;
  room: { id: string; kind: RoomKind; name: string };
  /** The ticket whose conversation the room is, if it is one. */
  ticket: { id: string; title: string } | undefined;
  reason: MentionReason;
  unread: boolean;
}

/** A page of the seat's mentions, newest first, with how many there are in all. */
export async function listMentions(
  db: Db,
  seat: Seat,
  { page }: { page: number },
): Promise<{ items: MentionItem[]; total: number }> {
  const [rows, total] = await Promise.all([
    visibleMentions(db, seat)
      .innerJoin('messages', 'messages.id', 'mentions.message_id')
      .leftJoin('feedback', 'feedback.room_id', 'mentions.room_id')
      .selectAll('messages')
      .select([
        'rooms.kind as room_kind',
        'rooms.name as room_name',
        'mentions.reason',
        'mentions.read_at',
        'feedback.id as ticket_id',
        'feedback.title as ticket_title',
        'feedback.note as ticket_note',
      ])
      .orderBy('mentions.message_id', 'desc')
      .limit(MENTIONS_PAGE)
      .offset((page - 1) * MENTIONS_PAGE)
      .execute(),
    visibleMentions(db, seat)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return {
    items: rows.map(
      ({
        room_kind,
        room_name,
        reason,
        read_at,
        ticket_id,
        ticket_title,
        ticket_note,
        ...message
      }) => ({
        message,
        room: { id: message.room_id, kind: room_kind, name: room_name },
        ticket: ticket_id ? { id: ticket_id, title: ticket_title ?? ticket_note ?? '' } : undefined,
        reason,
        unread: read_at === null,
      }),
    ),
    total: Number(total.n),
  };
}

/** Who, among `userIds`, a stored message changes a count for, and how. */
export interface UnreadChange {
  userId: string;
  messageId: string;
  roomId: string;
  workspaceId: string;
  /** The user has a seat in the room: its unread count grows. */
  seated: boolean;
  /** It mentions the user (or replies on their ticket) in a room they may open. */
  mention: boolean;
}

/**
 * For live counts: of the users a process holds sockets for, those each message concerns. One
 * read for a whole announced batch. The author never counts their own message.
 */
export async function unreadChanges(
  db: Db,
  messageIds: readonly string[],
  userIds: readonly string[],
): Promise<UnreadChange[]> {
  if (!messageIds.length || !userIds.length) return [];
  // Every active seat of the message's workspace, with its room seat if it has one.
  const rows = await roomsWithSeats(db)
    .innerJoin('messages', 'messages.room_id', 'rooms.id')
    .leftJoin('mentions', (join) =>
      join
        .onRef('mentions.message_id', '=', 'messages.id')
        .onRef('mentions.member_id', '=', 'members.id'),
    )
    .select([
      'messages.id as message_id',
      'messages.room_id',
      'messages.workspace_id',
      'rooms.kind',
      'members.user_id',
      'members.role',
      'room_members.member_id as seat',
      'mentions.member_id as mentioned',
    ])
    .where('messages.id', 'in', [...new Set(messageIds)])
    .where('members.user_id', 'in', [...new Set(userIds)])
    .where((eb) =>
      eb.or([
        eb('room_members.member_id', 'is not', null),
        eb('mentions.member_id', 'is not', null),
      ]),
    )
    .where((eb) =>
      eb.or([
        eb('messages.author_member_id', 'is', null),
        eb('messages.author_member_id', '!=', eb.ref('members.id')),
      ]),
    )
    .execute();
  return rows
    .map((row) => {
      const seated = row.seat !== null;
      return {
        userId: row.user_id,
        messageId: row.message_id,
        roomId: row.room_id,
        workspaceId: row.workspace_id,
        // A conversation is not in the sidebar: only its mentions count.
        seated: seated && row.kind !== 'conversation',
        mention: row.mentioned !== null && roomAccess(row.kind, row.role, seated) === 'open',
      };
    })
    .filter((change) => change.seated || change.mention);
}
