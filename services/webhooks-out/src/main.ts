import http from 'node:http';
import { createDb, migrateToLatest } from '@ferry/db';
import {
  createHttpApp,
  createMetrics,
  closeServer,
  configOrExit,
  finishApp,
  healthRouter,
  listen,
  onShutdown,
  openRuntime,
} from '@ferry/http';
import { createRedisConnection } from '@ferry/queues';
import { loadWebhooksOutConfig } from './config.js';
import { startWebhooksOut } from './worker.js';

// The webhooks-out service on its own: the delivery workers, and HTTP only for /healthz, /readyz
// and /metrics (the container health check and Prometheus).
const config = configOrExit(loadWebhooksOutConfig);
if (config.MIGRATE_ON_START) await migrateToLatest(config.DATABASE_URL);
const runtime = openRuntime(config, 'webhooks-out');
const metrics = createMetrics('webhooks-out');
const app = createHttpApp({ logger: runtime.logger, metrics, trustProxy: config.TRUST_PROXY });
app.use(
  healthRouter({
    db: runtime.db,
    redis: runtime.redis,
    metrics,
    metricsToken: config.METRICS_TOKEN,
  }),
);
finishApp(app, { logger: runtime.logger });
const server = http.createServer(app);
await listen(server, config.PORT, runtime.logger);

const workerRedis = createRedisConnection(config.REDIS_URL, {
  role: 'worker',
  logger: runtime.logger,
  name: 'webhooks-out-worker',
});
const producerRedis = createRedisConnection(config.REDIS_URL, {
  role: 'producer',
  logger: runtime.logger,
  name: 'webhooks-out-producer',
});
// The workers' own pool, sized for hundreds of concurrent drains (the runtime's serves /readyz).
const workerDb = createDb(config.DATABASE_URL, { max: config.webhooksOut.dbPoolSize });
const running = startWebhooksOut({
  config,
  settings: config.webhooksOut,
  db: workerDb,
  logger: runtime.logger,
  connection: workerRedis,
  producerConnection: producerRedis,
});
onShutdown(runtime.logger, async () => {
  await closeServer(server);
  // Active sends finish; a send cut off by the orchestrator is re-sent when its lease expires.
  await running.stop();
  workerRedis.disconnect();
  producerRedis.disconnect();
  await workerDb.destroy();
  await runtime.close();
});
