import http from 'node:http';
import { loadConfig } from '@ferry/core';
import { migrateToLatest } from '@ferry/db';
import { configOrExit, listen, onShutdown, openRuntime } from '@ferry/http';
import { runOutboxRelay } from '@ferry/queues';
import { createWebApp } from './app.js';

// The web service on its own: pages, /api/v1 (except dispatch), socket.io for pages.
const config = configOrExit(loadConfig);
if (process.env.MIGRATE_ON_START === 'true') await migrateToLatest(config.DATABASE_URL);
const runtime = openRuntime(config, 'web');
const { app, realtime } = createWebApp(runtime);
const server = http.createServer(app);
realtime.attach(server);
await listen(server, config.PORT, runtime.logger);
// The web app writes most outbox events (messages, feedback); it relays them too. Safe to scale.
const relay = runOutboxRelay(runtime);
onShutdown(runtime.logger, async () => {
  await relay.stop();
  await realtime.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await runtime.close();
});
