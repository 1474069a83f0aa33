import http from 'node:http';
import type { Config } from '@ferry/core';
import { migrateToLatest } from '@ferry/db';
import {
  createHttpApp,
  createMetrics,
  finishApp,
  healthRouter,
  listen,
  openRuntime,
} from '@ferry/http';
import {
  ingestDeps,
  ingestRouter,
  loadIngestSettings,
  startErrorWriter,
} from '@ferry/ingest-errors';
import { closeWorkers, createRedisConnection, runOutboxRelay } from '@ferry/queues';
import { renderErrorPage, webParts } from '@ferry/web';
import { loadWebhooksInSettings, webhooksInDeps, webhooksInRouter } from '@ferry/webhooks-in';
import { loadWebhooksOutSettings, startWebhooksOut } from '@ferry/webhooks-out';

export interface RunningFerry {
  server: http.Server;
  stop(): Promise<void>;
}

/**
 * Every service in one process, for a laptop: pending migrations first, then each service's
 * routers on one app (specific paths before the web app's catch-all) and each worker.
 */
export async function startAll(
  config: Config,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunningFerry> {
  const ingestSettings = loadIngestSettings(env);
  const webhooksOutSettings = loadWebhooksOutSettings(env);
  const webhooksInSettings = loadWebhooksInSettings(env);
  const { applied } = await migrateToLatest(config.DATABASE_URL);
  const runtime = openRuntime(config, 'ferry');
  if (applied.length) runtime.logger.info({ applied }, 'migrations applied');

  const metrics = createMetrics('ferry');
  const app = createHttpApp({ logger: runtime.logger, metrics, trustProxy: config.TRUST_PROXY });
  app.use(healthRouter({ db: runtime.db, redis: runtime.redis, metrics }));
  // Separate connections per role (see createRedisConnection): requests fail fast while Redis is
  // down, the worker waits it out.
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
  const ingest = ingestDeps({
    config,
    settings: ingestSettings,
    db: runtime.db,
    logger: runtime.logger,
    redis: producerRedis,
  });
  app.use(ingestRouter(ingest));
  app.use(
    webhooksInRouter(
      webhooksInDeps({
        config,
        settings: webhooksInSettings,
        db: runtime.db,
        logger: runtime.logger,
        redis: producerRedis,
      }),
    ),
  );
  const web = webParts(runtime);
  app.use('/api/v1', web.api);
  app.use(web.pages);
  finishApp(app, { logger: runtime.logger, renderHtml: renderErrorPage });

  const server = http.createServer(app);
  web.realtime.attach(server);
  await listen(server, config.PORT, runtime.logger);
  const relay = runOutboxRelay(runtime);
  const webhooksOut = startWebhooksOut({
    config,
    settings: webhooksOutSettings,
    db: runtime.db,
    logger: runtime.logger,
    connection: workerRedis,
    producerConnection: producerRedis,
  });
  const workers = [
    startErrorWriter({
      config,
      db: runtime.db,
      logger: runtime.logger,
      connection: workerRedis,
      retentionLimit: ingestSettings.ERROR_RETENTION_LIMIT,
    }),
  ];

  return {
    server,
    stop: async () => {
      await relay.stop();
      await web.realtime.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeWorkers(workers);
      await webhooksOut.stop();
      await ingest.producer.close();
      producerRedis.disconnect();
      workerRedis.disconnect();
      await runtime.close();
    },
  };
}
