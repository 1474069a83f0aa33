import { migrateToLatest } from '@ferry/db';
import { configOrExit, onShutdown, openRuntime, runServices } from '@ferry/http';
import { loadDispatchConfig } from './config.js';
import { dispatchManifest } from './manifest.js';

// The dispatch service on its own: GET /api/v1/repos and POST /api/v1/feedback/:id/dispatch
// (DISPATCH_ROLE http), the hosted-agent flow's worker (worker), or both (all, the default). The
// worker role still answers /healthz, /readyz and /metrics (for the orchestrator's probes).
const config = configOrExit(loadDispatchConfig);
if (config.MIGRATE_ON_START) await migrateToLatest(config.DATABASE_DIRECT_URL);
const runtime = openRuntime(config, 'dispatch');
if (!config.dispatch.github.configured) {
  runtime.logger.warn(
    { missing: config.dispatch.github.missing },
    'GitHub App not configured: dispatches will fail until these variables are set',
  );
}
const running = await runServices(runtime, { name: 'dispatch' }, (ctx) => [
  dispatchManifest(ctx, config.dispatch),
]);
onShutdown(runtime.logger, () => running.stop());
