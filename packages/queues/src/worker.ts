import {
  UnrecoverableError,
  Worker,
  type Job,
  type WorkerOptions as BullWorkerOptions,
} from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '@ferry/core';
import {
  describeIssues,
  queueCatalog,
  queueNames,
  safeParseJob,
  type JobPayload,
  type QueueDefinition,
  type QueueName,
} from './catalog.js';

/**
 * Gets the payload already validated against the catalog. `signal` aborts when the attempt times
 * out (catalog `timeoutMs`) or BullMQ cancels the job; a handler that ignores it keeps running in
 * the background, which is one more reason handlers must be idempotent (delivery is at-least-once).
 */
export type JobHandler<Q extends QueueName> = (
  payload: JobPayload<Q>,
  job: Job<unknown>,
  signal: AbortSignal,
) => Promise<unknown>;

export interface WorkerOptions {
  /** A `worker` connection (createRedisConnection), not the producer's; never closed here. */
  connection: Redis;
  /** REDIS_PREFIX, the same the producers use. */
  prefix: string;
  logger: Logger;
  /** Overrides the catalog's concurrency hint. */
  concurrency?: number;
  /** Overrides the catalog's timeout hint. */
  timeoutMs?: number;
  /**
   * BullMQ settings a queue's owner may tune: stalled-job recovery (lockDuration, stalledInterval,
   * maxStalledCount) and `settings.backoffStrategy`, which a catalog entry with a custom backoff
   * `type` needs from every worker of its queue.
   */
  bull?: Pick<
    BullWorkerOptions,
    'lockDuration' | 'stalledInterval' | 'maxStalledCount' | 'settings'
  >;
}

class JobTimeoutError extends Error {
  constructor(queue: QueueName, timeoutMs: number) {
    super(`Job on queue "${queue}" timed out after ${timeoutMs} ms`);
    this.name = 'JobTimeoutError';
  }
}

async function runHandler<Q extends QueueName>(
  queue: Q,
  handler: JobHandler<Q>,
  payload: JobPayload<Q>,
  job: Job<unknown>,
  cancel: AbortSignal | undefined,
  timeoutMs: number | undefined,
): Promise<unknown> {
  const controller = new AbortController();
  const onCancel = (): void => controller.abort(cancel?.reason);
  cancel?.addEventListener('abort', onCancel, { once: true });
  let timer: NodeJS.Timeout | undefined;
  try {
    const work = handler(payload, job, controller.signal);
    if (!timeoutMs) return await work;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new JobTimeoutError(queue, timeoutMs);
        // Reject before aborting: a handler that settles on abort must not win the race.
        reject(error);
        controller.abort(error);
      }, timeoutMs);
    });
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
    cancel?.removeEventListener('abort', onCancel);
  }
}

/**
 * A BullMQ Worker for one catalog queue. Every job's payload is validated when read: an invalid
 * one can never succeed, so it fails at once with UnrecoverableError (no retries) and is logged.
 */
export function createWorker<Q extends QueueName>(
  queue: Q,
  handler: JobHandler<Q>,
  options: WorkerOptions,
): Worker<unknown> {
  const definition: QueueDefinition = queueCatalog[queue];
  const logger = options.logger.child({ queue });
  const timeoutMs = options.timeoutMs ?? definition.timeoutMs;

  // Declaring the third parameter is what makes BullMQ pass its cancellation signal.
  const processor = async (job: Job<unknown>, _token?: string, signal?: AbortSignal) => {
    const parsed = safeParseJob(queue, job.data);
    if (!parsed.success) {
      const detail = describeIssues(parsed.error);
      logger.error({ jobId: job.id, issues: detail }, 'invalid job payload: failed without retry');
      throw new UnrecoverableError(`Invalid payload for queue "${queue}": ${detail}`);
    }
    return runHandler(queue, handler, parsed.data, job, signal, timeoutMs);
  };

  const worker = new Worker<unknown>(queue, processor, {
    ...options.bull,
    connection: options.connection,
    prefix: options.prefix,
    concurrency: options.concurrency ?? definition.concurrency ?? 1,
  });
  // BullMQ's production guide: without an 'error' listener a Redis hiccup is an uncaught
  // exception. The worker reconnects by itself; we only log.
  worker.on('error', (err: Error) => {
    logger.error({ err }, 'worker error');
  });
  worker.on('failed', (job: Job<unknown> | undefined, err: Error) => {
    const attempts = job?.opts.attempts ?? 1;
    const final = err instanceof UnrecoverableError || (job?.attemptsMade ?? 0) >= attempts;
    logger[final ? 'error' : 'warn'](
      { err, jobId: job?.id, attemptsMade: job?.attemptsMade, attempts },
      final ? 'job failed for good' : 'job failed; will retry',
    );
  });
  return worker;
}

/** Per-queue worker settings a handler may bring (its service knows its own load). */
export type HandlerOptions = Partial<Pick<WorkerOptions, 'concurrency' | 'timeoutMs' | 'bull'>>;

/** A queue's handler, alone or with its worker settings. */
export type JobRegistration<Q extends QueueName> =
  JobHandler<Q> | { handler: JobHandler<Q>; options?: HandlerOptions };

/** A service's handlers, at most one per queue (the key makes it one per map). */
export type HandlerMap = { [Q in QueueName]?: JobRegistration<Q> };

/**
 * The startup check (immich's rule), before any worker starts: the queues this process consumes
 * each have exactly one handler across the maps given, and no handler is given for a queue it
 * does not consume (a handler nobody meant to run is a wiring mistake too). Throws naming the
 * queues; returns the consumed queues in catalog order.
 */
export function checkHandlers(
  maps: readonly HandlerMap[],
  consumes: readonly QueueName[],
): QueueName[] {
  const counts = new Map<QueueName, number>();
  for (const map of maps) {
    const unknown = Object.keys(map).filter((key) => !(queueNames as string[]).includes(key));
    if (unknown.length) throw new Error(`Handlers given for unknown queues: ${unknown.join(', ')}`);
    for (const queue of queueNames) {
      if (map[queue] !== undefined) counts.set(queue, (counts.get(queue) ?? 0) + 1);
    }
  }
  const doubled = [...counts].filter(([, count]) => count > 1).map(([queue]) => queue);
  if (doubled.length) {
    throw new Error(
      `Every job needs exactly one handler; more than one for: ${doubled.join(', ')}`,
    );
  }
  const wanted = new Set(consumes);
  const missing = queueNames.filter((queue) => wanted.has(queue) && !counts.has(queue));
  if (missing.length) {
    throw new Error(
      `Every job needs exactly one handler; none for: ${missing.join(', ')} ` +
        `(consumed by this process). Add ${missing.length > 1 ? 'them' : 'it'} to the service's handler map.`,
    );
  }
  const extra = [...counts.keys()].filter((queue) => !wanted.has(queue));
  if (extra.length) {
    throw new Error(`Handlers given for queues this process does not consume: ${extra.join(', ')}`);
  }
  return queueNames.filter((queue) => wanted.has(queue));
}

function startOne<Q extends QueueName>(
  queue: Q,
  registration: JobRegistration<Q>,
  options: WorkerOptions,
): Worker<unknown> {
  if (typeof registration === 'function') return createWorker(queue, registration, options);
  const own = registration.options ?? {};
  return createWorker(queue, registration.handler, {
    ...options,
    ...own,
    bull: { ...options.bull, ...own.bull },
  });
}

export interface RegisterWorkersOptions extends Omit<WorkerOptions, 'concurrency' | 'timeoutMs'> {
  /** Every queue this process consumes: each needs exactly one handler (checkHandlers). */
  consumes: readonly QueueName[];
}

/**
 * Checks the handler maps (see checkHandlers) before starting anything, then starts one Worker per
 * consumed queue. Pass every map the process runs in one call so the check sees them all.
 */
export function registerWorkers(
  maps: HandlerMap | readonly HandlerMap[],
  options: RegisterWorkersOptions,
): Worker<unknown>[] {
  const none: HandlerMap[] = [];
  const list = none.concat(maps);
  const consumed = checkHandlers(list, options.consumes);
  const base: WorkerOptions = {
    connection: options.connection,
    prefix: options.prefix,
    logger: options.logger,
    ...(options.bull ? { bull: options.bull } : {}),
  };
  const workers: Worker<unknown>[] = [];
  for (const queue of consumed) {
    for (const map of list) {
      const registration = map[queue] as JobRegistration<typeof queue> | undefined;
      if (registration) workers.push(startOne(queue, registration, base));
    }
  }
  return workers;
}

/** worker.close() on each: no new jobs are taken and active ones finish first. */
export async function closeWorkers(workers: readonly Worker<unknown>[]): Promise<void> {
  await Promise.all(workers.map((worker) => worker.close()));
}

export interface CloseOnSignalOptions {
  /** After this, workers are force-closed (their jobs stall and are picked up again) and we exit 1. */
  timeoutMs?: number;
  /** Runs after the workers closed: close connections, the producer, the db. */
  after?: () => Promise<void>;
  /** Injected by tests; process.exit otherwise. */
  exit?: (code: number) => void;
}

/**
 * Graceful shutdown for a worker process: on SIGTERM or SIGINT, close the workers (active jobs
 * finish), run `after`, exit 0. A second signal exits at once. Returns a function that removes the
 * signal handlers. A process that also serves HTTP can use closeWorkers inside its own shutdown.
 */
export function closeWorkersOnSignal(
  workers: readonly Worker<unknown>[],
  logger: Logger,
  options: CloseOnSignalOptions = {},
): () => void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const timeoutMs = options.timeoutMs ?? 25_000;
  let stopping = false;
  const handle = (signal: NodeJS.Signals): void => {
    if (stopping) return exit(1);
    stopping = true;
    logger.info({ signal, workers: workers.length }, 'closing workers');
    const timer = setTimeout(() => {
      logger.error({ timeoutMs }, 'workers did not close in time; forcing');
      void Promise.allSettled(workers.map((worker) => worker.close(true))).then(() => exit(1));
    }, timeoutMs);
    timer.unref();
    closeWorkers(workers)
      .then(() => options.after?.())
      .then(
        () => {
          clearTimeout(timer);
          exit(0);
        },
        (err: unknown) => {
          clearTimeout(timer);
          logger.error({ err }, 'closing workers failed');
          exit(1);
        },
      );
  };
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
  return () => {
    process.off('SIGTERM', handle);
    process.off('SIGINT', handle);
  };
}
