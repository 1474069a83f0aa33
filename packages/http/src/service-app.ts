import type { Express, Request, RequestHandler, Response } from 'express';
import type { Redis } from 'ioredis';
import type { AppError, Config, Logger } from '@ferry/core';
import type { Db } from '@ferry/db';
import { createHttpApp, finishApp } from './app.js';
import { bodyTimeoutsOf } from './body-deadline.js';
import { healthRouter } from './health.js';
import type { Metrics } from './metrics.js';

export interface ServiceMount {
  /** app.use(path, router); the root when absent. */
  path?: string;
  router: RequestHandler;
  hot?: boolean;
}

export interface ServiceAppOptions {
  config: Pick<
    Config,
    | 'TRUST_PROXY'
    | 'METRICS_TOKEN'
    | 'BODY_TIMEOUT_MS'
    | 'INGEST_BODY_TIMEOUT_MS'
    | 'UPLOAD_BODY_TIMEOUT_MS'
  >;
  logger: Logger;
  metrics: Metrics;
  /** What /readyz pings. */
  db: Db;
  redis: Redis;
  /** In mount order; `hot` ones go before the request log (see createHttpApp's hotRoutes). */
  mounts: readonly ServiceMount[];
  /** The HTML error page for browsers (web); JSON errors otherwise. */
  renderHtml?: (req: Request, res: Response, error: AppError) => void;
}

/**
 * The app of one service, or of several in one process (`pnpm start`): hot mounts, the health
 * routes, the other mounts in order, then the 404 and error handlers. Every service's app is
 * assembled here, so none differs from what its entry serves.
 */
export function createServiceApp(options: ServiceAppOptions): Express {
  const { config, logger, metrics, mounts, renderHtml } = options;
  const app = createHttpApp({
    logger,
    metrics,
    trustProxy: config.TRUST_PROXY,
    bodyTimeouts: bodyTimeoutsOf(config),
    hotRoutes: mounts.filter((m) => m.hot).map((m) => m.router),
  });
  app.use(
    healthRouter({
      db: options.db,
      redis: options.redis,
      metrics,
      metricsToken: config.METRICS_TOKEN,
    }),
  );
  for (const mount of mounts.filter((m) => !m.hot)) {
    if (mount.path) app.use(mount.path, mount.router);
    else app.use(mount.router);
  }
  return finishApp(app, { logger, ...(renderHtml ? { renderHtml } : {}) });
}
