import http from 'node:http';
import { migrateToLatest } from '@ferry/db';
import { closeServer, configOrExit, listen, onShutdown, openRuntime } from '@ferry/http';
import { createRedisConnection, redisReady, startJobs, type RunningJobs } from '@ferry/queues';
import { createDispatchApp } from './app.js';
import { loadDispatchConfig } from './config.js';
import { dispatchDeps } from './deps.js';
import { dispatchJobs } from './jobs/index.js';

// The dispatch service on its own: GET /api/v1/repos and POST /api/v1/feedback/:id/dispatch
// (DISPATCH_ROLE http), the hosted-agent flow's worker (worker), or both (all, the default).
const config = configOrExit(loadDispatchConfig);
if (config.MIGRATE_ON_START) await migrateToLatest(config.DATABASE_URL);
const runtime = openRuntime(config, 'dispatch');
const role = config.dispatch.role;
const producerRedis = createRedisConnection(config.REDIS_URL, {
  role: 'producer',
  logger: runtime.logger,
  name: 'dispatch-producer',
});
const options = {
  config,
  settings: config.dispatch,
  db: runtime.db,
  logger: runtime.logger,
  producerConnection: producerRedis,
};
await redisReady(producerRedis);
if (!config.dispatch.github.configured) {
  runtime.logger.warn(
    { missing: config.dispatch.github.missing },
    'GitHub App not configured: dispatches will fail until these variables are set',
  );
}

// The worker role still answers /healthz, /readyz and /metrics (for the orchestrator's probes).
const deps = dispatchDeps(options);
const server = http.createServer(createDispatchApp(deps, runtime.redis));
await listen(server, config.PORT, runtime.logger);

let jobs: RunningJobs | undefined;
let workerRedis: ReturnType<typeof createRedisConnection> | undefined;
if (role !== 'http') {
  workerRedis = createRedisConnection(config.REDIS_URL, {
    role: 'worker',
    logger: runtime.logger,
    name: 'dispatch-worker',
  });
  jobs = startJobs([dispatchJobs(options)], {
    connection: workerRedis,
    prefix: config.REDIS_PREFIX,
    logger: runtime.logger,
  });
}

onShutdown(runtime.logger, async () => {
  await closeServer(server);
  await jobs?.stop();
  await deps.close();
  producerRedis.disconnect();
  workerRedis?.disconnect();
  await runtime.close();
});
