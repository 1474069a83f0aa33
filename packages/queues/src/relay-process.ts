import type { Config, Logger } from '@ferry/core';
import { listen, type Db } from '@ferry/db';
import { createRedisConnection } from '@ferry/core';
import { startOutboxRelay, type OutboxRelayOptions } from './outbox.js';
import { createProducer } from './producer.js';

/** The channel the outbox trigger notifies (packages/db migration 2026_11_22_0005). */
export const OUTBOX_CHANNEL = 'ferry_outbox';

/** How long commits gather between two relay batches under load (OutboxRelayOptions.gatherMs). */
export const RELAY_GATHER_MS = 5;

/**
 * The outbox relay as a service process runs it: its own Redis connection and producer, stopped
 * together. Any number of processes may run one (rows are claimed with SKIP LOCKED).
 */
export function runOutboxRelay({
  db,
  config,
  logger,
  onRelayed,
}: {
  db: Db;
  config: Pick<Config, 'redis' | 'REDIS_PREFIX' | 'DATABASE_DIRECT_URL'>;
  logger: Logger;
  onRelayed?: OutboxRelayOptions['onRelayed'];
}): { stop(): Promise<void> } {
  const connection = createRedisConnection(config.redis, {
    role: 'producer',
    logger,
    name: 'outbox-relay',
  });
  const producer = createProducer({ connection, prefix: config.REDIS_PREFIX, logger });
  // Woken at commit: every outbox insert notifies `ferry_outbox` (migration 0005), so "message
  // posted -> relayed" is a few milliseconds. The poll is only the safety net for a lost
  // notification (while the listener reconnects).
  const relay = startOutboxRelay({
    db,
    producer,
    logger,
    pollMs: 500,
    // Under load, a few milliseconds' more for a message's fan-out, a quarter of the relay's
    // statements (see gatherMs).
    gatherMs: RELAY_GATHER_MS,
    ...(onRelayed ? { onRelayed } : {}),
  });
  const listener = listen(
    config.DATABASE_DIRECT_URL,
    OUTBOX_CHANNEL,
    () => relay.nudge(),
    (err) => logger.warn({ err }, 'outbox LISTEN connection failed; polling until it is back'),
  );
  return {
    stop: async () => {
      await listener.close();
      await relay.stop();
      await producer.close();
      connection.disconnect();
    },
  };
}
