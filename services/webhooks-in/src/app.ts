import { Router, type Express } from 'express';
import type { Redis } from 'ioredis';
import {
  createMetrics,
  createServiceApp,
  notFoundHandler,
  routesOf,
  shareRoutes,
} from '@ferry/http';
import type { WebhooksInDeps } from './deps.js';
import { discordRoutes } from './discord/routes.js';
import { webhooksInRoutes } from './routes.js';

/**
 * POST /wh/in/:key and its Discord-compatible paths (/wh/in/:key/discord/...), for mounting on a
 * shared app (`pnpm start`, tests) or this service's own.
 */
export function webhooksInRouter(deps: WebhooksInDeps): Router {
  const router = Router();
  const posts = webhooksInRoutes(deps);
  const discord = discordRoutes(deps);
  router.use(posts);
  router.use(discord);
  // A hot mount: the posts' routes are answered before the express stack (@ferry/http
  // hotDispatch). Not Discord's: their errors are answered by Discord's error handler.
  shareRoutes(router, routesOf(posts));
  // Anything else under /wh/in is a mistyped sender URL: a JSON 404, not a page behind CSRF.
  // Case-sensitive like the key routes: /WH/IN/... is no sender URL of ours and goes on as before.
  const unknownSenderPath = Router({ caseSensitive: true });
  unknownSenderPath.use('/wh/in', notFoundHandler);
  router.use(unknownSenderPath);
  return router;
}

/** The webhooks-in service alone: health, the ingest route, JSON errors. */
export function createWebhooksInApp(deps: WebhooksInDeps, healthRedis: Redis): Express {
  return createServiceApp({
    ...deps,
    metrics: createMetrics('webhooks-in'),
    redis: healthRedis,
    // A post costs no request log line: at thousands per second it was a visible share of CPU.
    mounts: [{ router: webhooksInRouter(deps), hot: true }],
  });
}
