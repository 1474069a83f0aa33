import http from 'node:http';
import { migrateToLatest } from '@ferry/db';
import { closeServer, configOrExit, listen, onShutdown, openRuntime } from '@ferry/http';
import { createWebApp, startOpsSampling } from './app.js';
import { loadWebConfig } from './config.js';
import { webDeps } from './deps.js';
import { startRelay } from '@ferry/workspace';

// The web service on its own: pages, /api/v1 (except dispatch), socket.io for pages.
const config = configOrExit(loadWebConfig);
if (config.MIGRATE_ON_START) await migrateToLatest(config.DATABASE_URL);
const runtime = openRuntime(config, 'web');
const deps = webDeps(runtime, config.web);
const { app, realtime } = createWebApp(deps);
const server = http.createServer(app);
realtime.attach(server);
await listen(server, config.PORT, runtime.logger);
// The web app writes most outbox events (messages, feedback); it relays them too, and announces
// every stored message to the pages that show it (safe to scale), unless WEB_RELAY=false because
// the `relay` service does (compose).
const relay = config.web.runRelay ? startRelay(runtime) : undefined;
const opsSampler = startOpsSampling(deps);
onShutdown(runtime.logger, async () => {
  await opsSampler.stop();
  // Stop accepting, disconnect the live sockets (pages reconnect to another web), let requests in
  // flight finish; the relay stops last so what they stored is relayed (or left for another).
  const closed = closeServer(server);
  await realtime.close();
  await closed;
  await relay?.stop();
  await deps.close();
  await runtime.close();
});
