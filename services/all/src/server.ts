import http from 'node:http';
import { migrateToLatest } from '@ferry/db';
import {
  closeServer,
  createHttpApp,
  createMetrics,
  finishApp,
  healthRouter,
  listen,
  openRuntime,
} from '@ferry/http';
import {
  agentGatewayDeps,
  agentGatewayJobs,
  agentGatewayRouter,
  agentStreamHub,
} from '@ferry/agent-gateway';
import { dispatchDeps, dispatchJobs, dispatchRouter } from '@ferry/dispatch';
import { errorWriterJobs, ingestDeps, ingestRouter } from '@ferry/ingest-errors';
import { createRedisConnection, redisReady, startJobs } from '@ferry/queues';
import { opsGauges, renderErrorPage, startOpsSampling, webDeps, webParts } from '@ferry/web';
import { createLiveKeyCache, createPostWriter, webhooksInRouter } from '@ferry/webhooks-in';
import { webhooksOutJobs } from '@ferry/webhooks-out';
import { startRelay } from '@ferry/workspace';
import type { FerryConfig } from './config.js';

export interface RunningFerry {
  server: http.Server;
  stop(): Promise<void>;
}

/**
 * Every service in one process, for a laptop: pending migrations first, then each service's
 * routers on one app (specific paths before the web app's catch-all), every service's jobs under
 * one startup check (each consumed queue has exactly one handler, and every queue the outbox
 * relays to is consumed here), and the relay.
 */
export async function startAll(settings: FerryConfig): Promise<RunningFerry> {
  const config = settings.base;
  const { applied } = await migrateToLatest(config.DATABASE_URL);
  const runtime = openRuntime(config, 'ferry');
  if (applied.length) runtime.logger.info({ applied }, 'migrations applied');

  // Separate connections per role (see createRedisConnection): requests fail fast while Redis is
  // down, the workers wait it out.
  const producerRedis = createRedisConnection(config.REDIS_URL, {
    role: 'producer',
    logger: runtime.logger,
    name: 'ferry-producer',
  });
  const workerRedis = createRedisConnection(config.REDIS_URL, {
    role: 'worker',
    logger: runtime.logger,
    name: 'ferry-worker',
  });
  const shared = { config, db: runtime.db, logger: runtime.logger };
  const agentOptions = {
    ...shared,
    settings: settings.agentGateway,
    producerConnection: producerRedis,
  };
  const dispatchOptions = {
    ...shared,
    settings: settings.dispatch,
    producerConnection: producerRedis,
  };
  const jobs = startJobs(
    [
      agentGatewayJobs(agentOptions),
      dispatchJobs(dispatchOptions),
      errorWriterJobs({
        ...shared,
        retentionLimit: settings.ingest.ERROR_RETENTION_LIMIT,
        announceOn: runtime.redis,
      }),
      webhooksOutJobs({
        ...shared,
        settings: settings.webhooksOut,
        producerConnection: producerRedis,
      }),
    ],
    {
      connection: workerRedis,
      prefix: config.REDIS_PREFIX,
      logger: runtime.logger,
      requireRoutedQueues: true,
    },
  );

  const metrics = createMetrics('ferry');
  const ingest = ingestDeps({ ...shared, settings: settings.ingest, redis: producerRedis });
  const incomingKeys = createLiveKeyCache(runtime.db, {
    databaseUrl: config.DATABASE_URL,
    logger: runtime.logger,
  });
  const incomingPosts = createPostWriter(runtime.db, { logger: runtime.logger });
  const webhooksIn = webhooksInRouter({
    ...shared,
    settings: settings.webhooksIn,
    redis: producerRedis,
    keys: incomingKeys,
    posts: incomingPosts,
  });
  // The two high-rate routes answer before the request log (no log line per report or post).
  const app = createHttpApp({
    logger: runtime.logger,
    metrics,
    trustProxy: config.TRUST_PROXY,
    hotRoutes: [ingestRouter(ingest), webhooksIn],
  });
  app.use(
    healthRouter({
      db: runtime.db,
      redis: runtime.redis,
      metrics,
      metricsToken: config.METRICS_TOKEN,
    }),
  );
  const agents = agentGatewayDeps(agentOptions);
  const hub = agentStreamHub(agents, runtime.redis.duplicate());
  const gateway = agentGatewayRouter({ ...agents, hub });
  app.use(gateway.path, gateway.router);
  // Before web's /api/v1: GET /repos and POST /feedback/:id/dispatch are the dispatch service's.
  const dispatch = dispatchDeps(dispatchOptions);
  const dispatchApi = dispatchRouter(dispatch);
  app.use(dispatchApi.path, dispatchApi.router);
  const web = webDeps(runtime, settings.web);
  opsGauges(web, metrics);
  const parts = webParts(web);
  app.use(parts.widget);
  app.use('/api/v1', parts.api);
  app.use(parts.pages);
  finishApp(app, { logger: runtime.logger, renderHtml: renderErrorPage });

  // Fail-fast producers refuse commands until connected: be ready before taking requests.
  await redisReady(producerRedis);
  const server = http.createServer(app);
  parts.realtime.attach(server);
  await listen(server, config.PORT, runtime.logger);
  const relay = startRelay(runtime);
  const opsSampler = startOpsSampling(web);

  return {
    server,
    stop: async () => {
      await opsSampler.stop();
      // Stop accepting; end the agents' SSE streams and the pages' sockets (they reconnect to
      // another process); requests in flight get their real answers before anything they need
      // closes.
      const closed = closeServer(server);
      await hub.close();
      await parts.realtime.close();
      await closed;
      // Posts already queued for a group commit are written before the pool closes.
      await incomingPosts.stop();
      await incomingKeys.close();
      // Active jobs finish (or stay queued for another process); then what was stored is relayed.
      await jobs.stop();
      await relay.stop();
      await ingest.producer.close();
      await web.close();
      await agents.close();
      await dispatch.close();
      producerRedis.disconnect();
      workerRedis.disconnect();
      await runtime.close();
    },
  };
}
