import type { Job } from 'bullmq';
import { queueNames, type QueueName } from './catalog.js';
import type { Producer } from './producer.js';

/**
 * What an operator reads about the queues (the Ops page, /metrics): deployment-wide counts that
 * carry no tenant data, and the failed jobs an admin may retry by hand.
 */
export interface QueueHealth {
  queue: QueueName;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  /** How long the oldest waiting job has waited; null when none waits. */
  oldestWaitingAgeMs: number | null;
}

/** One queue's counts and oldest waiting job: two round trips. */
export async function queueHealth(
  producer: Producer,
  queue: QueueName,
  now = Date.now(),
): Promise<QueueHealth> {
  const bull = producer.queue(queue);
  // `asc` walks the wait list from its oldest end (jobs are pushed on the other).
  const [counts, oldest] = await Promise.all([
    bull.getJobCounts('wait', 'prioritized', 'active', 'delayed', 'failed'),
    bull.getJobs(['wait'], 0, 0, true),
  ]);
  const oldestAt = oldest[0]?.timestamp;
  return {
    queue,
    waiting: (counts.wait ?? 0) + (counts.prioritized ?? 0),
    active: counts.active ?? 0,
    delayed: counts.delayed ?? 0,
    failed: counts.failed ?? 0,
    oldestWaitingAgeMs: oldestAt === undefined ? null : Math.max(0, now - oldestAt),
  };
}

/** Every catalog queue's health, in catalog order. */
export function allQueueHealth(producer: Producer, now = Date.now()): Promise<QueueHealth[]> {
  return Promise.all(queueNames.map((queue) => queueHealth(producer, queue, now)));
}

/** A failed job as read back from Redis: its raw data is unparsed until the caller checks it. */
export interface FailedJob {
  queue: QueueName;
  id: string;
  data: unknown;
  failedReason: string;
  attemptsMade: number;
  /** When it failed for good (ms since the epoch). */
  finishedOn: number | null;
}

function failedJob(queue: QueueName, job: Job<unknown>): FailedJob | null {
  if (!job.id) return null;
  return {
    queue,
    id: job.id,
    data: job.data,
    failedReason: job.failedReason ?? '',
    attemptsMade: job.attemptsMade,
    finishedOn: job.finishedOn ?? null,
  };
}

/** A queue's failed jobs, newest first, `start`..`end` inclusive (BullMQ's failed set order). */
export async function failedJobs(
  producer: Producer,
  queue: QueueName,
  start: number,
  end: number,
): Promise<FailedJob[]> {
  const jobs = await producer.queue(queue).getFailed(start, end);
  return jobs.flatMap((job) => failedJob(queue, job) ?? []);
}

/** One job, when it exists and is failed right now. */
export async function findFailedJob(
  producer: Producer,
  queue: QueueName,
  jobId: string,
): Promise<FailedJob | null> {
  const job = await producer.queue(queue).getJob(jobId);
  if (!job || (await job.getState()) !== 'failed') return null;
  return failedJob(queue, job);
}

export type RetryOutcome = 'retried' | 'not_failed';

/**
 * Moves a failed job back to waiting with its attempts counted from zero, so it gets the catalog's
 * full retries again (an error-ingest job that used its 40 tries during an outage is replayed this
 * way). 'not_failed' when it is gone or no longer failed (someone retried it a moment ago).
 */
export async function retryFailedJob(
  producer: Producer,
  queue: QueueName,
  jobId: string,
): Promise<RetryOutcome> {
  const job = await producer.queue(queue).getJob(jobId);
  if (!job) return 'not_failed';
  try {
    await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    return 'retried';
  } catch (error) {
    // BullMQ refuses a job that is not in the failed set (retried meanwhile, or removed).
    if ((await job.getState()) !== 'failed') return 'not_failed';
    throw error;
  }
}
