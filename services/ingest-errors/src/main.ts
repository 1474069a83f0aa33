import http from 'node:http';
import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { migrateToLatest } from '@ferry/db';
import { closeServer, configOrExit, listen, onShutdown, openRuntime } from '@ferry/http';
import { closeWorkers, createRedisConnection, redisReady } from '@ferry/queues';
import { createIngestApp, ingestDeps } from './app.js';
import { loadIngestConfig } from './config.js';
import type { IngestDeps } from './deps.js';
import { startErrorWriter } from './worker.js';

// The ingest-errors service on its own: POST /ingest/errors and/or the worker that writes reports
// (INGEST_ROLE).
const config = configOrExit(loadIngestConfig);
if (config.MIGRATE_ON_START) await migrateToLatest(config.DATABASE_URL);
const runtime = openRuntime(config, 'ingest-errors');
const role = config.ingest.INGEST_ROLE;

// INGEST_ROLE: the HTTP side, the worker, or both (the default).
let front: { server: http.Server; deps: IngestDeps; redis: Redis } | undefined;
if (role !== 'worker') {
  const producerRedis = createRedisConnection(config.REDIS_URL, {
    role: 'producer',
    logger: runtime.logger,
    name: 'ingest-errors-producer',
  });
  const deps = ingestDeps({
    config,
    settings: config.ingest,
    db: runtime.db,
    logger: runtime.logger,
    redis: producerRedis,
  });
  await redisReady(producerRedis);
  const server = http.createServer(createIngestApp(deps, runtime.redis));
  await listen(server, config.PORT, runtime.logger);
  front = { server, deps, redis: producerRedis };
}

let writer: { worker: Worker<unknown>; redis: Redis } | undefined;
if (role !== 'http') {
  const workerRedis = createRedisConnection(config.REDIS_URL, {
    role: 'worker',
    logger: runtime.logger,
    name: 'ingest-errors-worker',
  });
  const worker = startErrorWriter({
    config,
    db: runtime.db,
    logger: runtime.logger,
    connection: workerRedis,
    retentionLimit: config.ingest.ERROR_RETENTION_LIMIT,
    announceOn: runtime.redis,
  });
  writer = { worker, redis: workerRedis };
  runtime.logger.info({ role }, 'error-ingest worker started');
}

onShutdown(runtime.logger, async () => {
  // Stop taking requests first (those in flight get their answers: a 202 only once queued), then
  // let active jobs finish (accepted reports stay queued either way), then close connections.
  if (front) await closeServer(front.server);
  if (writer) await closeWorkers([writer.worker]);
  await front?.deps.producer.close();
  front?.redis.disconnect();
  writer?.redis.disconnect();
  await runtime.close();
});
