import type { Redis } from 'ioredis';
import { SecretBox, type Config, type Logger } from '@ferry/core';
import type { Db } from '@ferry/db';
import { createGitHubClient, type GitHubClient } from '@ferry/github';
import { createProducer, type Producer } from '@ferry/queues';
import { createSymbolicator, type Symbolicator } from '@ferry/workspace';
import type { WebSettings } from './config.js';
import { dispatchCardPlugin } from './features/agents/dispatch-card.js';
import type { PageCards } from './shared/page-cards.js';

export type { PageCard, PageCards } from './shared/page-cards.js';

/** What the web app's routes are given: built once per process (webDeps), closed on shutdown. */
export interface WebDeps {
  config: Config;
  settings: WebSettings;
  db: Db;
  redis: Redis;
  logger: Logger;
  /** Seals and opens stored secrets (webhook keys, signing secrets) under APP_SECRET. */
  box: SecretBox;
  /** Jobs for other services ('Send again', test events, re-enable wake-ups for webhooks-out). */
  producer: Producer;
  cards: PageCards;
  /** The GitHub App's client; null when GITHUB_* is not configured (the GitHub page says so). */
  github: GitHubClient | null;
  /** Maps minified frames through uploaded source maps when errors are shown (issue 41). */
  symbolicator: Symbolicator;
}

export interface WebResources extends WebDeps {
  /** Closes what webDeps opened (the producer's queues); not the db or Redis it was given. */
  close(): Promise<void>;
}

/** The web app's deps from a process's connections and its parsed settings. */
export function webDeps(
  base: { config: Config; db: Db; redis: Redis; logger: Logger },
  settings: WebSettings,
  cards: Partial<PageCards> = {},
): WebResources {
  // The producer shares the app's Redis connection; a Queue never closes a connection it was given.
  const producer = createProducer({
    connection: base.redis,
    prefix: base.config.REDIS_PREFIX,
    logger: base.logger,
  });
  return {
    config: base.config,
    settings,
    db: base.db,
    redis: base.redis,
    logger: base.logger,
    box: new SecretBox(base.config.APP_SECRET),
    producer,
    // The Dispatch card is web's own; callers may replace either list.
    cards: {
      dashboard: cards.dashboard ?? [dispatchCardPlugin(base.config)],
      tokens: cards.tokens ?? [dispatchCardPlugin(base.config)],
    },
    github: settings.github.configured ? createGitHubClient(settings.github.app) : null,
    // A map uploaded a moment ago shows on the next page view (see missTtlMs).
    symbolicator: createSymbolicator(base.db, { missTtlMs: 3_000 }),
    close: () => producer.close(),
  };
}
