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
  // A short poll keeps "message posted -> webhook sent" in tens of milliseconds; an idle poll is
  // one index-only query on the partial unsent index, so 40 a second cost next to nothing.
  const relay = startOutboxRelay({ db, producer, logger, pollMs: 25 });
  return {
    stop: async () => {
      await relay.stop();
      await producer.close();
      connection.disconnect();
    },
  };
}
