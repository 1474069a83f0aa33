import type { Db } from '@ferry/db';
import type { JobPayload } from '@ferry/queues';
import { runErrorBulkAction } from '@ferry/workspace';

/**
 * `error-bulk` (issue 43): runs one bulk action over error groups to its end, chunk by chunk
 * (packages/workspace errors/error-bulk-run.ts). Safe to run again: each chunk advances the action's
 * cursor in its own commit, so a retried, stalled or aborted attempt goes on where the last one
 * stopped. Errors a retry cannot fix mark the action failed with the reason instead of throwing.
 */
export async function runBulkActionJob(
  db: Db,
  payload: JobPayload<'error-bulk'>,
  signal: AbortSignal,
): Promise<{ status: string; processed: number } | null> {
  const action = await runErrorBulkAction(db, payload.actionId, { signal });
  return action ? { status: action.status, processed: action.processed } : null;
}
