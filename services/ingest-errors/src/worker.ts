import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config, Logger } from '@ferry/core';
import type { Db } from '@ferry/db';
import { createWorker } from '@ferry/queues';
import { writeErrors } from './jobs/write-errors.js';

export interface ErrorWriterOptions {
  config: Config;
  db: Db;
  logger: Logger;
  /** A `worker`-role connection (createRedisConnection); the caller closes it. */
  connection: Redis;
  retentionLimit: number;
  concurrency?: number;
}

/** The `error-ingest` worker: each job's reports written by writeErrors. */
export function startErrorWriter(options: ErrorWriterOptions): Worker<unknown> {
  const deps = { db: options.db, logger: options.logger, retentionLimit: options.retentionLimit };
  return createWorker('error-ingest', (payload) => writeErrors(deps, payload), {
    connection: options.connection,
    prefix: options.config.REDIS_PREFIX,
    logger: options.logger,
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
  });
}
