import { migrateToLatest } from '@ferry/db';
import { configOrExit, onShutdown, openRuntime, runServices } from '@ferry/http';
import { loadWebhooksInConfig } from './config.js';
import { webhooksInManifest } from './manifest.js';

// The webhooks-in service on its own: POST /wh/in/<key>.
const config = configOrExit(loadWebhooksInConfig);
if (config.MIGRATE_ON_START) await migrateToLatest(config.DATABASE_DIRECT_URL);
const runtime = openRuntime(config, 'webhooks-in');
const running = await runServices(runtime, { name: 'webhooks-in' }, (ctx) => [
  webhooksInManifest(ctx, config.webhooksIn),
]);
onShutdown(runtime.logger, () => running.stop());
