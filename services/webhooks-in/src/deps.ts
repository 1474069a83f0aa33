import type { Redis } from 'ioredis';
import type { Config, Logger } from '@ferry/core';
import type { Db } from '@ferry/db';
import type { WebhooksInSettings } from './config.js';

/** Tells every web process about a stored message, so open room pages show it live. */
export type Announce = (message: { roomId: string; messageId: string }) => void;

/** What the route and domain functions are given; built once in main.ts, server.ts or a test. */
export interface WebhooksInDeps {
  config: Config;
  settings: WebhooksInSettings;
  db: Db;
  logger: Logger;
  /** A fail-fast connection for the rate limit and the announcement. */
  redis: Redis;
  announce: Announce;
}
