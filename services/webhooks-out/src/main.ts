import { migrateToLatest } from '@ferry/db';
import { configOrExit, onShutdown, openRuntime, runServices } from '@ferry/http';
import { loadWebhooksOutConfig } from './config.js';
import { webhooksOutManifest } from './manifest.js';

// The webhooks-out service on its own: the delivery workers, and HTTP only for /healthz, /readyz
// and /metrics (the container health check and Prometheus).
const config = configOrExit(loadWebhooksOutConfig);
if (config.MIGRATE_ON_START) await migrateToLatest(config.DATABASE_DIRECT_URL);
const runtime = openRuntime(config, 'webhooks-out');
const running = await runServices(runtime, { name: 'webhooks-out' }, (ctx) => [
  webhooksOutManifest(ctx, config.webhooksOut, { ownPool: true }),
]);
onShutdown(runtime.logger, () => running.stop());
