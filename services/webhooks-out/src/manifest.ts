import { createDb } from '@ferry/db';
import type { ServiceContext, ServiceManifest } from '@ferry/http';
import type { WebhooksOutSettings } from './config.js';
import { webhooksOutJobs } from './worker.js';

/**
 * The webhooks-out service for runServices: the delivery workers (no routes of its own). With
 * `ownPool` (its own entry) the workers get a pool sized for hundreds of concurrent drains
 * (WEBHOOK_DB_POOL_SIZE) beside the runtime's, which serves /readyz; `pnpm start` shares one.
 */
export function webhooksOutManifest(
  ctx: ServiceContext,
  settings: WebhooksOutSettings,
  { ownPool = false }: { ownPool?: boolean } = {},
): ServiceManifest {
  const db = ownPool
    ? createDb(ctx.config.DATABASE_URL, { max: settings.dbPoolSize })
    : ctx.runtime.db;
  return {
    name: 'webhooks-out',
    // Active sends finish on stop; a send cut off by the orchestrator is re-sent when its lease
    // expires.
    jobs: webhooksOutJobs({
      config: ctx.config,
      settings,
      db,
      logger: ctx.runtime.logger,
      producerConnection: ctx.producerRedis,
    }),
    ...(ownPool ? { close: { resources: () => db.destroy() } } : {}),
  };
}
