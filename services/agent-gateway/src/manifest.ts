import type { ServiceContext, ServiceManifest } from '@ferry/http';
import { agentGatewayRouter, agentStreamHub } from './app.js';
import type { AgentGatewaySettings } from './config.js';
import { agentGatewayDeps, agentGatewayJobs } from './jobs/index.js';

/**
 * The agent-gateway service for runServices: /agents/v1 (SSE + JSON POSTs) and its queues'
 * workers. Safe in any number of processes: any may hold a stream; nudges reach them all over
 * Redis.
 */
export function agentGatewayManifest(
  ctx: ServiceContext,
  settings: AgentGatewaySettings,
): ServiceManifest {
  const options = {
    config: ctx.config,
    settings,
    db: ctx.runtime.db,
    logger: ctx.runtime.logger,
    producerConnection: ctx.producerRedis,
  };
  const deps = agentGatewayDeps(options);
  // duplicate() copies the options (Sentinels included) but not the listeners: without one,
  // ioredis prints every reconnect error of a Redis outage or failover to stderr.
  const subscriber = ctx.runtime.redis.duplicate();
  subscriber.on('error', (err: Error) => {
    ctx.runtime.logger.warn({ err: err.message }, 'agent stream redis error');
  });
  const hub = agentStreamHub(deps, subscriber);
  const { path, router } = agentGatewayRouter({ ...deps, hub });
  return {
    name: 'agent-gateway',
    mounts: [{ path, router }],
    jobs: agentGatewayJobs(options),
    close: {
      // Open streams end (their agents reconnect to another process and get their unacked work
      // again) while the server stops accepting, so none opens after the hub ended them.
      streams: () => hub.close(),
      resources: () => deps.close(),
    },
  };
}
