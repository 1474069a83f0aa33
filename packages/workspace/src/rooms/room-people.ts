import { AppError, isId } from '@ferry/core';
import type { Db, Role, Room } from '@ferry/db';
import { z } from 'zod';
import { can } from '../members/capabilities.js';
import { activeSeatNames } from '../members/members.js';
import { mentionSuggestions, type MentionSuggestion } from '../messages/mentions.js';
import { joinRoom, type RoomSeat } from './rooms.js';

/**
 * Who is in a room, and adding people to it from the room: the way a guest (who sees only the rooms
 * they are in) is given a room, and how anyone is pulled into a conversation.
 */

export interface RoomPerson {
  memberId: string;
  name: string;
  email: string;
  role: Role;
}

/** The room's active seats (of active workspace members), by name. */
export function listRoomPeople(db: Db, roomId: string): Promise<RoomPerson[]> {
  return db
    .selectFrom('room_members as rm')
    .innerJoin('members as m', 'm.id', 'rm.member_id')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.id as memberId', 'u.name', 'u.email', 'm.role'])
    .where('rm.room_id', '=', roomId)
    .where('rm.left_at', 'is', null)
    .where('m.left_at', 'is', null)
    .orderBy('u.name')
    .execute();
}

/**
 * Whom the composer's @-autocomplete offers in a room, the viewer left out: the room's people, and
 * the agents a mention there reaches (an agent's own room: that agent; a ticket's conversation,
 * which nobody joins: every active member of the workspace and every agent, as routing reads
 * mentions there). A viewer who may not read feedback (a guest pulled into a conversation) is
 * offered only the conversation's seated people: the workspace's roster is not theirs to list.
 * At most 200, by name.
 */
export async function roomMentionSuggestions(
  db: Db,
  room: Pick<Room, 'id' | 'workspace_id' | 'kind'>,
  viewer: { id: string; role: Role },
): Promise<MentionSuggestion[]> {
  const wholeWorkspace = room.kind === 'conversation' && can(viewer.role, 'feedback.read');
  const [members, agents] = await Promise.all([
    wholeWorkspace
      ? activeSeatNames(db, [room.workspace_id]).then((seats) =>
          seats.map((seat) => ({ memberId: seat.id, name: seat.name })),
        )
      : listRoomPeople(db, room.id),
    room.kind === 'agent' || room.kind === 'conversation'
      ? db
          .selectFrom('agents')
          .select('name')
          .where('workspace_id', '=', room.workspace_id)
          .$if(room.kind !== 'conversation', (q) => q.where('room_id', '=', room.id))
          .orderBy('name')
          .limit(100)
          .execute()
      : Promise.resolve([]),
  ]);
  const people = [
    ...members
      .filter((member) => member.memberId !== viewer.id)
      .map((member) => ({ name: member.name, kind: 'member' as const })),
    ...agents.map((agent) => ({ name: agent.name, kind: 'agent' as const })),
  ].sort((a, b) => a.name.localeCompare(b.name));
  return mentionSuggestions(people).slice(0, 200);
}

/** Active workspace members who are not in the room: whom the form offers. */
export function listAddablePeople(db: Db, room: Pick<Room, 'id' | 'workspace_id'>) {
  return db
    .selectFrom('members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.id as memberId', 'u.name', 'u.email', 'm.role'])
    .where('m.workspace_id', '=', room.workspace_id)
    .where('m.left_at', 'is', null)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('room_members as rm')
            .select('rm.member_id')
            .whereRef('rm.member_id', '=', 'm.id')
            .where('rm.room_id', '=', room.id)
            .where('rm.left_at', 'is', null),
        ),
      ),
    )
    .orderBy('u.name')
    .execute();
}

/** Members and above who are in the room may add people; never to a direct message. */
export function canAddPeople(seat: Pick<RoomSeat, 'room' | 'member' | 'joined'>): boolean {
  return seat.joined && seat.room.kind !== 'dm' && can(seat.member.role, 'rooms.manage_people');
}

export const addRoomPersonSchema = z.object({
  member_id: z
    .string('Pick someone to add.')
    .refine((id) => isId(id, 'member'), 'Pick someone to add.'),
});

/** Seats an active member of the room's workspace in the room; returns their name. */
export async function addRoomPerson(
  db: Db,
  seat: Pick<RoomSeat, 'room' | 'member' | 'joined'>,
  memberId: string,
): Promise<string> {
  if (!canAddPeople(seat)) {
    throw new AppError('forbidden', 'Only members who are in this room can add people to it.');
  }
  const target = await db
    .selectFrom('members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.id', 'u.name'])
    .where('m.id', '=', memberId)
    .where('m.workspace_id', '=', seat.room.workspace_id)
    .where('m.left_at', 'is', null)
    .executeTakeFirst();
  if (!target) {
    throw new AppError('validation_failed', 'That person is not a member of this workspace.', {
      fields: { member_id: 'Pick someone from this workspace.' },
    });
  }
  await joinRoom(db, seat.room.id, target.id);
  return target.name;
}
