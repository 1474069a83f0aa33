import type { Redis } from 'ioredis';
import type { Config, Logger } from '@ferry/core';
import type { Db } from '@ferry/db';
import type { WebhooksInSettings } from './config.js';
import type { LiveKeyCache } from './key-cache.js';
import type { PostWriter } from './post-writer.js';

/** What the route and domain functions are given; built once in main.ts, server.ts or a test. */
export interface WebhooksInDeps {
  config: Config;
  settings: WebhooksInSettings;
  db: Db;
  logger: Logger;
  /** A fail-fast connection for the rate limit. */
  redis: Redis;
  /** Live keys, cached in this process and dropped at commit of any change (key-cache.ts). */
  keys: LiveKeyCache;
  /**
   * Group commit for accepted posts (post-writer.ts). A process that closes its pool gives one and
   * stops it first, so queued posts are written; without one the router makes its own (it holds no
   * connection or timer of its own, so nothing leaks; at shutdown its queued posts answer the pool's
   * error instead of being written).
   */
  posts?: PostWriter;
}
