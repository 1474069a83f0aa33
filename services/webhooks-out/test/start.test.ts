import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '@ferry/core';
import { createRedisConnection, startJobs } from '@ferry/queues';
import { createTestContext, type TestContext } from '@ferry/testing';
import type { Redis } from 'ioredis';
import { loadWebhooksOutConfig, loadWebhooksOutSettings } from '../src/config.js';
import { WEBHOOKS_OUT_QUEUES, webhooksOutJobs } from '../src/worker.js';

describe('starting webhooks-out', () => {
  let ctx: TestContext;
  let connection: Redis;

  beforeAll(async () => {
    ctx = await createTestContext();
    connection = createRedisConnection(ctx.config.redis, { role: 'worker' });
  });
  afterAll(async () => {
    connection?.disconnect();
    await ctx?.close();
  });

  it('refuses to start when its handler map misses a queue it consumes, naming the queue', async () => {
    const jobs = webhooksOutJobs({
      config: ctx.config,
      settings: loadWebhooksOutSettings(ctx.env),
      db: ctx.db,
      logger: ctx.logger,
      producerConnection: ctx.redis,
    });
    expect(jobs.consumes).toEqual(WEBHOOKS_OUT_QUEUES);
    delete jobs.handlers['webhook-drain'];
    try {
      expect(() =>
        startJobs([jobs], { connection, prefix: ctx.config.REDIS_PREFIX, logger: ctx.logger }),
      ).toThrow(/Every job needs exactly one handler; none for: webhook-drain \(consumed by/);
    } finally {
      await jobs.close?.();
    }
  });

  it('lists every bad setting at once, shared and its own', () => {
    let error: unknown;
    try {
      loadWebhooksOutConfig({
        PORT: 'eighty',
        WEBHOOK_TIMEOUT_MS: 'soon',
        ALLOW_PRIVATE_WEBHOOK_TARGETS: 'maybe',
        WEBHOOK_RETRY_SCHEDULE_MS: '',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.map((p) => p.split(':')[0]);
    expect(problems.sort()).toEqual([
      'ALLOW_PRIVATE_WEBHOOK_TARGETS',
      'PORT',
      'WEBHOOK_TIMEOUT_MS',
    ]);
  });
});
