import type { Redis } from 'ioredis';
import type { Config, Logger } from '@ferry/core';
import type { Db } from '@ferry/db';
import type { Producer } from '@ferry/queues';
import type { IngestSettings } from './config.js';
import type { ScrubRulesCache, TenantCache } from '@ferry/workspace';
import type { AcceptGroups } from './accept-types.js';

/** What the ingest routes and domain functions are given; built once in main.ts, server.ts or a test. */
export interface IngestDeps {
  config: Config;
  settings: IngestSettings;
  db: Db;
  logger: Logger;
  /**
   * A fail-fast (`producer` role) connection: the rate limit and the enqueue both use it, so a
   * request answers 503 at once while Redis is down instead of waiting on a retry queue.
   */
  redis: Redis;
  producer: Producer;
  tenants: TenantCache;
  /** Each workspace's scrubbing rules (Settings > Error reporting), kept as long as `tenants`. */
  scrubbing: ScrubRulesCache;
  /** Group commit of accepted reports: rate-limit takes and enqueues, one round trip per group. */
  accepts: AcceptGroups;
  /**
   * The time a request is received at: its reports' fallback occurred_at and the rate-limit
   * minute it counts in. The wall clock, except in tests that must not straddle a minute.
   */
  now: () => Date;
}
