import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { SecretBox, type Config, type Logger } from '@ferry/core';
import type { Db } from '@ferry/db';
import { closeWorkers, createProducer, createWorker, type WorkerOptions } from '@ferry/queues';
import type { WebhooksOutSettings } from './config.js';
import { hooksWithDueDeliveries } from './deliveries.js';
import type { WebhooksOutDeps } from './deps.js';
import { drainHook } from './jobs/drain-hook.js';
import { fanOut } from './jobs/fan-out.js';
import { sendOnce } from './jobs/send-once.js';

export interface WebhooksOutOptions {
  config: Pick<Config, 'APP_SECRET' | 'REDIS_PREFIX'>;
  settings: WebhooksOutSettings;
  db: Db;
  logger: Logger;
  /** A `worker`-role connection for the BullMQ workers; the caller closes it. */
  connection: Redis;
  /** A `producer`-role connection for the drain jobs we enqueue; the caller closes it. */
  producerConnection: Redis;
  /**
   * How fast a job held by a dead worker is handed to another (BullMQ stalled-job recovery);
   * BullMQ's defaults (30 s) unless given.
   */
  stalled?: { lockDurationMs: number; stalledIntervalMs: number };
}

export interface RunningWebhooksOut {
  workers: Worker<unknown>[];
  /** Runs one sweep now (tests, and the timer). */
  sweep(): Promise<number>;
  /** Stops the sweep, closes the workers (active sends finish) and the producer. */
  stop(): Promise<void>;
}

/**
 * Deliveries survive worker deaths by being rows, not jobs, so a job handed to another worker more
 * than once is always safe to re-run; BullMQ's default of 1 would fail it instead.
 */
const MAX_STALLED_COUNT = 10;

/**
 * The webhooks-out workers: `webhook-delivery` (fan-out), `webhook-drain` (ordered sends) and
 * `webhook-send-once` (by hand), plus the sweep: a timer that finds hooks with due deliveries and
 * gives each a drain job. Drain jobs are wake-ups only, so the sweep makes a lost one (Redis
 * flushed, a crash between commit and enqueue) cost at most one interval.
 */
export function startWebhooksOut(options: WebhooksOutOptions): RunningWebhooksOut {
  const producer = createProducer({
    connection: options.producerConnection,
    prefix: options.config.REDIS_PREFIX,
    logger: options.logger,
  });
  const deps: WebhooksOutDeps = {
    db: options.db,
    box: new SecretBox(options.config.APP_SECRET),
    producer,
    logger: options.logger,
    settings: options.settings,
  };
  const workerOptions: WorkerOptions = {
    connection: options.connection,
    prefix: options.config.REDIS_PREFIX,
    logger: options.logger,
    bull: {
      maxStalledCount: MAX_STALLED_COUNT,
      ...(options.stalled
        ? {
            lockDuration: options.stalled.lockDurationMs,
            stalledInterval: options.stalled.stalledIntervalMs,
          }
        : {}),
    },
  };
  const workers = [
    createWorker('webhook-delivery', (payload) => fanOut(deps, payload), workerOptions),
    createWorker('webhook-drain', (payload, _job, signal) => drainHook(deps, payload, signal), {
      ...workerOptions,
      // A drain holds no lock on the hook while idle; its longest step is one send.
      timeoutMs: Math.max(60_000, options.settings.timeoutMs * 4),
    }),
    createWorker('webhook-send-once', (payload) => sendOnce(deps, payload), workerOptions),
  ];

  const interval = options.settings.sweepIntervalMs;
  const sweep = async (): Promise<number> => {
    const hookIds = await hooksWithDueDeliveries(options.db);
    if (!hookIds.length) return 0;
    // One id per hook per tick: several processes sweeping at once add one job, not several.
    const tick = Math.floor(Date.now() / interval);
    await producer.addBulk(
      hookIds.map((hookId) => ({
        queue: 'webhook-drain' as const,
        payload: { hookId },
        opts: { jobId: `drain-${hookId}-sweep-${tick}` },
      })),
    );
    return hookIds.length;
  };
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    if (stopped) return;
    running = sweep().catch((err: unknown) => options.logger.warn({ err }, 'webhook sweep failed'));
  }, interval);
  timer.unref();

  return {
    workers,
    sweep,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
      await closeWorkers(workers);
      await producer.close();
    },
  };
}
