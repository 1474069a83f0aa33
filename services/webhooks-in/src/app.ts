import type { Express, Router } from 'express';
import type { Redis } from 'ioredis';
import { Emitter } from '@socket.io/redis-emitter';
import type { Config, Logger } from '@ferry/core';
import type { Db } from '@ferry/db';
import { createHttpApp, createMetrics, finishApp, healthRouter } from '@ferry/http';
import type { WebhooksInSettings } from './config.js';
import type { Announce, WebhooksInDeps } from './deps.js';
import { webhooksInRoutes } from './routes.js';

export interface WebhooksInParts {
  config: Config;
  settings: WebhooksInSettings;
  db: Db;
  logger: Logger;
  /** A fail-fast (`producer` role) connection; the caller closes it. */
  redis: Redis;
  /** Built on `redis` when absent. */
  announce?: Announce;
}

/**
 * Announces a stored message to the web processes the way services/web/src/realtime.ts asks of a
 * non-web process: a `message:created` server-side event through the socket.io Redis adapter's
 * channel (same key prefix), so every web process re-checks who may see the room before it
 * delivers. Never `emitter.to(room).emit(...)`, which would skip that check. Best effort: the
 * message is stored either way, and a page that missed it shows it on its next load.
 */
export function redisAnnouncer(redis: Redis, config: Config, logger: Logger): Announce {
  const emitter = new Emitter(redis, { key: `${config.REDIS_PREFIX}:socket.io` });
  return (message) => {
    try {
      emitter.serverSideEmit('message:created', message);
    } catch (err) {
      logger.warn({ err, messageId: message.messageId }, 'live announcement failed');
    }
  };
}

export function webhooksInDeps(parts: WebhooksInParts): WebhooksInDeps {
  return {
    ...parts,
    announce: parts.announce ?? redisAnnouncer(parts.redis, parts.config, parts.logger),
  };
}

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
  });
  app.use(healthRouter({ db: deps.db, redis: healthRedis, metrics }));
  app.use(webhooksInRouter(deps));
  finishApp(app, { logger: deps.logger });
  return app;
}
