import { z } from 'zod';
import {
  defineConfig,
  loadAll,
  serviceConfig,
  loadSsrfSettings,
  type SsrfSettings,
} from '@ferry/core';

/** DESIGN.md "Outgoing delivery": tries at now, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h. */
export const DEFAULT_RETRY_SCHEDULE_MS = [
  0,
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
] as const;

/** `0,5000,300000`: the wait before each try, the first usually 0. */
const scheduleFromEnv = z
  .string()
  .regex(/^\s*\d+(\s*,\s*\d+)*\s*$/, 'a comma-separated list of milliseconds, e.g. 0,5000,300000')
  .transform((value) => value.split(',').map((part) => Number(part.trim())));

/**
 * The webhooks-out settings. Everything that tests speed up is an ordinary setting with the
 * production value as its default, so tests run the same code paths as production.
 */
export const webhooksOutShape = {
  WEBHOOK_RETRY_SCHEDULE_MS: scheduleFromEnv.default([...DEFAULT_RETRY_SCHEDULE_MS]),
  /** One attempt, connect to last byte read (DESIGN.md: 10 s). */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** The least wait after a 429 or a timeout (DESIGN.md: 60 s). */
  WEBHOOK_THROTTLE_MIN_DELAY_MS: z.coerce.number().int().min(0).default(60_000),
  /** How often the safety-net sweep looks for due deliveries whose drain job went missing. */
  WEBHOOK_SWEEP_INTERVAL_MS: z.coerce.number().int().min(50).default(2_000),
  /** SPEC.md: 20 consecutive failures disable the hook. */
  WEBHOOK_DISABLE_AFTER_FAILURES: z.coerce.number().int().min(1).default(20),
  /** The most deliveries one claim takes from the head of a hook's stream (a run; claims.ts). */
  WEBHOOK_RUN_SIZE: z.coerce.number().int().min(1).max(1_000).default(50),
  /** Hooks one process drains at once; more wait their turn (drains.ts). */
  WEBHOOK_DRAIN_CONCURRENCY: z.coerce.number().int().min(1).default(256),
  /**
   * `webhook-delivery` (fan-out) jobs one process runs at once. Each only waits for its share of a
   * grouped INSERT (owe.ts), so many at once make big groups: fan-out is what a backlog waits on.
   */
  WEBHOOK_FAN_OUT_CONCURRENCY: z.coerce.number().int().min(1).default(512),
  /**
   * Postgres connections of the webhooks-out process (main.ts). Fan-outs, claims and records go as
   * grouped statements (two of each at a time) and no connection is held during a send, so a
   * handful serve hundreds of hooks; the rest is for failed attempts, each its own transaction.
   */
  WEBHOOK_DB_POOL_SIZE: z.coerce.number().int().min(2).default(16),
};

const loadShape = defineConfig(webhooksOutShape);

export interface WebhooksOutSettings {
  retryScheduleMs: number[];
  timeoutMs: number;
  throttleMinDelayMs: number;
  sweepIntervalMs: number;
  disableAfterFailures: number;
  runSize: number;
  drainConcurrency: number;
  fanOutConcurrency: number;
  dbPoolSize: number;
  ssrf: SsrfSettings;
}

/** Only the webhooks-out settings (for `pnpm start`, whose base config is loaded too). */
export function loadWebhooksOutSettings(env: NodeJS.ProcessEnv = process.env): WebhooksOutSettings {
  const { parsed, ssrf } = loadAll({ parsed: loadShape, ssrf: loadSsrfSettings }, env);
  return {
    retryScheduleMs: parsed.WEBHOOK_RETRY_SCHEDULE_MS,
    timeoutMs: parsed.WEBHOOK_TIMEOUT_MS,
    throttleMinDelayMs: parsed.WEBHOOK_THROTTLE_MIN_DELAY_MS,
    sweepIntervalMs: parsed.WEBHOOK_SWEEP_INTERVAL_MS,
    disableAfterFailures: parsed.WEBHOOK_DISABLE_AFTER_FAILURES,
    runSize: parsed.WEBHOOK_RUN_SIZE,
    drainConcurrency: parsed.WEBHOOK_DRAIN_CONCURRENCY,
    fanOutConcurrency: parsed.WEBHOOK_FAN_OUT_CONCURRENCY,
    dbPoolSize: parsed.WEBHOOK_DB_POOL_SIZE,
    ssrf,
  };
}

/** The whole config of the webhooksOut process; every problem listed at once. */
export const loadWebhooksOutConfig = serviceConfig('webhooksOut', loadWebhooksOutSettings);
export type WebhooksOutConfig = ReturnType<typeof loadWebhooksOutConfig>;
