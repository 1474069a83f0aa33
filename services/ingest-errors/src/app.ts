import type { Express, Router } from 'express';
import type { Redis } from 'ioredis';
import type { Config, Logger } from '@ferry/core';
import type { Db } from '@ferry/db';
import { createMetrics, createServiceApp } from '@ferry/http';
import { createProducer, type Producer } from '@ferry/queues';
import type { IngestSettings } from './config.js';
import type { IngestDeps } from './deps.js';
import { ingestRoutes } from './routes.js';
import { createAcceptGroups } from './accept.js';
import { createScrubRulesCache, createTenantCache } from '@ferry/workspace';

export interface IngestParts {
  config: Config;
  settings: IngestSettings;
  db: Db;
  logger: Logger;
  /** A `producer`-role connection (createRedisConnection); the caller closes it. */
  redis: Redis;
  /** Built on `redis` when absent. */
  producer?: Producer;
  /** The wall clock when absent (see IngestDeps.now). */
  now?: () => Date;
}

export function ingestDeps(parts: IngestParts): IngestDeps {
  const deps = {
    ...parts,
    producer:
      parts.producer ??
      createProducer({
        connection: parts.redis,
        prefix: parts.config.REDIS_PREFIX,
        logger: parts.logger,
      }),
    tenants: createTenantCache(parts.db),
    scrubbing: createScrubRulesCache(parts.db),
    now: parts.now ?? (() => new Date()),
  };
  return { ...deps, accepts: createAcceptGroups(deps) };
}

/** POST /ingest/errors, for mounting on a shared app (`pnpm start`) or this service's own. */
export function ingestRouter(deps: IngestDeps): Router {
  return ingestRoutes(deps);
}

/** The ingest service alone: health, the ingest route, JSON errors. */
export function createIngestApp(deps: IngestDeps, healthRedis: Redis): Express {
  return createServiceApp({
    ...deps,
    metrics: createMetrics('ingest-errors'),
    redis: healthRedis,
    mounts: [{ router: ingestRouter(deps), hot: true }],
  });
}
