import type { Express, Router } from 'express';
import type { Redis } from 'ioredis';
import { createMetrics, createServiceApp } from '@ferry/http';
import type { AgentGatewayHttpDeps } from './deps.js';
import { agentGatewayRoutes } from './routes.js';
import { createStreamHub, type StreamHub } from './streams.js';
import type { AgentGatewayDeps } from './deps.js';

export const AGENT_GATEWAY_PATH = '/agents/v1';

/** The stream hub of this process: its own subscriber connection (subscribe mode). */
export function agentStreamHub(deps: AgentGatewayDeps, subscriber: Redis): StreamHub {
  return createStreamHub({
    db: deps.db,
    databaseUrl: deps.config.DATABASE_DIRECT_URL,
    subscriber,
    prefix: deps.config.REDIS_PREFIX,
    logger: deps.logger,
    keepaliveMs: deps.settings.keepaliveMs,
  });
}

/** /agents/v1, for mounting on a shared app (`pnpm start`, tests) or this service's own. */
export function agentGatewayRouter(deps: AgentGatewayHttpDeps): { path: string; router: Router } {
  return { path: AGENT_GATEWAY_PATH, router: agentGatewayRoutes(deps) };
}

/** The agent-gateway service alone: health, /agents/v1, JSON errors. */
export function createAgentGatewayApp(deps: AgentGatewayHttpDeps, healthRedis: Redis): Express {
  return createServiceApp({
    ...deps,
    metrics: createMetrics('agent-gateway'),
    redis: healthRedis,
    mounts: [agentGatewayRouter(deps)],
  });
}
