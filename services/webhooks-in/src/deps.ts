import type { Redis } from 'ioredis';
import type { Config, Logger } from '@ferry/core';
import type { Db } from '@ferry/db';
import type { WebhooksInSettings } from './config.js';
import type { LiveKeyCache } from './key-cache.js';

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
}
