import { AppError } from '@ferry/core';
import type { Db } from '@ferry/db';
import { findAuthorization } from './authorizations.js';

/**
 * The workspace's dispatch identity (SPEC.md): the member whose GitHub authorization starts
 * hosted agent tasks. Only a member who authorized GitHub can be chosen; null clears it.
 */
export async function setDispatchIdentity(
  db: Db,
  workspaceId: string,
  memberId: string | null,
): Promise<void> {
  if (memberId !== null) {
    const authorization = await findAuthorization(db, memberId);
    if (!authorization || authorization.workspace_id !== workspaceId) {
      throw new AppError('validation_failed', 'Choose a member who has authorized GitHub.', {
        fields: { member_id: 'Choose a member who has authorized GitHub.' },
      });
    }
  }
  await db
    .updateTable('workspaces')
    .set({ dispatch_member_id: memberId })
    .where('id', '=', workspaceId)
    .execute();
}

/** The designated member, if any, still in the workspace and still authorized. */
export async function dispatchIdentity(db: Db, workspaceId: string): Promise<string | null> {
  const row = await db
    .selectFrom('workspaces as w')
    .innerJoin('members as m', 'm.id', 'w.dispatch_member_id')
    .innerJoin('github_authorizations as a', 'a.member_id', 'm.id')
    .select('m.id')
    .where('w.id', '=', workspaceId)
    .where('m.left_at', 'is', null)
    .executeTakeFirst();
  return row?.id ?? null;
}
