import type { Express, Router } from 'express';
import type { Redis } from 'ioredis';
import { createHttpApp, createMetrics, finishApp, healthRouter } from '@ferry/http';
import type { WebhooksInDeps } from './deps.js';
import { webhooksInRoutes } from './routes.js';

/** POST /wh/in/:key, for mounting on a shared app (`pnpm start`, tests) or this service's own. */
export function webhooksInRouter(deps: WebhooksInDeps): Router {
  return webhooksInRoutes(deps);
}

/** The webhooks-in service alone: health, the ingest route, JSON errors. */
export function createWebhooksInApp(deps: WebhooksInDeps, healthRedis: Redis): Express {
  const metrics = createMetrics('webhooks-in');
  const app = createHttpApp({
    logger: deps.logger,
    metrics,
    trustProxy: deps.config.TRUST_PROXY,
    // A post costs no request log line: at thousands per second it was a visible share of CPU.
    hotRoutes: [webhooksInRouter(deps)],
  });
  app.use(
    healthRouter({
      db: deps.db,
      redis: healthRedis,
      metrics,
      metricsToken: deps.config.METRICS_TOKEN,
    }),
  );
  finishApp(app, { logger: deps.logger });
  return app;
}
