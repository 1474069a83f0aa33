import type { Redis } from 'ioredis';
import type { Config, Logger } from '@ferry/core';
import type { Db } from '@ferry/db';

/** What the web app's routes and domain functions are given; built once in main.ts or a test. */
export interface WebDeps {
  config: Config;
  db: Db;
  redis: Redis;
  logger: Logger;
}
