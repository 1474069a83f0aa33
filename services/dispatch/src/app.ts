import type { Express, Router } from 'express';
import type { Redis } from 'ioredis';
import { createMetrics, createServiceApp } from '@ferry/http';
import type { DispatchDeps } from './deps.js';
import { dispatchRoutes } from './routes.js';

export const DISPATCH_API_PATH = '/api/v1';

/** The dispatch routes, for mounting on a shared app (`pnpm start`) or this service's own. */
export function dispatchRouter(deps: DispatchDeps): { path: string; router: Router } {
  return { path: DISPATCH_API_PATH, router: dispatchRoutes(deps) };
}

/** The dispatch service alone: health, its /api/v1 routes, JSON errors (404 for the rest). */
export function createDispatchApp(deps: DispatchDeps, healthRedis: Redis): Express {
  return createServiceApp({
    ...deps,
    metrics: createMetrics('dispatch'),
    redis: healthRedis,
    mounts: [dispatchRouter(deps)],
  });
}
