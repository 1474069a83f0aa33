import { isId } from '@ferry/core';
import type { Db } from '@ferry/db';
import { can, type Capability } from './capabilities.js';

/**
 * Who a thing can be assigned to, one rule for every kind of thing (feedback tickets, error
 * groups): an active seat of the workspace whose role may read that thing. A guest reads neither
 * tickets nor errors, so a guest is never an assignee: they could not open what they were given.
 */

export interface Assignee {
  id: string;
  name: string;
}

function activeSeats(db: Db, workspaceId: string) {
  return db
    .selectFrom('members')
    .innerJoin('users', 'users.id', 'members.user_id')
    .select(['members.id', 'members.role', 'users.name'])
    .where('members.workspace_id', '=', workspaceId)
    .where('members.left_at', 'is', null);
}

/** The workspace's possible assignees of a thing `reads` lets a role read, by name. */
export async function assignableTo(
  db: Db,
  workspaceId: string,
  reads: Capability,
): Promise<Assignee[]> {
  const rows = await activeSeats(db, workspaceId)
    .orderBy('users.name')
    .orderBy('members.id')
    .execute();
  return rows.filter((r) => can(r.role, reads)).map(({ id, name }) => ({ id, name }));
}

/** The member, when they may be given a thing `reads` lets a role read; undefined otherwise. */
export async function findAssignable(
  db: Db,
  workspaceId: string,
  memberId: string,
  reads: Capability,
): Promise<Assignee | undefined> {
  if (!isId(memberId, 'member')) return undefined;
  const row = await activeSeats(db, workspaceId)
    .where('members.id', '=', memberId)
    .executeTakeFirst();
  return row && can(row.role, reads) ? { id: row.id, name: row.name } : undefined;
}
