import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import {
  createLogger,
  createRedisConnection,
  loadConfig,
  type Config,
  type Logger,
} from '@ferry/core';
import { createDb, type Db } from '@ferry/db';
import { cloneTemplate, dropDatabase, ensureTemplate, withDatabase } from './template.js';
import { resolveStores } from './stores.js';

export interface TestContext {
  config: Config;
  db: Db;
  /** A Redis connection; every key the code under test writes starts with `config.REDIS_PREFIX`. */
  redis: Redis;
  logger: Logger;
  /** Config for a second process (e.g. a child worker) pointed at the same isolated stores. */
  env: Record<string, string>;
  close: () => Promise<void>;
}

/**
 * One isolated world per test file: a database cloned from the migrated template and a Redis key
 * prefix of its own, so files run in parallel without seeing each other.
 */
export async function createTestContext(env: Record<string, string> = {}): Promise<TestContext> {
  let serverUrl = process.env.FERRY_TEST_DATABASE_URL;
  let redisUrl = process.env.FERRY_TEST_REDIS_URL;
  let template = process.env.FERRY_TEST_TEMPLATE;
  if (!serverUrl || !redisUrl || !template) {
    // Running outside the suite's globalSetup (a script, a single file): resolve here.
    const stores = await resolveStores();
    serverUrl = stores.databaseUrl;
    redisUrl = stores.redisUrl;
    template = await ensureTemplate(serverUrl);
  }
  const dbName = await cloneTemplate(serverUrl, template);
  const prefix = `t${randomBytes(5).toString('hex')}`;
  const testEnv: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATABASE_URL: withDatabase(serverUrl, dbName),
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    APP_SECRET: 'test-secret-test-secret-test-secret-0123',
    ...env,
  };
  const config = loadConfig(testEnv);
  const db = createDb(config.DATABASE_URL, { max: 5 });
  const redis = createRedisConnection(config.redis, { role: 'worker' });
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'test' });
  return {
    config,
    db,
    redis,
    logger,
    env: testEnv,
    close: async () => {
      await db.destroy();
      await deleteByPrefix(redis, prefix);
      redis.disconnect();
      await dropDatabase(serverUrl, dbName);
    },
  };
}

async function deleteByPrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== '0');
}
