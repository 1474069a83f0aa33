import { createLogger } from '@ferry/core';
import { createDb } from '@ferry/db';
import { createRedisConnection } from '@ferry/queues';
import { loadWebhooksOutConfig } from '../../src/config.js';
import { startWebhooksOut } from '../../src/worker.js';

/**
 * The webhooks-out workers in their own process, for the kill test: config from env (the test
 * context's), a short stalled-job window so a killed worker's jobs move on within seconds. Prints
 * "ready" once its workers run. SIGKILL is the point; SIGTERM stops it cleanly.
 */
const config = loadWebhooksOutConfig();
const logger = createLogger({ level: config.LOG_LEVEL, name: 'webhooks-out-child' });
const db = createDb(config.DATABASE_URL, { max: 4 });
const connection = createRedisConnection(config.redis, { role: 'worker', logger });
const producerConnection = createRedisConnection(config.redis, { role: 'producer', logger });
const running = startWebhooksOut({
  config,
  settings: config.webhooksOut,
  db,
  logger,
  connection,
  producerConnection,
  stalled: { lockDurationMs: 1_000, stalledIntervalMs: 500 },
});
await Promise.all(running.workers.map((worker) => worker.waitUntilReady()));
process.stdout.write('ready\n');
process.once('SIGTERM', () => {
  void (async () => {
    await running.stop();
    connection.disconnect();
    producerConnection.disconnect();
    await db.destroy();
    process.exit(0);
  })();
});
