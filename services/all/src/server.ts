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
import { runOutboxRelay } from '@ferry/queues';
import { renderErrorPage, webParts } from '@ferry/web';

export interface RunningFerry {
  server: http.Server;
  stop(): Promise<void>;
}

/**
 * Every service in one process, for a laptop: pending migrations first, then each service's
 * routers on one app (specific paths before the web app's catch-all) and each worker.
 */
export async function startAll(config: Config): Promise<RunningFerry> {
  const { applied } = await migrateToLatest(config.DATABASE_URL);
  const runtime = openRuntime(config, 'ferry');
  if (applied.length) runtime.logger.info({ applied }, 'migrations applied');

  const metrics = createMetrics('ferry');
  const app = createHttpApp({ logger: runtime.logger, metrics, trustProxy: config.TRUST_PROXY });
  app.use(healthRouter({ db: runtime.db, redis: runtime.redis, metrics }));
  const web = webParts(runtime);
  app.use('/api/v1', web.api);
  app.use(web.pages);
  finishApp(app, { logger: runtime.logger, renderHtml: renderErrorPage });

  const server = http.createServer(app);
  web.realtime.attach(server);
  await listen(server, config.PORT, runtime.logger);
  const relay = runOutboxRelay(runtime);

  return {
    server,
    stop: async () => {
      await relay.stop();
      await web.realtime.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.close();
    },
  };
}
