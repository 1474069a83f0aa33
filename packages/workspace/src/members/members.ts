import { AppError, isId } from '@ferry/core';
import type { Db, Member, Role } from '@ferry/db';
import { z } from 'zod';
import {
  lastOwnerRefusal,
  mayHoldTokens,
  removalRefusal,
  roleChangeRefusal,
} from './seat-rules.js';
import { revokeTokensOf } from '../tokens/tokens.js';

/**
 * Seats in a workspace after they exist: role changes (ownership moving between people among
 * them), and the default room every new member and admin joins.
 */

export const changeRoleSchema = z.object({
  role: z.enum(['owner', 'admin', 'member', 'guest'], 'Pick a role.'),
});

/**
 * Changes a member's role, by the rules in seat-rules.ts (roleChangeRefusal: owners give any role;
 * nobody gives a role above their own; others' roles need members.manage and a higher rank). The
 * last owner cannot stop being one. A seat that can no longer mint tokens loses the ones it made.
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
    const { owners, actorSeat, target } = await lockSeats(trx, workspaceId, actor.id, memberId);
    if (!target) throw new AppError('not_found', 'No such member.');
    if (!actorSeat)
      throw new AppError('forbidden', 'You are no longer a member of this workspace.');
    const refusal = roleChangeRefusal(actorSeat, target, role);
    if (refusal) throw new AppError('forbidden', refusal);
    if (target.role === role) return { before: role, after: role };
    const lastOwner = lastOwnerRefusal(owners, target, 'change_role');
    if (lastOwner) throw new AppError('conflict', lastOwner);
    await trx.updateTable('members').set({ role }).where('id', '=', target.id).execute();
    if (!mayHoldTokens(role)) {
      await revokeTokensOf(
        trx,
        target.id,
        `revoked when ${(await memberName(trx, target.id)) ?? 'its maker'} became ${role}`,
      );
    }
    return { before: target.role, after: role };
  });
}

/**
 * A member leaves (or is removed): the seat ends now, and with it every room seat's access.
 * Removing someone else follows removalRefusal (seat-rules.ts); the last owner cannot go. The
 * tokens the seat minted are revoked with it (a token must not outlive its maker's seat).
 */
export async function removeMember(
  db: Db,
  workspaceId: string,
  memberId: string,
  actor: Pick<Member, 'id' | 'role'>,
): Promise<void> {
  if (!isId(memberId, 'member')) throw new AppError('not_found', 'No such member.');
  await db.transaction().execute(async (trx) => {
    const { owners, actorSeat, target } = await lockSeats(trx, workspaceId, actor.id, memberId);
    if (!target) throw new AppError('not_found', 'No such member.');
    if (!actorSeat)
      throw new AppError('forbidden', 'You are no longer a member of this workspace.');
    const refusal = removalRefusal(actorSeat, target);
    if (refusal) throw new AppError('forbidden', refusal);
    const lastOwner = lastOwnerRefusal(owners, target, 'leave');
    if (lastOwner) throw new AppError('conflict', lastOwner);
    await trx
      .updateTable('members')
      .set({ left_at: new Date() })
      .where('id', '=', memberId)
      .execute();
    await revokeTokensOf(
      trx,
      memberId,
      `revoked when ${(await memberName(trx, memberId)) ?? 'its maker'} left`,
    );
  });
}

type SeatRow = { id: string; role: Role };

/**
 * Locks the workspace's active owners, the actor and the target (in id order, so two of these
 * transactions never deadlock), and reads them as they are now. Every change to who holds a seat
 * or an owner's role goes through it: two owners removing or demoting each other at once are
 * serialized, and the second sees the first's result (a seat that left is no longer matched).
 */
export async function lockSeats(
  trx: Db,
  workspaceId: string,
  actorId: string,
  targetId: string,
): Promise<{ owners: SeatRow[]; actorSeat?: SeatRow; target?: SeatRow }> {
  const seats = await trx
    .selectFrom('members')
    .select(['id', 'role'])
    .where('workspace_id', '=', workspaceId)
    .where('left_at', 'is', null)
    .where((eb) => eb.or([eb('role', '=', 'owner'), eb('id', 'in', [actorId, targetId])]))
    .orderBy('id')
    .forUpdate()
    .execute();
  return {
    owners: seats.filter((seat) => seat.role === 'owner'),
    actorSeat: seats.find((seat) => seat.id === actorId),
    target: seats.find((seat) => seat.id === targetId),
  };
}

/** The seat's person's name (a ticket's assignee in notices, a revoked token's reason). */
export async function memberName(db: Db, memberId: string | null): Promise<string | null> {
  if (!memberId) return null;
  const row = await db
    .selectFrom('members')
    .innerJoin('users', 'users.id', 'members.user_id')
    .select('users.name')
    .where('members.id', '=', memberId)
    .executeTakeFirst();
  return row?.name ?? null;
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
