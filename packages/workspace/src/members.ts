import { AppError, isId } from '@ferry/core';
import type { Db, Member, Role } from '@ferry/db';
import { z } from 'zod';
import { outranks } from './capabilities.js';

/**
 * Seats in a workspace after they exist: role changes (ownership moving between people among
 * them), and the default room every new member and admin joins.
 */

export const changeRoleSchema = z.object({
  role: z.enum(['owner', 'admin', 'member', 'guest'], 'Pick a role.'),
});

/**
 * Changes a member's role. Owners may give any role, owner included (that is how ownership moves:
 * make someone else owner, then step down or leave). Admins may move members and guests between
 * admin, member and guest, never touching an owner or another admin. The last owner cannot stop
 * being one. Changing your own role follows the same rules (an owner may step down to admin
 * while another owner remains).
 */
export async function changeRole(
  db: Db,
  workspaceId: string,
  memberId: string,
  role: Role,
  actor: Pick<Member, 'id' | 'role'>,
): Promise<{ before: Role; after: Role }> {
  if (!isId(memberId, 'member')) throw new AppError('not_found', 'No such member.');
  return db.transaction().execute(async (trx) => {
    // The workspace's active seats, locked: two owners demoting each other at once cannot both win.
    const seats = await trx
      .selectFrom('members')
      .select(['id', 'role'])
      .where('workspace_id', '=', workspaceId)
      .where('left_at', 'is', null)
      .where('role', '=', 'owner')
      .forUpdate()
      .execute();
    const target = await trx
      .selectFrom('members')
      .select(['id', 'role'])
      .where('id', '=', memberId)
      .where('workspace_id', '=', workspaceId)
      .where('left_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
    if (!target) throw new AppError('not_found', 'No such member.');
    if (target.role === role) return { before: role, after: role };
    if (actor.role !== 'owner') {
      if (role === 'owner')
        throw new AppError('forbidden', 'Only an owner can make someone owner.');
      if (actor.id !== target.id && !outranks(actor.role, target.role)) {
        throw new AppError('forbidden', `Only an owner can change an ${target.role}'s role.`);
      }
    }
    if (target.role === 'owner' && seats.filter((seat) => seat.id !== target.id).length === 0) {
      throw new AppError(
        'conflict',
        'A workspace needs an owner. Make someone else owner before changing this role.',
      );
    }
    await trx.updateTable('members').set({ role }).where('id', '=', target.id).execute();
    return { before: target.role, after: role };
  });
}

/** The room everyone starts in: the workspace's first channel (#general, made with it). */
export async function defaultRoomId(db: Db, workspaceId: string): Promise<string | undefined> {
  const room = await db
    .selectFrom('rooms')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('kind', '=', 'channel')
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return room?.id;
}

/**
 * A new seat joins the default room, except a guest's: guests see only the rooms they are added
 * to (from the room itself), so nothing is opened to them by joining.
 */
export async function joinDefaultRoom(
  db: Db,
  member: Pick<Member, 'id' | 'workspace_id' | 'role'>,
): Promise<void> {
  if (member.role === 'guest') return;
  const roomId = await defaultRoomId(db, member.workspace_id);
  if (!roomId) return;
  await db
    .insertInto('room_members')
    .values({ room_id: roomId, member_id: member.id, left_at: null })
    .onConflict((oc) =>
      oc
        .columns(['room_id', 'member_id'])
        .doUpdateSet({ left_at: null, joined_at: new Date() })
        .where('room_members.left_at', 'is not', null),
    )
    .execute();
}

/**
 * Every active seat of these workspaces with its user's name: what `@handles` resolve against
 * (highlighting a message's mentions, and recording whom it mentions).
 */
export function activeSeatNames(
  db: Db,
  workspaceIds: readonly string[],
): Promise<{ id: string; workspace_id: string; name: string }[]> {
  if (!workspaceIds.length) return Promise.resolve([]);
  return db
    .selectFrom('members')
    .innerJoin('users', 'users.id', 'members.user_id')
    .select(['members.id', 'members.workspace_id', 'users.name'])
    .where('members.workspace_id', 'in', [...new Set(workspaceIds)])
    .where('members.left_at', 'is', null)
    .execute();
}
