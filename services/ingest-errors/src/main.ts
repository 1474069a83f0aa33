import http from 'node:http';
import { migrateToLatest } from '@ferry/db';
import { exitOnConfigError, listen, onShutdown, openRuntime } from '@ferry/http';
import { closeWorkers, createRedisConnection } from '@ferry/queues';
import { createIngestApp, ingestDeps } from './app.js';
import { loadIngestConfig, type IngestConfig } from './config.js';
import { startErrorWriter } from './worker.js';

// The ingest-errors service on its own: POST /ingest/errors and the worker that writes reports.
let config: IngestConfig;
try {
  config = loadIngestConfig();
} catch (error) {
  exitOnConfigError(error);
}
if (process.env.MIGRATE_ON_START === 'true') await migrateToLatest(config.DATABASE_URL);
const runtime = openRuntime(config, 'ingest-errors');
const producerRedis = createRedisConnection(config.REDIS_URL, {
  role: 'producer',
  logger: runtime.logger,
  name: 'ingest-errors-producer',
});
const workerRedis = createRedisConnection(config.REDIS_URL, {
  role: 'worker',
  logger: runtime.logger,
  name: 'ingest-errors-worker',
});
const deps = ingestDeps({
  config,
  settings: config.ingest,
  db: runtime.db,
  logger: runtime.logger,
  redis: producerRedis,
});
const server = http.createServer(createIngestApp(deps, runtime.redis));
await listen(server, config.PORT, runtime.logger);
const worker = startErrorWriter({
  config,
  db: runtime.db,
  logger: runtime.logger,
  connection: workerRedis,
  retentionLimit: config.ingest.ERROR_RETENTION_LIMIT,
});
onShutdown(runtime.logger, async () => {
  // Stop taking requests first, then let active jobs finish (accepted reports stay queued either
  // way), then close connections.
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await closeWorkers([worker]);
  await deps.producer.close();
  producerRedis.disconnect();
  workerRedis.disconnect();
  await runtime.close();
});
