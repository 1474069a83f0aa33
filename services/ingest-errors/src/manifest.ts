import type { ServiceContext, ServiceManifest } from '@ferry/http';
import { ingestDeps, ingestRouter } from './app.js';
import type { IngestSettings } from './config.js';
import type { QueueName } from '@ferry/queues';
import { errorWriterJobs, INGEST_QUEUES } from './worker.js';

/**
 * The ingest-errors service for runServices: POST /ingest/errors (a hot mount: no request log
 * line per report) and/or the workers of its queues (INGEST_ROLE; `pnpm start` runs both).
 * `queues`: which of the service's queues this manifest's workers consume (all unless given):
 * `pnpm start` runs the error writer's on a thread of its own, off the event loop that answers
 * POST /ingest/errors.
 */
export function ingestManifest(
  ctx: ServiceContext,
  settings: IngestSettings,
  role: IngestSettings['INGEST_ROLE'] = 'all',
  queues: readonly QueueName[] = INGEST_QUEUES,
): ServiceManifest {
  const { config, runtime } = ctx;
  const shared = { config, db: runtime.db, logger: runtime.logger };
  const deps =
    role === 'worker' ? undefined : ingestDeps({ ...shared, settings, redis: ctx.producerRedis });
  return {
    name: 'ingest-errors',
    ...(deps ? { mounts: [{ router: ingestRouter(deps), hot: true }] } : {}),
    ...(role === 'http' || queues.length === 0
      ? {}
      : {
          jobs: errorWriterJobs(
            {
              ...shared,
              retentionLimit: settings.ERROR_RETENTION_LIMIT,
              // Committed batches are announced to open Errors pages on the runtime's connection.
              announceOn: runtime.redis,
            },
            queues,
          ),
        }),
    // Requests in flight have had their answers (a 202 only once queued) before this closes.
    ...(deps ? { close: { resources: () => deps.producer.close() } } : {}),
  };
}
