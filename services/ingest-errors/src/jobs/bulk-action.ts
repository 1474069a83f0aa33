import type { Db } from '@ferry/db';
import type { JobPayload } from '@ferry/queues';
import { findErrorBulkAction, runErrorBulkAction } from '@ferry/workspace';

/**
 * `error-bulk` (issue 43): runs one bulk action over error groups to its end, chunk by chunk
 * (packages/workspace errors/error-bulk-run.ts). Safe to run again: each chunk advances the action's
 * cursor in its own commit, so a retried, stalled or aborted attempt goes on where the last one
 * stopped. Errors a retry cannot fix mark the action failed with the reason instead of throwing.
 * Stopped before the end (the attempt's timeout, a shutdown), it throws, so BullMQ retries it: an
 * attempt that returned would leave the action running with no job left to finish it.
 */
export async function runBulkActionJob(
  db: Db,
  payload: JobPayload<'error-bulk'>,
  signal: AbortSignal,
): Promise<{ status: string; processed: number } | null> {
  await runErrorBulkAction(db, payload.actionId, { signal });
  const action = await findErrorBulkAction(db, payload.workspaceId, payload.actionId);
  if (!action) return null;
  if (action.status === 'queued' || action.status === 'running') {
    throw new Error(
      `bulk action ${action.id} stopped after ${action.processed} of ${action.total} groups; the next attempt goes on from there`,
    );
  }
  return { status: action.status, processed: action.processed };
}
