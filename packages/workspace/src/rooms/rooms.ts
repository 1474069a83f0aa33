import { AppError, isId, newId } from '@ferry/core';
import type { Db, Member, Role, Room, RoomKind } from '@ferry/db';
import { sql } from 'kysely';
import { z } from 'zod';
import { can, type Capability } from '../members/capabilities.js';
import { seatRoles } from '../members/seat-roles.js';
import { listPage, pageWindow, type ListPage, type PageRequest } from '../common/paging.js';

/**
 * Rooms and who may open them. Every check reads the database (room seat AND workspace seat both
 * active), on every request and before every live delivery, so leaving a room or being removed
 * from the workspace cuts access at once: there is no cached membership anywhere.
 */

export const ROOM_NAME_MAX = 80;

/**
 * Slack-like channel names: lower case, words joined by dashes, a leading `#` ignored
 * ("Support & Billing" -> support-billing). Letters of any script are kept.
 */
export function toRoomName(input: string): string {
  return input
    .trim()
    .replace(/^#+/, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_-]+/gu, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, ROOM_NAME_MAX);
}

export const createRoomSchema = z.object({
  name: z
    .string('Give the room a name.')
    .trim()
    .min(1, 'Give the room a name.')
    .max(ROOM_NAME_MAX, `At most ${ROOM_NAME_MAX} characters.`)
    .transform(toRoomName)
    .refine((name) => name.length > 0, 'Use at least one letter or digit.'),
});

/**
 * What a seat may do with a room:
 * - `open`: read and post. Joined rooms of any kind; conversation rooms (feedback tickets) also for
 *   anyone who may read feedback, joined or not.
 * - `join`: a channel the seat may join (rooms.browse) but has not; nothing is shown until it does.
 * - `hidden`: answer as if the room did not exist (guests and other channels, others' DMs).
 */
export type RoomAccess = 'open' | 'join' | 'hidden';

export function roomAccess(kind: RoomKind, role: Role, joined: boolean): RoomAccess {
  if (joined) return 'open';
  if (kind === 'conversation' && can(role, 'feedback.read')) return 'open';
  if (kind === 'channel' && can(role, 'rooms.browse')) return 'join';
  // A local agent's room: members talk to the agent there without joining first.
  if (kind === 'agent' && can(role, 'rooms.browse')) return 'open';
  return 'hidden';
}

export interface RoomSeat {
  room: Room;
  member: Pick<Member, 'id' | 'role' | 'workspace_id'>;
  joined: boolean;
  access: RoomAccess;
}

/**
 * The seat join every access check starts from: each room with every active workspace seat of its
 * workspace (`members`) and, when that seat has joined the room and not left, its room seat
 * (`room_members`, else nulls). Callers narrow it to a room and to the users they ask about.
 */
export function roomsWithSeats(db: Db) {
  return db
    .selectFrom('rooms')
    .innerJoin('members', (join) =>
      join
        .onRef('members.workspace_id', '=', 'rooms.workspace_id')
        .on('members.left_at', 'is', null),
    )
    .leftJoin('room_members', (join) =>
      join
        .onRef('room_members.room_id', '=', 'rooms.id')
        .onRef('room_members.member_id', '=', 'members.id')
        .on('room_members.left_at', 'is', null),
    );
}

/**
 * A room as a user sees it: their active workspace seat in the room's workspace, whether they have
 * joined, and the resulting access. Undefined for malformed or unknown ids, rooms of a workspace
 * the user has no active seat in, and (with `workspaceId`) rooms of another workspace.
 */
export async function findRoomSeat(
  db: Db,
  { userId, roomId, workspaceId }: { userId: string; roomId: string; workspaceId?: string },
): Promise<RoomSeat | undefined> {
  if (!isId(roomId, 'room')) return undefined;
  let query = roomsWithSeats(db)
    .where('members.user_id', '=', userId)
    .selectAll('rooms')
    .select([
      'members.id as member_id',
      'members.role as member_role',
      'room_members.joined_at as seat_joined_at',
    ])
    .where('rooms.id', '=', roomId);
  if (workspaceId) query = query.where('rooms.workspace_id', '=', workspaceId);
  const row = await query.executeTakeFirst();
  if (!row) return undefined;
  const { member_id, member_role, seat_joined_at, ...room } = row;
  const joined = seat_joined_at !== null;
  return {
    room,
    member: { id: member_id, role: member_role, workspace_id: room.workspace_id },
    joined,
    access: roomAccess(room.kind, member_role, joined),
  };
}

/**
 * Of `userIds`, those who may open the room right now. Used before live delivery: one query for
 * every socket a process holds in the room.
 */
export async function usersWhoCanOpen(
  db: Db,
  roomId: string,
  userIds: readonly string[],
): Promise<Set<string>> {
  if (userIds.length === 0 || !isId(roomId, 'room')) return new Set();
  const rows = await roomsWithSeats(db)
    .select(['members.user_id', 'members.role', 'rooms.kind', 'room_members.joined_at'])
    .where('rooms.id', '=', roomId)
    .where('members.user_id', 'in', [...new Set(userIds)])
    .execute();
  return new Set(
    rows
      .filter((r) => roomAccess(r.kind, r.role, r.joined_at !== null) === 'open')
      .map((r) => r.user_id),
  );
}

/**
 * Of `userIds`, those whose active seat in the workspace holds `capability`: who of a room's live
 * readers gets what only some roles see (an admin's "View payload" under a webhook message).
 */
export async function usersWhoCan(
  db: Db,
  workspaceId: string,
  userIds: readonly string[],
  capability: Capability,
): Promise<Set<string>> {
  const roles = await seatRoles(db, workspaceId, userIds);
  return new Set([...roles].filter(([, role]) => can(role, capability)).map(([userId]) => userId));
}

export interface RoomListItem {
  id: string;
  kind: RoomKind;
  name: string;
  joined: boolean;
  memberCount: number;
  lastMessageAt: Date | null;
}

/**
 * The rooms page: every room the seat has joined, plus (with rooms.browse) every channel it could
 * join. Guests never see channels they are not in; nobody sees other people's DMs or
 * conversations they have not joined (those live in the feedback inbox). One page of them
 * (channels, then DMs, then conversations, each by name), with the total and how many of all of
 * them the seat is in.
 */
export async function listRooms(
  db: Db,
  seat: Pick<Member, 'id' | 'role' | 'workspace_id'>,
  request: PageRequest = {},
): Promise<ListPage<RoomListItem> & { joined: number }> {
  const browse = can(seat.role, 'rooms.browse');
  const { limit, offset } = pageWindow(request);
  const visible = db
    .selectFrom('rooms')
    .leftJoin('room_members as mine', (join) =>
      join
        .onRef('mine.room_id', '=', 'rooms.id')
        .on('mine.member_id', '=', seat.id)
        .on('mine.left_at', 'is', null),
    )
    .where('rooms.workspace_id', '=', seat.workspace_id)
    .where((eb) =>
      browse
        ? eb.or([eb('mine.joined_at', 'is not', null), eb('rooms.kind', '=', 'channel')])
        : eb('mine.joined_at', 'is not', null),
    );
  const [rows, counts] = await Promise.all([
    visible
      .select(['rooms.id', 'rooms.kind', 'rooms.name', 'mine.joined_at'])
      .select((eb) => [
        eb
          .selectFrom('room_members as rm')
          .innerJoin('members as m', 'm.id', 'rm.member_id')
          .whereRef('rm.room_id', '=', 'rooms.id')
          .where('rm.left_at', 'is', null)
          .where('m.left_at', 'is', null)
          .select((sub) => sub.fn.countAll<string>().as('n'))
          .as('member_count'),
        eb
          .selectFrom('messages')
          .whereRef('messages.room_id', '=', 'rooms.id')
          .orderBy('messages.id', 'desc')
          .limit(1)
          .select('messages.created_at')
          .as('last_message_at'),
      ])
      // The page shows the kinds in this order, so a page's sections follow each other.
      .orderBy(sql`case rooms.kind when 'channel' then 0 when 'dm' then 1 else 2 end`)
      .orderBy('rooms.name')
      .orderBy('rooms.id')
      .limit(limit)
      .offset(offset)
      .execute(),
    visible
      .select((eb) => [
        eb.fn.countAll<string>().as('total'),
        eb.fn.count<string>('mine.joined_at').as('joined'),
      ])
      .executeTakeFirstOrThrow(),
  ]);
  const items = rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    name: r.name,
    joined: r.joined_at !== null,
    memberCount: Number(r.member_count ?? 0),
    lastMessageAt: r.last_message_at ?? null,
  }));
  return { ...listPage(items, Number(counts.total), request), joined: Number(counts.joined) };
}

/**
 * Creates a channel and seats its creator in it. Names are unique among a workspace's channels;
 * with no unique index for that (DMs and conversations may share names), a transaction-scoped
 * advisory lock per workspace serialises creations so two concurrent requests cannot both pass
 * the check.
 */
export async function createChannel(
  db: Db,
  creator: Pick<Member, 'id' | 'workspace_id'>,
  name: string,
): Promise<Room> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext(${`rooms:${creator.workspace_id}`}))`.execute(
      trx,
    );
    const taken = await trx
      .selectFrom('rooms')
      .select('id')
      .where('workspace_id', '=', creator.workspace_id)
      .where('kind', '=', 'channel')
      .where('name', '=', name)
      .executeTakeFirst();
    if (taken) {
      throw new AppError('validation_failed', `A channel named #${name} already exists.`, {
        fields: { name: `#${name} already exists. Pick another name or join it.` },
      });
    }
    const room = await trx
      .insertInto('rooms')
      .values({
        id: newId('room'),
        workspace_id: creator.workspace_id,
        kind: 'channel',
        name,
        created_by: creator.id,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('room_members')
      .values({ room_id: room.id, member_id: creator.id, left_at: null })
      .execute();
    return room;
  });
}

/** Takes (or retakes) a seat in the room. The caller has checked the access is `join` or `open`. */
export async function joinRoom(db: Db, roomId: string, memberId: string): Promise<void> {
  await db
    .insertInto('room_members')
    .values({ room_id: roomId, member_id: memberId, left_at: null })
    .onConflict((oc) =>
      oc
        .columns(['room_id', 'member_id'])
        .doUpdateSet({ left_at: null, joined_at: new Date() })
        .where('room_members.left_at', 'is not', null),
    )
    .execute();
}

/** Ends the seat now. True when there was an active seat to end. */
export async function leaveRoom(db: Db, roomId: string, memberId: string): Promise<boolean> {
  const result = await db
    .updateTable('room_members')
    .set({ left_at: new Date() })
    .where('room_id', '=', roomId)
    .where('member_id', '=', memberId)
    .where('left_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Members currently seated in the room (active in the workspace too). */
export async function countRoomMembers(db: Db, roomId: string): Promise<number> {
  const row = await db
    .selectFrom('room_members')
    .innerJoin('members', 'members.id', 'room_members.member_id')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('room_members.room_id', '=', roomId)
    .where('room_members.left_at', 'is', null)
    .where('members.left_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The feedback ticket a conversation room belongs to, if any. */
export async function feedbackForRoom(db: Db, roomId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('feedback')
    .select('id')
    .where('room_id', '=', roomId)
    .executeTakeFirst();
  return row?.id;
}

/** `#general` for channels; DMs and conversations show their name as is. */
export function roomLabel(room: Pick<Room, 'kind' | 'name'>): string {
  if (room.kind === 'agent') return `@${room.name}`;
  return room.kind === 'channel' ? `#${room.name}` : room.name;
}
