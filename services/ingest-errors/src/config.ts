import { z } from 'zod';
import { booleanFromEnv, defineConfig, serviceConfig } from '@ferry/core';

/**
 * The ingest service's own settings, on top of the shared ones. Parsed once at start, like the base
 * config, so a typo in a number fails the process before it accepts a report.
 */
export const ingestConfigShape = {
  /** `false` turns ingestion off for the deployment: POST /ingest/errors answers 503. */
  ERROR_INGESTION_ENABLED: booleanFromEnv.default(true),
  /** SPEC.md: 120 reports per minute per workspace; raised for benchmarks and by self-hosters. */
  INGEST_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(120),
  /** SPEC.md: 20,000 stored occurrences per workspace; older ones are pruned. */
  ERROR_RETENTION_LIMIT: z.coerce.number().int().min(1).default(20_000),
  /**
   * Issue 41: what a workspace's uploaded source maps and pending upload chunks may take, in MB;
   * past it sentry-cli's upload is refused with 413 and says so.
   */
  SOURCE_MAP_QUOTA_MB: z.coerce.number().int().min(1).default(200),
  /**
   * What this process runs (main.ts): `http` (POST /ingest/errors only), `worker` (the
   * error-ingest writer only, off the HTTP event loop) or `all` (both). `pnpm start` runs
   * everything in one process whatever this says.
   */
  INGEST_ROLE: z.enum(['http', 'worker', 'all']).default('all'),
};

/** Only the ingest settings, for a process whose base config is loaded too (`pnpm start`). */
export const loadIngestSettings = defineConfig(ingestConfigShape);

export type IngestSettings = ReturnType<typeof loadIngestSettings>;

/** The whole config of the ingest process; every problem listed at once. */
export const loadIngestConfig = serviceConfig('ingest', loadIngestSettings);
export type IngestConfig = ReturnType<typeof loadIngestConfig>;
