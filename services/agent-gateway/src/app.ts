import type { Express, Router } from 'express';
import type { Redis } from 'ioredis';
import { createHttpApp, createMetrics, finishApp, healthRouter } from '@ferry/http';
import type { AgentGatewayHttpDeps } from './deps.js';
import { agentGatewayRoutes } from './routes.js';
import { createStreamHub, type StreamHub } from './streams.js';
import type { AgentGatewayDeps } from './deps.js';

export const AGENT_GATEWAY_PATH = '/agents/v1';

/** The stream hub of this process: its own subscriber connection (subscribe mode). */
export function agentStreamHub(deps: AgentGatewayDeps, subscriber: Redis): StreamHub {
  return createStreamHub({
    db: deps.db,
    databaseUrl: deps.config.DATABASE_URL,
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
  const metrics = createMetrics('agent-gateway');
  const app = createHttpApp({ logger: deps.logger, metrics, trustProxy: deps.config.TRUST_PROXY });
  app.use(
    healthRouter({
      db: deps.db,
      redis: healthRedis,
      metrics,
      metricsToken: deps.config.METRICS_TOKEN,
    }),
  );
  const { path, router } = agentGatewayRouter(deps);
  app.use(path, router);
  finishApp(app, { logger: deps.logger });
  return app;
}
