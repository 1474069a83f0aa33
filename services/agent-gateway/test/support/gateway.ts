import { createRedisConnection, redisReady, startJobs, type RunningJobs } from '@ferry/queues';
import {
  createApiToken,
  createMember,
  createTestContext,
  createWorkspace,
  startApp,
  type RunningApp,
  type TestContext,
} from '@ferry/testing';
import { startRelay } from '@ferry/workspace';
import type { Redis } from 'ioredis';
import { agentStreamHub, createAgentGatewayApp } from '../../src/app.js';
import { loadAgentGatewaySettings } from '../../src/config.js';
import { agentGatewayDeps, agentGatewayJobs } from '../../src/jobs/index.js';
import type { StreamHub } from '../../src/streams.js';
import { openSse, type SseClient } from './sse.js';

/**
 * The gateway as deployed, in one test process: its app on a random port, its workers, and the
 * outbox relay (so filed tickets and messages reach agents the production way).
 */
export interface Gateway {
  ctx: TestContext;
  url: string;
  hub: StreamHub;
  close(): Promise<void>;
}

export async function startGateway(env: Record<string, string> = {}): Promise<Gateway> {
  const ctx = await createTestContext(env);
  const connections: Redis[] = [
    createRedisConnection(ctx.config.redis, { role: 'producer' }),
    createRedisConnection(ctx.config.redis, { role: 'worker' }),
  ];
  await redisReady(connections[0]!);
  const options = {
    config: ctx.config,
    settings: loadAgentGatewaySettings(ctx.env),
    db: ctx.db,
    logger: ctx.logger,
    producerConnection: connections[0]!,
  };
  const deps = agentGatewayDeps(options);
  const hub = agentStreamHub(deps, ctx.redis.duplicate());
  const app: RunningApp = await startApp(createAgentGatewayApp({ ...deps, hub }, ctx.redis));
  const jobs: RunningJobs = startJobs([agentGatewayJobs(options)], {
    connection: connections[1]!,
    prefix: ctx.config.REDIS_PREFIX,
    logger: ctx.logger,
  });
  const relay = startRelay(ctx);
  return {
    ctx,
    url: app.url,
    hub,
    close: async () => {
      await relay.stop();
      await hub.close();
      await app.close();
      await jobs.stop();
      await deps.close();
      for (const c of connections) c.disconnect();
      await ctx.close();
    },
  };
}

/** A workspace with an owner and a platform:dispatch token. */
export async function agentWorkspace(gateway: Gateway, name = 'Acme') {
  const workspace = await createWorkspace(gateway.ctx.db, { name });
  const owner = await createMember(gateway.ctx.db, workspace, { role: 'owner' });
  const token = await createApiToken(gateway.ctx.db, workspace, { scopes: ['platform:dispatch'] });
  return { workspace, owner, token };
}

export function agentHeaders(
  token: string,
  installId: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return { authorization: `Bearer ${token}`, 'x-service-install-id': installId, ...extra };
}

export function connect(
  gateway: Gateway,
  token: string,
  installId: string,
  extra: Record<string, string> = {},
): Promise<SseClient> {
  return openSse(`${gateway.url}/agents/v1/stream`, agentHeaders(token, installId, extra));
}

export async function postJson(
  gateway: Gateway,
  path: string,
  token: string,
  installId: string,
  body: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${gateway.url}/agents/v1${path}`, {
    method: 'POST',
    headers: { ...agentHeaders(token, installId), 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}
