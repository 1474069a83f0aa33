import type { Logger, SecretBox } from '@ferry/core';
import type { Db } from '@ferry/db';
import type { Producer } from '@ferry/queues';
import type { WebhooksOutSettings } from './config.js';
import type { Pacer } from './pacing.js';
import type { RunGroups } from './run-groups.js';

/** What the webhooks-out jobs are given. */
export interface WebhooksOutDeps {
  db: Db;
  box: SecretBox;
  /** Enqueues drain jobs (wake-ups, continuations). */
  producer: Producer;
  logger: Logger;
  settings: WebhooksOutSettings;
  /** Claims and records runs, grouped with the other hooks draining in this process. */
  runs: RunGroups;
  /** Spaces each rate-limited hook's sends (event endpoints' max_per_second). */
  pacer: Pacer;
}
