import http from 'node:http';
import { migrateToLatest } from '@ferry/db';
import { closeServer, configOrExit, listen, onShutdown, openRuntime } from '@ferry/http';
import { createRedisConnection, redisReady } from '@ferry/queues';
import { createWebhooksInApp } from './app.js';
import type { WebhooksInDeps } from './deps.js';
import { loadWebhooksInConfig } from './config.js';
import { createLiveKeyCache } from './key-cache.js';
import { createPostWriter } from './post-writer.js';

// The webhooks-in service on its own: POST /wh/in/<key>.
const config = configOrExit(loadWebhooksInConfig);
if (config.MIGRATE_ON_START) await migrateToLatest(config.DATABASE_URL);
const runtime = openRuntime(config, 'webhooks-in');
const producerRedis = createRedisConnection(config.REDIS_URL, {
  role: 'producer',
  logger: runtime.logger,
  name: 'webhooks-in-producer',
});
const posts = createPostWriter(runtime.db, { logger: runtime.logger });
const deps: WebhooksInDeps = {
  config,
  settings: config.webhooksIn,
  db: runtime.db,
  logger: runtime.logger,
  redis: producerRedis,
  keys: createLiveKeyCache(runtime.db, {
    databaseUrl: config.DATABASE_URL,
    logger: runtime.logger,
  }),
  posts,
};
await redisReady(producerRedis);
const server = http.createServer(createWebhooksInApp(deps, runtime.redis));
await listen(server, config.PORT, runtime.logger);
onShutdown(runtime.logger, async () => {
  await closeServer(server);
  // Requests still in flight have had their answers; this writes anything still queued.
  await posts.stop();
  await deps.keys.close();
  producerRedis.disconnect();
  await runtime.close();
});
