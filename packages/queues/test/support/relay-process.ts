import { createInterface } from 'node:readline';
import { createLogger, loadConfig } from '@ferry/core';
import { createDb } from '@ferry/db';
import {
  createProducer,
  createRedisConnection,
  startOutboxRelay,
  type OutboxRelay,
} from '../../src/index.js';

/**
 * An outbox relay in its own process, for the kill test. Config comes from env (the test
 * context's), RELAY_BATCH_SIZE rows per batch, FERRY_OUTBOX_CRASH_AFTER_ENQUEUE to die mid-batch.
 * It prints "ready" once loaded and starts relaying on a "go" line on stdin, so the test can pay
 * the start-up cost of several processes at once and still choose when each one runs.
 * SIGTERM stops it cleanly; SIGKILL is the point.
 */
const config = loadConfig();
const logger = createLogger({ level: config.LOG_LEVEL, name: 'relay-child' });
const db = createDb(config.DATABASE_URL, { max: 2 });
const connection = createRedisConnection(config.redis, { role: 'producer', logger });
const producer = createProducer({ connection, prefix: config.REDIS_PREFIX, logger });
let relay: OutboxRelay | undefined;

let stopping = false;
function shutdown(): void {
  if (stopping) return;
  stopping = true;
  void (async () => {
    await relay?.stop();
    await producer.close();
    await connection.quit();
    await db.destroy();
    process.exit(0);
  })();
}
process.once('SIGTERM', shutdown);

const input = createInterface({ input: process.stdin });
input.on('line', (line) => {
  if (line.trim() !== 'go' || relay) return;
  relay = startOutboxRelay({
    db,
    producer,
    logger,
    pollMs: 10,
    batchSize: Number(process.env.RELAY_BATCH_SIZE ?? 100),
  });
});
// The test went away (stdin closed): don't linger as an orphan.
input.once('close', shutdown);
process.stdout.write('ready\n');
