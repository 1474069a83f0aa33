import { AppError, type Logger } from '@ferry/core';
import { ERROR_BULK_INLINE_MAX, findErrorBulkAction } from './error-bulk.js';
import type { Db, ErrorBulkAction, Tx } from '@ferry/db';
import { assignErrorGroups, noticeBulkAssignment, type AssignActor } from './error-assign.js';
import { setErrorGroupsStatus } from './error-triage.js';
import { API_ACTOR, memberActor } from './error-events.js';
import type { EventActor } from '../event-webhooks/index.js';
import { mergeErrorGroups } from './error-merge.js';

/**
 * Running a bulk action (error-bulk.ts asks for one): its selection, chunk by chunk. Each chunk is
 * one transaction that locks the action's row, acts on the next ERROR_BULK_CHUNK groups and
 * advances the row's cursor, so progress is exactly what is committed: a job killed mid-way and run
 * again (BullMQ's retry, a stalled job handed to another worker) or the job and the request that
 * ran a small action at once, never act on a group twice nor skip one. Groups that receive
 * occurrences meanwhile are acted on like the rest: the selection is ids, not an order.
 */

/** Groups per transaction: each locks at most this many rows, for a fraction of a second. */
export const ERROR_BULK_CHUNK = 500;

const STATUS_OF = { resolve: 'resolved', ignore: 'ignored', unresolve: 'unresolved' } as const;

/** The member who asked, as an actor now (a seat that became a guest meanwhile is refused). */
async function actorOf(trx: Db, action: ErrorBulkAction): Promise<AssignActor> {
  if (action.created_by === null) return { kind: 'api' };
  const seat = await trx
    .selectFrom('members')
    .innerJoin('users', 'users.id', 'members.user_id')
    .select(['members.id', 'members.role', 'members.left_at', 'users.name'])
    .where('members.id', '=', action.created_by)
    .executeTakeFirst();
  if (!seat || seat.left_at !== null) {
    throw new AppError('forbidden', 'Whoever asked for this action has left the workspace.');
  }
  return { kind: 'member', memberId: seat.id, role: seat.role, name: seat.name };
}

/**
 * Acts on one chunk inside the action's transaction; returns how many groups it found. A merge is
 * the exception: mergeErrorGroups runs its own transaction (it takes the workspace's merge lock,
 * which `trx` must not hold), so a chunk merged just before a crash is merged again on the re-run,
 * where its gone sources are skipped: `changed` may then undercount, never a group merged twice.
 */
async function actOnChunk(
  db: Db,
  trx: Tx,
  action: ErrorBulkAction,
  chunk: string[],
): Promise<number> {
  switch (action.action) {
    case 'resolve':
    case 'ignore':
    case 'unresolve':
      return setErrorGroupsStatus(
        trx,
        action.workspace_id,
        chunk,
        STATUS_OF[action.action],
        eventActor(await actorOf(trx, action)),
      );
    case 'assign':
      return assignErrorGroups(
        trx,
        action.workspace_id,
        chunk,
        action.assignee_member_id,
        eventActor(await actorOf(trx, action)),
      );
    case 'merge': {
      if (action.target_group_id === null) {
        throw new AppError('validation_failed', 'This merge has no target group.');
      }
      const { merged } = await mergeErrorGroups(db, {
        workspaceId: action.workspace_id,
        actor: await actorOf(trx, action),
        targetId: action.target_group_id,
        sourceIds: chunk,
      });
      return merged;
    }
  }
}

/** The last chunk is done: the action is, and an assignment's one notice goes out with it. */
async function finish(trx: Tx, action: ErrorBulkAction): Promise<ErrorBulkAction> {
  if (action.action === 'assign' && action.assignee_member_id !== null) {
    await noticeBulkAssignment(trx, {
      workspaceId: action.workspace_id,
      assigneeId: action.assignee_member_id,
      actor: await actorOf(trx, action),
      count: action.changed,
    });
  }
  return trx
    .updateTable('error_bulk_actions')
    .set({ status: 'done', finished_at: new Date() })
    .where('id', '=', action.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** One step: the next chunk, or the finish. Undefined when there is nothing left to do. */
async function step(db: Db, actionId: string): Promise<ErrorBulkAction | undefined> {
  return db.transaction().execute(async (trx) => {
    const action = await trx
      .selectFrom('error_bulk_actions')
      .selectAll()
      .where('id', '=', actionId)
      .forUpdate()
      .executeTakeFirst();
    if (!action || action.status === 'done' || action.status === 'failed') return undefined;
    const chunk = action.group_ids.slice(action.processed, action.processed + ERROR_BULK_CHUNK);
    if (chunk.length === 0) return finish(trx, action);
    // A member who left (or became a guest) since asking stops the rest of the action.
    if (action.created_by !== null) {
      const actor = await actorOf(trx, action);
      if (actor.kind === 'member' && actor.role === 'guest') {
        throw new AppError('forbidden', 'Whoever asked for this action is now a guest.');
      }
    }
    const changed = await actOnChunk(db, trx, action, chunk);
    return trx
      .updateTable('error_bulk_actions')
      .set((eb) => ({
        status: 'running',
        processed: eb('processed', '+', chunk.length),
        changed: eb('changed', '+', changed),
      }))
      .where('id', '=', action.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

/**
 * Runs the action to its end (or until `signal` aborts it: the job's timeout or a shutdown; the
 * next attempt goes on from the cursor). An error a retry cannot fix (the asker was refused, the
 * assignee left) marks it failed with the reason; any other is thrown, so the job is retried.
 */
export async function runErrorBulkAction(
  db: Db,
  actionId: string,
  options: { signal?: AbortSignal; onProgress?: (action: ErrorBulkAction) => void } = {},
): Promise<ErrorBulkAction | undefined> {
  let last: ErrorBulkAction | undefined;
  for (;;) {
    if (options.signal?.aborted) return last;
    let next: ErrorBulkAction | undefined;
    try {
      next = await step(db, actionId);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return failed(db, actionId, error.message);
    }
    if (!next) return last;
    last = next;
    options.onProgress?.(next);
    if (next.status === 'done') return next;
  }
}

async function failed(db: Db, actionId: string, why: string): Promise<ErrorBulkAction | undefined> {
  return db
    .updateTable('error_bulk_actions')
    .set({ status: 'failed', error: why, finished_at: new Date() })
    .where('id', '=', actionId)
    .where('status', 'in', ['queued', 'running'])
    .returningAll()
    .executeTakeFirst();
}

/**
 * A small action (up to ERROR_BULK_INLINE_MAX groups, one chunk) is run by the request that asked
 * for it, so the answer says it is done; its job runs a moment later and finds nothing left (the
 * cursor). A failure here is left to the job, which retries it: logged, not thrown. Returns the
 * action as it is now.
 */
export async function runSmallErrorBulkAction(
  db: Db,
  logger: Logger,
  action: ErrorBulkAction,
): Promise<ErrorBulkAction> {
  if (action.total > ERROR_BULK_INLINE_MAX) return action;
  try {
    await runErrorBulkAction(db, action.id);
  } catch (error) {
    logger.warn({ err: error, actionId: action.id }, 'bulk action left to its job');
  }
  return (await findErrorBulkAction(db, action.workspace_id, action.id)) ?? action;
}
/** Who asked for the bulk action, as its events name them (issue 44). */
const eventActor = (actor: AssignActor): EventActor =>
  actor.kind === 'member' ? memberActor(actor) : API_ACTOR;
