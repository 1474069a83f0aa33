import type { Db } from '@ferry/db';

/** SPEC.md: pruning runs on a fraction of incoming reports, so the count hovers near the limit. */
export const PRUNE_FRACTION = 1 / 20;

/**
 * Whether this write should prune its workspace. Only over the limit; then on a random fraction of
 * writes (cheap: most writes skip it), or always once the overshoot reaches 5% of the limit (at
 * least 10), so a burst cannot run far past it between lucky draws.
 */
export function shouldPrune(retained: number, limit: number, random: () => number): boolean {
  if (retained <= limit) return false;
  return retained - limit >= Math.max(10, Math.ceil(limit * 0.05)) || random() < PRUNE_FRACTION;
}

/**
 * Deletes a workspace's oldest occurrences beyond `limit`; returns how many. Ids are time-ordered
 * from receipt, so "oldest" is the lowest ids, found on the (workspace_id, id) index: the
 * limit-th newest id is the oldest one kept. Groups stay, with their counts (SPEC.md); the
 * retained-occurrence counter follows by trigger.
 */
export async function pruneOccurrences(
  db: Db,
  workspaceId: string,
  limit: number,
): Promise<number> {
  const result = await db
    .deleteFrom('error_occurrences')
    .where('workspace_id', '=', workspaceId)
    .where(
      'id',
      '<',
      db
        .selectFrom('error_occurrences')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .orderBy('id', 'desc')
        .offset(limit - 1)
        .limit(1),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
