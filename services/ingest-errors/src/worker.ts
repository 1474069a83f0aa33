import type { BackoffStrategy, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { createGroupCommit, type Config, type Logger } from '@ferry/core';
import type { Db } from '@ferry/db';
import {
  QUICK_STALL_HANDOFF,
  startJobs,
  type HandlerMap,
  type JobPayload,
  type QueueName,
  type ServiceJobs,
} from '@ferry/queues';
import { createSymbolicator, createErrorsAnnouncer } from '@ferry/workspace';
import {
  parseJob,
  writeErrorBatch,
  type ParsedJob,
  type WriteResult,
} from './jobs/write-errors.js';
import { runBulkActionJob } from './jobs/bulk-action.js';
import { handToAgentJob } from './jobs/hand-to-agent.js';

/** The delay between retries of a failed `error-ingest` attempt: doubling from `baseMs`, capped. */
export interface RetryBackoff {
  baseMs: number;
  maxMs: number;
}

/**
 * The catalog's `error-ingest` backoff (type `capped-exponential`): 1 s doubling to 60 s. The cap is
 * what lets the catalog's 40 attempts span ~34 minutes of outage while a job still retries at
 * least once a minute, so writes resume soon after Postgres does.
 */
export const ERROR_INGEST_BACKOFF: RetryBackoff = { baseMs: 1_000, maxMs: 60_000 };

/**
 * `base * 2^(attempt-1)`, capped, minus up to 20% jitter: after an outage the backlog of failed
 * jobs comes back spread out rather than all in the same instant.
 */
export function cappedExponentialBackoff(
  backoff: RetryBackoff,
  random: () => number = Math.random,
): BackoffStrategy {
  return (attemptsMade) => {
    const delay = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.max(0, attemptsMade - 1));
    return Math.round(delay * (1 - 0.2 * random()));
  };
}

export interface ErrorWriterOptions {
  config: Config;
  db: Db;
  logger: Logger;
  /** A `worker`-role connection (createRedisConnection); the caller closes it. */
  connection: Redis;
  /**
   * Where committed batches are announced to open Errors pages (the runtime's connection, as the
   * outbox relay's announcements): one publish per batch. Not the worker connection, which waits
   * out a Redis outage with every command queued. Without it nothing is announced.
   */
  announceOn?: Redis;
  retentionLimit: number;
  /** Jobs held at once (ERROR_WRITER_CONCURRENCY unless given): the pool batches are cut from. */
  concurrency?: number;
  /** How many jobs one transaction may hold (ERROR_WRITER_BATCH unless given). */
  batch?: BatchShape;
  /** ERROR_INGEST_BACKOFF unless given (tests use a short one to stay fast). */
  backoff?: RetryBackoff;
  /**
   * How fast a job held by a dead worker is handed to another one: BullMQ treats it as stalled
   * once its lock (renewed every lockDuration / 2 while the worker lives) expires, as seen by a
   * stalled check every stalledInterval. BullMQ's defaults (30 s each) unless given.
   */
  stalled?: { lockDurationMs: number; stalledIntervalMs: number };
}

export interface BatchShape {
  /** At most this many jobs per transaction. */
  maxJobs: number;
}

/**
 * Up to 100 jobs (1,000 reports at the usual 10 a request) per transaction. bench/RESULTS.md:
 * per-job transactions cap the worker near 2,000 reports/s on 2 cores (the commit dominates);
 * 500-row INSERTs reach ~11,000/s.
 */
export const ERROR_WRITER_BATCH: BatchShape = { maxJobs: 100 };
/** Two full batches can be in flight: one commits while the next fills. */
export const ERROR_WRITER_CONCURRENCY = 200;
/**
 * Transactions a writer process runs at once: one counting its groups and committing while the
 * next inserts its occurrences; jobs that arrive meanwhile wait and go together next (group
 * commit). With no bound, a dozen small batches were in flight at a time, each queued on the
 * same groups' row locks (a group's counts are one row) while holding the rows before them:
 * bench:start's durable ingest went from 3,400-8,300 to 11,200-12,300 reports/s with the bound
 * (bench/RESULTS.md, 2026-11-27).
 */
export const ERROR_WRITER_IN_FLIGHT = 2;

/** A job's result, or the error its own transaction failed with. */
export type JobWritten = WriteResult | { failed: unknown };

/**
 * Writes the jobs in one transaction; if that fails, each job alone, so one bad job (or a batch
 * that met a deadlock or a dropped connection) fails by itself instead of failing the others.
 */
export async function writeOrEachAlone<J, R>(
  jobs: readonly J[],
  write: (jobs: readonly J[]) => Promise<R[]>,
): Promise<(R | { failed: unknown })[]> {
  try {
    return await write(jobs);
  } catch (error) {
    if (jobs.length === 1) return [{ failed: error }];
    return Promise.all(
      jobs.map((job) =>
        write([job]).then(
          ([result]) => result!,
          (failed: unknown) => ({ failed }),
        ),
      ),
    );
  }
}

/** The error writer's queue: accepted reports to write (the ingest service's heavy work). */
export const WRITER_QUEUES: readonly QueueName[] = ['error-ingest'];
/** Bulk triage and alert rules' hand-offs to the agent (issue 43): light, relayed from the outbox. */
export const TRIAGE_QUEUES: readonly QueueName[] = ['error-bulk', 'error-handoff'];
/** Every queue the ingest-errors service consumes. */
export const INGEST_QUEUES: readonly QueueName[] = [...WRITER_QUEUES, ...TRIAGE_QUEUES];

/**
 * A worker killed more than once while holding the same job (OOM, deploys in a crash loop) must not
 * fail it: BullMQ's default of 1 would move such a job to failed, its reports unwritten. Writes are
 * idempotent, so re-running is always safe.
 */
const MAX_STALLED_COUNT = 10;

/**
 * The `error-ingest` worker. Jobs are written many per transaction, yet each stays an ordinary
 * BullMQ job: the processor checks its job's reports (a malformed one fails at once, without
 * retry), submits them to an in-process group commit (@ferry/core) and awaits the commit of the
 * batch that holds them (writeErrorBatch: one transaction for up to `maxJobs` jobs). So BullMQ still owns every job's
 * lock, retries with the capped-exponential backoff, timeout and stalled-job recovery, and only
 * completes a job after its rows are committed; a high concurrency is what lets many jobs wait on
 * one transaction. (BullMQ's own batches are a Pro feature; a manual getNextJob loop would have to
 * re-implement locks, retries and backoff.) A failed batch is retried job by job
 * (writeOrEachAlone), so one bad job cannot fail the others; a job whose write still fails is retried by BullMQ.
 *
 * `queues`: those this process runs, all of INGEST_QUEUES unless given. `pnpm start` runs the
 * writer's (WRITER_QUEUES) on a thread of its own (services/all writer-thread.ts) and the rest
 * beside its HTTP.
 */
export function errorWriterJobs(
  options: Omit<ErrorWriterOptions, 'connection'>,
  queues: readonly QueueName[] = INGEST_QUEUES,
): ServiceJobs {
  const deps = {
    db: options.db,
    logger: options.logger,
    retentionLimit: options.retentionLimit,
    // One cache of parsed source maps for the process's writer (issue 41).
    symbolicator: createSymbolicator(options.db),
    publicUrl: options.config.PUBLIC_URL,
    announcer: options.announceOn
      ? createErrorsAnnouncer(options.announceOn, options.config.REDIS_PREFIX, options.logger)
      : undefined,
  };
  const shape = options.batch ?? ERROR_WRITER_BATCH;
  const commit = createGroupCommit<ParsedJob, JobWritten>({
    maxItems: shape.maxJobs,
    concurrency: ERROR_WRITER_IN_FLIGHT,
    write: (jobs) => writeOrEachAlone(jobs, (some) => writeErrorBatch(deps, some)),
  });
  const writeJob = async (payload: JobPayload<'error-ingest'>): Promise<WriteResult> => {
    const written = await commit.submit(parseJob(payload));
    if ('failed' in written) throw written.failed;
    return written;
  };
  const handlers: HandlerMap = {
    'error-ingest': {
      handler: writeJob,
      options: {
        concurrency: options.concurrency ?? ERROR_WRITER_CONCURRENCY,
        bull: {
          maxStalledCount: MAX_STALLED_COUNT,
          ...(options.stalled
            ? {
                lockDuration: options.stalled.lockDurationMs,
                stalledInterval: options.stalled.stalledIntervalMs,
              }
            : {}),
          // Every error-ingest worker must register it: the catalog's backoff type is ours.
          settings: {
            backoffStrategy: cappedExponentialBackoff(options.backoff ?? ERROR_INGEST_BACKOFF),
          },
        },
      },
    },
    'error-handoff': {
      handler: (payload) => handToAgentJob(deps, payload),
      options: { bull: QUICK_STALL_HANDOFF },
    },
    'error-bulk': {
      handler: (payload, _job, signal) => runBulkActionJob(options.db, payload, signal),
      // Each chunk commits its progress: a job a dead worker held is handed on fast.
      options: { bull: QUICK_STALL_HANDOFF },
    },
  };
  return {
    service: 'ingest-errors',
    consumes: queues,
    handlers: Object.fromEntries(queues.map((queue) => [queue, handlers[queue]])),
  };
}

/** The writer alone on its own connection (the service's worker role, and tests). */
export function startErrorWriter(options: ErrorWriterOptions): Worker<unknown> {
  const [worker] = startJobs([errorWriterJobs(options)], {
    connection: options.connection,
    prefix: options.config.REDIS_PREFIX,
    logger: options.logger,
  }).workers;
  if (!worker) throw new Error('the error-ingest worker did not start');
  return worker;
}
