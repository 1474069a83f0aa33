import { Redis } from 'ioredis';
import { createLogger, loadConfig } from '@ferry/core';
import { createDb } from '@ferry/db';
import { startRelay } from '@ferry/workspace';

/**
 * The outbox relay in its own process, as services/web/src/main.ts runs it (startRelay: relay and
 * live announce, their defaults), config from env. Prints "ready" once started; SIGTERM stops it.
 */
const config = loadConfig(process.env);
const logger = createLogger({ level: config.LOG_LEVEL, name: 'bench-relay' });
const db = createDb(config.DATABASE_URL);
const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 3 });
const relay = startRelay({ db, redis, config, logger });
process.stdout.write('ready\n');
process.once('SIGTERM', () => {
  void (async () => {
    await relay.stop();
    redis.disconnect();
    await db.destroy();
    process.exit(0);
  })();
});
