import type { Db, Role } from '@ferry/db';

/**
 * Of `userIds`, the role of each one's active seat in the workspace (the rest are left out): who of
 * a page's live readers may still see it, and what their role shows them.
 */
export async function seatRoles(
  db: Db,
  workspaceId: string,
  userIds: readonly string[],
): Promise<Map<string, Role>> {
  if (userIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('members')
    .select(['user_id', 'role'])
    .where('workspace_id', '=', workspaceId)
    .where('user_id', 'in', [...new Set(userIds)])
    .where('left_at', 'is', null)
    .execute();
  return new Map(rows.map((row) => [row.user_id, row.role]));
}
