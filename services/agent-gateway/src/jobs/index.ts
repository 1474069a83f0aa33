import type { Redis } from 'ioredis';
import { SecretBox, type Config, type Logger } from '@ferry/core';
import type { Db } from '@ferry/db';
import {
  createProducer,
  QUICK_STALL_HANDOFF,
  type QueueName,
  type ServiceJobs,
} from '@ferry/queues';
import { createScrubRulesCache, createSymbolicator } from '@ferry/workspace';
import type { AgentGatewaySettings } from '../config.js';
import type { AgentGatewayDeps } from '../deps.js';
import { routeWork } from './route-work.js';
import { wakeAgent } from './wake.js';

/** The queues the agent-gateway service consumes. */
export const AGENT_GATEWAY_QUEUES: readonly QueueName[] = ['agent-work', 'agent-wake'];

export interface AgentGatewayJobOptions {
  config: Config;
  settings: AgentGatewaySettings;
  db: Db;
  logger: Logger;
  /** A `producer`-role connection: nudges and wake jobs. The caller closes it. */
  producerConnection: Redis;
}

export function agentGatewayDeps(options: AgentGatewayJobOptions): AgentGatewayDeps & {
  close(): Promise<void>;
} {
  const producer = createProducer({
    connection: options.producerConnection,
    prefix: options.config.REDIS_PREFIX,
    logger: options.logger,
  });
  return {
    config: options.config,
    settings: options.settings,
    db: options.db,
    logger: options.logger,
    redis: options.producerConnection,
    box: new SecretBox(options.config.APP_SECRET),
    producer,
    // A map uploaded a moment ago must count for the next ticket, as on the group page.
    symbolicator: createSymbolicator(options.db, { missTtlMs: 3_000 }),
    scrubRules: createScrubRulesCache(options.db),
    close: () => producer.close(),
  };
}

/**
 * Routing and waking are idempotent (a work item is logged once per source; a wake is claimed per
 * episode), so re-running a job any number of times is safe: a killed process's jobs move on fast.
 */
const STALLED = QUICK_STALL_HANDOFF;

/** agent-work (route into work logs) and agent-wake (wake requests). */
export function agentGatewayJobs(options: AgentGatewayJobOptions): ServiceJobs {
  const deps = agentGatewayDeps(options);
  return {
    service: 'agent-gateway',
    consumes: AGENT_GATEWAY_QUEUES,
    handlers: {
      // One at a time: the relay enqueues in commit order, so an agent's work log keeps the order
      // its messages were written in (a follow-up never arrives before what it follows).
      'agent-work': {
        handler: (payload) => routeWork(deps, payload),
        options: { bull: STALLED, concurrency: 1 },
      },
      'agent-wake': { handler: (payload) => wakeAgent(deps, payload), options: { bull: STALLED } },
    },
    close: () => deps.close(),
  };
}
