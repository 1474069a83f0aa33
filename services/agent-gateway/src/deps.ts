import type { Redis } from 'ioredis';
import type { Config, Logger, SecretBox } from '@ferry/core';
import type { Db } from '@ferry/db';
import type { Producer } from '@ferry/queues';
import type { ScrubRulesCache, Symbolicator } from '@ferry/workspace';
import type { AgentGatewaySettings } from './config.js';
import type { StreamHub } from './streams.js';

/** What the gateway's routes and jobs are given; built once per process. */
export interface AgentGatewayDeps {
  config: Config;
  settings: AgentGatewaySettings;
  db: Db;
  logger: Logger;
  /** Fail-fast connection: nudges. */
  redis: Redis;
  box: SecretBox;
  /** `agent-wake` jobs. */
  producer: Producer;
  /** A widget ticket's error stacks, mapped through the workspace's source maps (issue 45). */
  symbolicator: Symbolicator;
  /** The workspace's scrubbing rules, for what a work item carries. */
  scrubRules: ScrubRulesCache;
}

export interface AgentGatewayHttpDeps extends AgentGatewayDeps {
  hub: StreamHub;
}
