import { migrateToLatest } from '@ferry/db';
import { configOrExit, onShutdown, openRuntime, runServices } from '@ferry/http';
import { loadAgentGatewayConfig } from './config.js';
import { agentGatewayManifest } from './manifest.js';

// The agent-gateway service on its own: /agents/v1 (SSE + JSON POSTs) and its two queues'
// workers. Scale it freely: any process may hold a stream; nudges reach them all over Redis.
const config = configOrExit(loadAgentGatewayConfig);
if (config.MIGRATE_ON_START) await migrateToLatest(config.DATABASE_DIRECT_URL);
const runtime = openRuntime(config, 'agent-gateway');
const running = await runServices(runtime, { name: 'agent-gateway' }, (ctx) => [
  agentGatewayManifest(ctx, config.agentGateway),
]);
onShutdown(runtime.logger, () => running.stop());
