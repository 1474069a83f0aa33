import type { Config, Logger } from '@ferry/core';
import type { Db } from '@ferry/db';
import { createRedisConnection } from './connection.js';
import { startOutboxRelay } from './outbox.js';
import { createProducer } from './producer.js';

/**
 * The outbox relay as a service process runs it: its own Redis connection and producer, stopped
 * together. Any number of processes may run one (rows are claimed with SKIP LOCKED).
 */
export function runOutboxRelay({
  db,
  config,
  logger,
}: {
  db: Db;
  config: Pick<Config, 'REDIS_URL' | 'REDIS_PREFIX'>;
  logger: Logger;
}): { stop(): Promise<void> } {
  const connection = createRedisConnection(config.REDIS_URL, {
    role: 'producer',
    logger,
    name: 'outbox-relay',
  });
  const producer = createProducer({ connection, prefix: config.REDIS_PREFIX, logger });
  const relay = startOutboxRelay({ db, producer, logger });
  return {
    stop: async () => {
      await relay.stop();
      await producer.close();
      connection.disconnect();
    },
  };
}
