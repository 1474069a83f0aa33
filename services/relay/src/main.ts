import { loadConfig } from '@ferry/core';
import { migrateToLatest } from '@ferry/db';
import { configOrExit, onShutdown, openRuntime, runServices } from '@ferry/http';
import { relayManifest } from './manifest.js';

// The outbox relay on its own (compose's `relay`): hands committed outbox events to their queues
// and announces stored messages to every web process. Any number may run (rows are claimed with
// SKIP LOCKED); web stops running its own with WEB_RELAY=false.
const config = configOrExit(loadConfig);
if (config.MIGRATE_ON_START) await migrateToLatest(config.DATABASE_DIRECT_URL);
const runtime = openRuntime(config, 'relay');
const running = await runServices(runtime, { name: 'relay', listen: false }, (ctx) => [
  relayManifest(ctx),
]);
runtime.logger.info('outbox relay started');
onShutdown(runtime.logger, () => running.stop());
