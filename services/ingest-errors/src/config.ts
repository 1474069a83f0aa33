import { z } from 'zod';
import { baseConfigShape, ConfigError, loadConfig, type Config } from '@ferry/core';

/**
 * The ingest service's own settings, on top of the shared ones. Parsed once at start, like the base
 * config, so a typo in a number fails the process before it accepts a report.
 */
const enabledFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

export const ingestConfigShape = {
  /** `false` turns ingestion off for the deployment: POST /ingest/errors answers 503. */
  ERROR_INGESTION_ENABLED: enabledFromEnv.default(true),
  /** SPEC.md: 120 reports per minute per workspace; raised for benchmarks and by self-hosters. */
  INGEST_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(120),
  /** SPEC.md: 20,000 stored occurrences per workspace; older ones are pruned. */
  ERROR_RETENTION_LIMIT: z.coerce.number().int().min(1).default(20_000),
  /**
   * What this process runs (main.ts): `http` (POST /ingest/errors only), `worker` (the
   * error-ingest writer only, off the HTTP event loop) or `all` (both). `pnpm start` runs
   * everything in one process whatever this says.
   */
  INGEST_ROLE: z.enum(['http', 'worker', 'all']).default('all'),
};

const ingestSettingsSchema = z.object(ingestConfigShape);

/** The shared schema extended with ours: what this service reads from the environment. */
export const ingestConfigSchema = z.object({ ...baseConfigShape, ...ingestConfigShape });

export type IngestSettings = z.infer<typeof ingestSettingsSchema>;

export interface IngestConfig extends Config {
  ingest: IngestSettings;
}

/**
 * Only the ingest settings, for a process whose base config is already loaded (`pnpm start`).
 * Empty values count as unset, as in loadConfig.
 */
export function loadIngestSettings(env: NodeJS.ProcessEnv = process.env): IngestSettings {
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const result = ingestSettingsSchema.safeParse(cleaned);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => `${issue.path.join('.') || '(env)'}: ${issue.message}`),
    );
  }
  return result.data;
}

/** The whole config of the ingest-errors process. Throws a ConfigError listing the problems. */
export function loadIngestConfig(env: NodeJS.ProcessEnv = process.env): IngestConfig {
  return { ...loadConfig(env), ingest: loadIngestSettings(env) };
}
