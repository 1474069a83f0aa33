import type { Redis } from 'ioredis';
import { SecretBox, type Config, type Logger } from '@ferry/core';
import type { Db } from '@ferry/db';
import { createGitHubClient, type GitHubClient } from '@ferry/github';
import { createProducer, type Producer } from '@ferry/queues';
import type { DispatchSettings } from './config.js';

/** What the dispatch routes and jobs are given; built once per process. */
export interface DispatchDeps {
  config: Config;
  settings: DispatchSettings;
  db: Db;
  logger: Logger;
  box: SecretBox;
  /** Null without the GitHub App's variables: dispatches then fail with a message saying so. */
  github: GitHubClient | null;
  /** Follow-up `dispatch` jobs (the next step or poll, delayed). */
  producer: Producer;
}

export interface DispatchDepsOptions {
  config: Config;
  settings: DispatchSettings;
  db: Db;
  logger: Logger;
  /** A `producer`-role connection; the caller closes it. */
  producerConnection: Redis;
}

export function dispatchDeps(options: DispatchDepsOptions): DispatchDeps & {
  close(): Promise<void>;
} {
  const producer = createProducer({
    connection: options.producerConnection,
    prefix: options.config.REDIS_PREFIX,
    logger: options.logger,
  });
  const github = options.settings.github;
  return {
    config: options.config,
    settings: options.settings,
    db: options.db,
    logger: options.logger,
    box: new SecretBox(options.config.APP_SECRET),
    github: github.configured
      ? createGitHubClient(github.app, { timeoutMs: options.settings.githubTimeoutMs })
      : null,
    producer,
    close: () => producer.close(),
  };
}
