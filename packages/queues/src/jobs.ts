import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '@ferry/core';
import type { QueueName } from './catalog.js';
import { routedQueues } from './events.js';
import { closeWorkers, registerWorkers, type HandlerMap } from './worker.js';

/**
 * What a service runs in the background, as one value: the queues it consumes, a handler for each
 * (checked at start: exactly one per consumed queue), and what it opens beside its workers (a
 * producer, a sweep timer). A service's entry starts its own; `pnpm start` starts every service's
 * together, so the check sees all handlers of the process at once.
 */
/**
 * For handlers that are safe to run again (idempotent, or steps recorded before the next): a job
 * held by a killed process is handed on fast, its lock lapsing after 10 s (renewed every 5 s
 * while the process lives) rather than BullMQ's 30 s. Pass as a handler's `options.bull`.
 */
export const QUICK_STALL_HANDOFF = {
  lockDuration: 10_000,
  stalledInterval: 5_000,
  maxStalledCount: 10,
} as const;

export interface ServiceJobs {
  /** For logs and errors. */
  service: string;
  consumes: readonly QueueName[];
  handlers: HandlerMap;
  /** Runs once the workers are registered (timers). */
  start?(): void;
  /** Runs after the workers closed (active jobs finished): timers, producers. */
  close?(): Promise<void>;
}

export interface RunningJobs {
  workers: Worker<unknown>[];
  /** Closes the workers (active jobs finish first), then each service's own resources. */
  stop(): Promise<void>;
}

export interface StartJobsOptions {
  /** A `worker` connection (createRedisConnection); never closed here. */
  connection: Redis;
  prefix: string;
  logger: Logger;
  /**
   * The all-in-one process: every queue an outbox event is relayed to must be consumed here, or
   * its jobs would pile up in Redis with nobody to run them.
   */
  requireRoutedQueues?: boolean;
}

export function startJobs(
  services: readonly ServiceJobs[],
  options: StartJobsOptions,
): RunningJobs {
  const consumes = services.flatMap((s) => s.consumes);
  if (options.requireRoutedQueues) {
    const unconsumed = routedQueues().filter((queue) => !consumes.includes(queue));
    if (unconsumed.length) {
      throw new Error(
        `Outbox events are relayed to queues nothing here consumes: ${unconsumed.join(', ')}`,
      );
    }
  }
  const workers = registerWorkers(
    services.map((s) => s.handlers),
    {
      consumes,
      connection: options.connection,
      prefix: options.prefix,
      logger: options.logger,
    },
  );
  for (const service of services) service.start?.();
  return {
    workers,
    stop: async () => {
      await closeWorkers(workers);
      for (const service of services) await service.close?.();
    },
  };
}
