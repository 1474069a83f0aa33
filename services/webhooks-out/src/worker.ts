import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { createGroupCommit, SecretBox, type Config, type Logger } from '@ferry/core';
import type { Db } from '@ferry/db';
import { createProducer, startJobs, type QueueName, type ServiceJobs } from '@ferry/queues';
import type { WebhooksOutSettings } from './config.js';
import { hooksWithDueDeliveries, leaseMs } from './deliveries.js';
import type { WebhooksOutDeps } from './deps.js';
import { createDrainScheduler } from './drains.js';
import { drainHook, drainRun } from './jobs/drain-hook.js';
import { fanOutJob } from './jobs/fan-out.js';
import { postAlertsHeld } from './jobs/alerts-held.js';
import { sendOnce } from './jobs/send-once.js';
import { oweMessages } from './owe.js';
import { createPacer } from './pacing.js';
import { createRunGroups, type RunGroups } from './run-groups.js';

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
  /** Claims and records written, grouped (tests, metrics). */
  runStats: RunGroups['stats'];
  /** How far this process has sent each hook's stream (tests). */
  sentThrough: RunGroups['sentThrough'];
  /** Runs one sweep now (tests, and the timer). */
  sweep(): Promise<number>;
  /** Stops the sweep, closes the workers (active sends finish) and the producer. */
  stop(): Promise<void>;
}

/** The queues the webhooks-out service consumes. */
export const WEBHOOKS_OUT_QUEUES: readonly QueueName[] = [
  'webhook-delivery',
  'webhook-drain',
  'webhook-send-once',
  'error-alerts-held',
];

/**
 * Deliveries survive worker deaths by being rows, not jobs, so a job handed to another worker more
 * than once is always safe to re-run; BullMQ's default of 1 would fail it instead.
 */
const MAX_STALLED_COUNT = 10;

export interface WebhooksOutJobs extends ServiceJobs {
  /** Finds hooks with due deliveries and gives each a drain job; returns how many. */
  sweep(): Promise<number>;
  runStats: RunGroups['stats'];
  sentThrough: RunGroups['sentThrough'];
}

/** Messages owed in one group at most (their fan-out jobs run at once, their rows go in one INSERT). */
const FAN_OUT_GROUP_MAX = 256;

/**
 * The webhooks-out jobs: `webhook-delivery` (fan-out), `webhook-drain` (wake-ups for the ordered
 * sends) and `webhook-send-once` (by hand), plus the process's drain scheduler and the sweep: a
 * timer that finds hooks with due deliveries and gives each a drain job. Fan-outs wake the drains
 * of their own process directly; drain jobs carry the other wake-ups (a retry coming due, a
 * re-enable) to whichever process takes them. Both are wake-ups only, so the sweep makes a lost
 * one (Redis flushed, a crash between commit and wake) cost at most one interval.
 */
export function webhooksOutJobs(options: Omit<WebhooksOutOptions, 'connection'>): WebhooksOutJobs {
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
    runs: createRunGroups(options.db, {
      runSize: options.settings.runSize,
      leaseMs: leaseMs(options.settings),
      logger: options.logger,
    }),
    pacer: createPacer(),
  };
  const bull = {
    maxStalledCount: MAX_STALLED_COUNT,
    ...(options.stalled
      ? {
          lockDuration: options.stalled.lockDurationMs,
          stalledInterval: options.stalled.stalledIntervalMs,
        }
      : {}),
  };

  const drains = createDrainScheduler({
    concurrency: options.settings.drainConcurrency,
    logger: options.logger,
    step: (hookId, stopping, handed) => drainRun(deps, hookId, stopping, handed),
  });
  const wake = (hookId: string): void => drains.wake(hookId);
  // The fan-out jobs running at once share their reads and their INSERT: one commit per group.
  // Heads are leased in that INSERT and sent straight away (no claim on the way to a first try).
  const owing = createGroupCommit({
    write: async (messageIds: string[]) => {
      const leasedAt = performance.now();
      const results = await oweMessages(options.db, messageIds, {
        leaseMs: leaseMs(options.settings),
        sentThrough: deps.runs.sentThrough,
      });
      return results.map((result) => ({ result, leasedAt }));
    },
    maxItems: FAN_OUT_GROUP_MAX,
    concurrency: 2,
  });

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
  let timer: NodeJS.Timeout | undefined;

  return {
    service: 'webhooks-out',
    consumes: WEBHOOKS_OUT_QUEUES,
    handlers: {
      'webhook-delivery': {
        handler: (payload) =>
          fanOutJob(
            { owe: (id) => owing.submit(id), wake, hand: (run) => drains.hand(run) },
            payload,
          ),
        options: { bull, concurrency: options.settings.fanOutConcurrency },
      },
      'webhook-drain': { handler: (payload) => drainHook(wake, payload), options: { bull } },
      'webhook-send-once': { handler: (payload) => sendOnce(deps, payload), options: { bull } },
      'error-alerts-held': {
        handler: (payload) => postAlertsHeld(deps, payload),
        options: { bull },
      },
    },
    sweep,
    runStats: deps.runs.stats,
    sentThrough: deps.runs.sentThrough,
    start() {
      timer = setInterval(() => {
        if (stopped) return;
        running = sweep().catch((err: unknown) =>
          options.logger.warn({ err }, 'webhook sweep failed'),
        );
      }, interval);
      timer.unref();
    },
    async close() {
      stopped = true;
      clearInterval(timer);
      await running;
      await owing.drain();
      // Each drain ends after its current run; a cut-off send is re-sent when its lease expires.
      await drains.close();
      await deps.runs.drain();
      await producer.close();
    },
  };
}

/** The webhooks-out workers alone (this service's entry, and tests). */
export function startWebhooksOut(options: WebhooksOutOptions): RunningWebhooksOut {
  const jobs = webhooksOutJobs(options);
  const running = startJobs([jobs], {
    connection: options.connection,
    prefix: options.config.REDIS_PREFIX,
    logger: options.logger,
  });
  return {
    workers: running.workers,
    runStats: jobs.runStats,
    sentThrough: jobs.sentThrough,
    sweep: () => jobs.sweep(),
    stop: () => running.stop(),
  };
}
