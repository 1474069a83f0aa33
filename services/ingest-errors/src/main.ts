import { migrateToLatest } from '@ferry/db';
import { configOrExit, onShutdown, openRuntime, runServices } from '@ferry/http';
import { loadIngestConfig } from './config.js';
import { ingestManifest } from './manifest.js';

// The ingest-errors service on its own: POST /ingest/errors and/or the worker that writes reports
// (INGEST_ROLE: http, worker, or both, the default). The worker alone serves no HTTP.
const config = configOrExit(loadIngestConfig);
if (config.MIGRATE_ON_START) await migrateToLatest(config.DATABASE_DIRECT_URL);
const runtime = openRuntime(config, 'ingest-errors');
const role = config.ingest.INGEST_ROLE;
const running = await runServices(
  runtime,
  { name: 'ingest-errors', listen: role !== 'worker' },
  (ctx) => [ingestManifest(ctx, config.ingest, role)],
);
if (role !== 'http') runtime.logger.info({ role }, 'error-ingest worker started');
onShutdown(runtime.logger, () => running.stop());
