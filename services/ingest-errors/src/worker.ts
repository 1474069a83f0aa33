import type { BackoffStrategy, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config, Logger } from '@ferry/core';
import type { Db } from '@ferry/db';
import { createWorker } from '@ferry/queues';
import { writeErrors } from './jobs/write-errors.js';

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
  retentionLimit: number;
  concurrency?: number;
  /** ERROR_INGEST_BACKOFF unless given (tests use a short one to stay fast). */
  backoff?: RetryBackoff;
  /**
   * How fast a job held by a dead worker is handed to another one: BullMQ treats it as stalled
   * once its lock (renewed every lockDuration / 2 while the worker lives) expires, as seen by a
   * stalled check every stalledInterval. BullMQ's defaults (30 s each) unless given.
   */
  stalled?: { lockDurationMs: number; stalledIntervalMs: number };
}

/**
 * A worker killed more than once while holding the same job (OOM, deploys in a crash loop) must not
 * fail it: BullMQ's default of 1 would move such a job to failed, its reports unwritten. Writes are
 * idempotent, so re-running is always safe.
 */
const MAX_STALLED_COUNT = 10;

/** The `error-ingest` worker: each job's reports written by writeErrors. */
export function startErrorWriter(options: ErrorWriterOptions): Worker<unknown> {
  const deps = { db: options.db, logger: options.logger, retentionLimit: options.retentionLimit };
  return createWorker('error-ingest', (payload) => writeErrors(deps, payload), {
    connection: options.connection,
    prefix: options.config.REDIS_PREFIX,
    logger: options.logger,
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
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
  });
}
