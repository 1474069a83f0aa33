import http from 'node:http';
import { migrateToLatest } from '@ferry/db';
import { closeServer, configOrExit, listen, onShutdown, openRuntime } from '@ferry/http';
import { createRedisConnection, redisReady, startJobs } from '@ferry/queues';
import { agentStreamHub, createAgentGatewayApp } from './app.js';
import { loadAgentGatewayConfig } from './config.js';
import { agentGatewayDeps, agentGatewayJobs } from './jobs/index.js';

// The agent-gateway service on its own: /agents/v1 (SSE + JSON POSTs) and its two queues'
// workers. Scale it freely: any process may hold a stream; nudges reach them all over Redis.
const config = configOrExit(loadAgentGatewayConfig);
if (config.MIGRATE_ON_START) await migrateToLatest(config.DATABASE_URL);
const runtime = openRuntime(config, 'agent-gateway');
const producerRedis = createRedisConnection(config.REDIS_URL, {
  role: 'producer',
  logger: runtime.logger,
  name: 'agent-gateway-producer',
});
const workerRedis = createRedisConnection(config.REDIS_URL, {
  role: 'worker',
  logger: runtime.logger,
  name: 'agent-gateway-worker',
});
const options = {
  config,
  settings: config.agentGateway,
  db: runtime.db,
  logger: runtime.logger,
  producerConnection: producerRedis,
};
const deps = agentGatewayDeps(options);
const hub = agentStreamHub(deps, runtime.redis.duplicate());
await redisReady(producerRedis);
const server = http.createServer(createAgentGatewayApp({ ...deps, hub }, runtime.redis));
await listen(server, config.PORT, runtime.logger);
const jobs = startJobs([agentGatewayJobs(options)], {
  connection: workerRedis,
  prefix: config.REDIS_PREFIX,
  logger: runtime.logger,
});
onShutdown(runtime.logger, async () => {
  // Stop accepting first, so no stream opens after the hub ends them; open streams end (their
  // agents reconnect to another process and get their unacked work again), requests in flight
  // get their answers.
  const closed = closeServer(server);
  await hub.close();
  await closed;
  await jobs.stop();
  await deps.close();
  producerRedis.disconnect();
  workerRedis.disconnect();
  await runtime.close();
});
