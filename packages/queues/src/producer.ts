import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '@ferry/core';
import {
  assertJobId,
  describeIssues,
  InvalidPayloadError,
  jobNameOf,
  queueCatalog,
  safeParseJob,
  type AddOptions,
  type BulkJob,
  type JobInput,
  type QueueName,
} from './catalog.js';

export interface ProducerOptions {
  /** A `producer` connection (createRedisConnection); the producer never closes it. */
  connection: Redis;
  /** REDIS_PREFIX: every queue key starts with it. */
  prefix: string;
  logger?: Logger;
}

export interface Producer {
  /** Validates the payload against the catalog, then adds one job. */
  add<Q extends QueueName>(queue: Q, payload: JobInput<Q>, opts?: AddOptions): Promise<void>;
  /** Validates every payload first (nothing is added if one is invalid), then one round trip per queue. */
  addBulk<Q extends QueueName>(jobs: readonly BulkJob<Q>[]): Promise<void>;
  /** The underlying BullMQ Queue (created on first use): counts, getJob, tests. Bypasses validation. */
  queue(name: QueueName): Queue<unknown>;
  /** Closes the queues it opened (not the connection). */
  close(): Promise<void>;
}

interface PreparedJob {
  name: string;
  data: unknown;
  opts: AddOptions;
}

function prepare<Q extends QueueName>(job: BulkJob<Q>): PreparedJob {
  const parsed = safeParseJob(job.queue, job.payload);
  if (!parsed.success) {
    throw new InvalidPayloadError(
      `queue "${job.queue}"`,
      parsed.error.issues,
      describeIssues(parsed.error),
    );
  }
  if (job.opts?.jobId !== undefined) assertJobId(job.opts.jobId);
  return { name: jobNameOf(job.queue), data: parsed.data, opts: { ...job.opts } };
}

export function createProducer({ connection, prefix, logger }: ProducerOptions): Producer {
  const queues = new Map<QueueName, Queue<unknown>>();
  let closed = false;

  function queue(name: QueueName): Queue<unknown> {
    if (closed) throw new Error('The producer is closed.');
    let found = queues.get(name);
    if (!found) {
      found = new Queue<unknown>(name, {
        connection,
        prefix,
        // Also applied to jobs added straight to this Queue, so a raw add still has sane retries.
        defaultJobOptions: queueCatalog[name].jobOptions,
      });
      // An 'error' event with no listener would throw and take the process down.
      found.on('error', (err: Error) => {
        logger?.warn({ err: err.message, queue: name }, 'queue connection error');
      });
      queues.set(name, found);
    }
    return found;
  }

  async function addBulk<Q extends QueueName>(jobs: readonly BulkJob<Q>[]): Promise<void> {
    const byQueue = new Map<QueueName, PreparedJob[]>();
    for (const job of jobs) {
      const prepared = prepare(job);
      const list = byQueue.get(job.queue);
      if (list) list.push(prepared);
      else byQueue.set(job.queue, [prepared]);
    }
    await Promise.all([...byQueue].map(([name, list]) => queue(name).addBulk(list)));
  }

  function add<Q extends QueueName>(
    name: Q,
    payload: JobInput<Q>,
    opts?: AddOptions,
  ): Promise<void> {
    const job: BulkJob<Q> = { queue: name, payload, opts };
    return addBulk([job]);
  }

  return {
    add,
    addBulk,
    queue,
    close: async () => {
      closed = true;
      const open = [...queues.values()];
      queues.clear();
      await Promise.all(open.map((q) => q.close()));
    },
  };
}
