import { migrateToLatest } from '@ferry/db';
import { configOrExit, onShutdown, openRuntime, runServices } from '@ferry/http';
import { loadWebConfig } from './config.js';
import { webManifest } from './manifest.js';

// The web service on its own: pages, /api/v1 (except dispatch), socket.io for pages. It writes
// most outbox events (messages, feedback), so it relays them too (safe to scale) unless
// WEB_RELAY=false because the `relay` service does (compose).
const config = configOrExit(loadWebConfig);
if (config.MIGRATE_ON_START) await migrateToLatest(config.DATABASE_DIRECT_URL);
const runtime = openRuntime(config, 'web');
const running = await runServices(runtime, { name: 'web' }, (ctx) => [
  webManifest(ctx, config.web, { relay: config.web.runRelay }),
]);
onShutdown(runtime.logger, () => running.stop());
