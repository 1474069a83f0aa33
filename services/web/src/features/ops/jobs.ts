import type { Db } from '@ferry/db';
import {
  failedJobs,
  findFailedJob,
  isQueueName,
  queueNames,
  retryFailedJob,
  safeParseJob,
  type FailedJob,
  type Producer,
  type QueueName,
  type RetryOutcome,
} from '@ferry/queues';

/**
 * Failed jobs as a workspace admin sees them: only jobs whose payload belongs to that workspace,
 * either by its workspaceId or through the hook or dispatch it names. A job we cannot tie to a
 * workspace (an invalid payload) is nobody's to retry from a workspace page.
 */

/** Failed jobs read per queue, newest first: enough for a page, bounded for Redis. */
const SCAN_PER_QUEUE = 500;
const REASON_MAX = 300;

export interface WorkspaceFailedJob {
  queue: QueueName;
  id: string;
  /** First line of the last error, shortened. */
  reason: string;
  attemptsMade: number;
  failedAt: Date | null;
}

type Owner = { workspaceId: string } | { hookId: string } | { dispatchId: string };

function ownerOf(job: Pick<FailedJob, 'queue' | 'data'>): Owner | null {
  const parsed = safeParseJob(job.queue, job.data);
  if (!parsed.success) return null;
  const payload: object = parsed.data;
  if ('workspaceId' in payload && typeof payload.workspaceId === 'string') {
    return { workspaceId: payload.workspaceId };
  }
  if ('hookId' in payload && typeof payload.hookId === 'string') return { hookId: payload.hookId };
  if ('dispatchId' in payload && typeof payload.dispatchId === 'string') {
    return { dispatchId: payload.dispatchId };
  }
  return null;
}

/** Which of `jobs` belong to `workspaceId`: one query per kind of indirect owner, at most. */
async function ownedBy<J extends Pick<FailedJob, 'queue' | 'data'>>(
  db: Db,
  workspaceId: string,
  jobs: J[],
): Promise<J[]> {
  const owners = jobs.map(ownerOf);
  const hookIds = [...new Set(owners.flatMap((o) => (o && 'hookId' in o ? [o.hookId] : [])))];
  const dispatchIds = [
    ...new Set(owners.flatMap((o) => (o && 'dispatchId' in o ? [o.dispatchId] : []))),
  ];
  const [hooks, dispatches] = await Promise.all([
    hookIds.length
      ? db
          .selectFrom('outgoing_webhooks')
          .select('id')
          .where('id', 'in', hookIds)
          .where('workspace_id', '=', workspaceId)
          .execute()
      : [],
    dispatchIds.length
      ? db
          .selectFrom('dispatches')
          .select('id')
          .where('id', 'in', dispatchIds)
          .where('workspace_id', '=', workspaceId)
          .execute()
      : [],
  ]);
  const ours = new Set([...hooks, ...dispatches].map((row) => row.id));
  return jobs.filter((_, i) => {
    const owner = owners[i];
    if (!owner) return false;
    if ('workspaceId' in owner) return owner.workspaceId === workspaceId;
    return ours.has('hookId' in owner ? owner.hookId : owner.dispatchId);
  });
}

function shown(job: FailedJob): WorkspaceFailedJob {
  const firstLine = job.failedReason.split('\n', 1)[0] ?? '';
  return {
    queue: job.queue,
    id: job.id,
    reason: firstLine.length > REASON_MAX ? `${firstLine.slice(0, REASON_MAX - 1)}…` : firstLine,
    attemptsMade: job.attemptsMade,
    failedAt: job.finishedOn === null ? null : new Date(job.finishedOn),
  };
}

/** This workspace's failed jobs across every queue, newest first, at most `limit`. */
export async function workspaceFailedJobs(
  deps: { db: Db; producer: Producer },
  workspaceId: string,
  limit = 50,
): Promise<WorkspaceFailedJob[]> {
  const perQueue = await Promise.all(
    queueNames.map((queue) => failedJobs(deps.producer, queue, 0, SCAN_PER_QUEUE - 1)),
  );
  const ours = await ownedBy(deps.db, workspaceId, perQueue.flat());
  return ours
    .sort((a, b) => (b.finishedOn ?? 0) - (a.finishedOn ?? 0))
    .slice(0, limit)
    .map(shown);
}

export type WorkspaceRetryOutcome = RetryOutcome | 'not_found';

/**
 * Retries a failed job of this workspace. 'not_found' for an unknown queue or job, or a job of
 * another workspace (indistinguishable on purpose); 'not_failed' when it is no longer failed.
 */
export async function retryWorkspaceJob(
  deps: { db: Db; producer: Producer },
  workspaceId: string,
  queue: string,
  jobId: string,
): Promise<WorkspaceRetryOutcome> {
  if (!isQueueName(queue) || jobId.length > 200) return 'not_found';
  const job = await findFailedJob(deps.producer, queue, jobId);
  if (!job) {
    // Gone, or retried a moment ago: say which only when the job is this workspace's.
    const exists = await deps.producer.queue(queue).getJob(jobId);
    if (!exists) return 'not_found';
    const mine = await ownedBy(deps.db, workspaceId, [{ queue, data: exists.data }]);
    return mine.length ? 'not_failed' : 'not_found';
  }
  if (!(await ownedBy(deps.db, workspaceId, [job])).length) return 'not_found';
  return retryFailedJob(deps.producer, queue, jobId);
}
