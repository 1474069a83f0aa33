import type { Express, Router } from 'express';
import type { Redis } from 'ioredis';
import { createHttpApp, createMetrics, finishApp, healthRouter } from '@ferry/http';
import type { DispatchDeps } from './deps.js';
import { dispatchRoutes } from './routes.js';

export const DISPATCH_API_PATH = '/api/v1';

/** The dispatch routes, for mounting on a shared app (`pnpm start`) or this service's own. */
export function dispatchRouter(deps: DispatchDeps): { path: string; router: Router } {
  return { path: DISPATCH_API_PATH, router: dispatchRoutes(deps) };
}

/** The dispatch service alone: health, its /api/v1 routes, JSON errors (404 for the rest). */
export function createDispatchApp(deps: DispatchDeps, healthRedis: Redis): Express {
  const metrics = createMetrics('dispatch');
  const app = createHttpApp({ logger: deps.logger, metrics, trustProxy: deps.config.TRUST_PROXY });
  app.use(
    healthRouter({
      db: deps.db,
      redis: healthRedis,
      metrics,
      metricsToken: deps.config.METRICS_TOKEN,
    }),
  );
  const { path, router } = dispatchRouter(deps);
  app.use(path, router);
  finishApp(app, { logger: deps.logger });
  return app;
}
