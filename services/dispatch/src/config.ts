import { z } from 'zod';
import { defineConfig, loadAll, serviceConfig } from '@ferry/core';
import { loadGithubSettings, type GithubSettings } from '@ferry/github';

const loadShape = defineConfig({
  /** `http` (the REST API), `worker` (the flow), or both in one process (the default). */
  DISPATCH_ROLE: z.enum(['http', 'worker', 'all']).default('all'),
  /** First wait between polls of a running agent task; doubles each poll up to the max. */
  DISPATCH_POLL_MS: z.coerce.number().int().min(10).default(15_000),
  DISPATCH_POLL_MAX_MS: z.coerce.number().int().min(10).default(300_000),
  /** A task still running after this long is reported as timed out (default 24 h). */
  DISPATCH_GIVE_UP_MS: z.coerce.number().int().min(1_000).default(86_400_000),
  /** After a GitHub outage, 5xx or timeout: the first wait; doubles each failure in a row. */
  DISPATCH_RETRY_MS: z.coerce.number().int().min(10).default(5_000),
  /** Failures in a row before the dispatch fails (8: about 20 minutes of outage by default). */
  DISPATCH_RETRY_LIMIT: z.coerce.number().int().min(1).max(30).default(8),
  /** One GitHub HTTP call, connect to last byte. */
  GITHUB_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
});

export interface DispatchSettings {
  role: 'http' | 'worker' | 'all';
  github: GithubSettings;
  pollMs: number;
  pollMaxMs: number;
  giveUpMs: number;
  retryMs: number;
  retryLimit: number;
  githubTimeoutMs: number;
}

export function loadDispatchSettings(env: NodeJS.ProcessEnv = process.env): DispatchSettings {
  const { own, github } = loadAll({ own: loadShape, github: loadGithubSettings }, env);
  return {
    role: own.DISPATCH_ROLE,
    github,
    pollMs: own.DISPATCH_POLL_MS,
    pollMaxMs: Math.max(own.DISPATCH_POLL_MS, own.DISPATCH_POLL_MAX_MS),
    giveUpMs: own.DISPATCH_GIVE_UP_MS,
    retryMs: own.DISPATCH_RETRY_MS,
    retryLimit: own.DISPATCH_RETRY_LIMIT,
    githubTimeoutMs: own.GITHUB_TIMEOUT_MS,
  };
}

/** The whole config of the dispatch process; every problem listed at once. */
export const loadDispatchConfig = serviceConfig('dispatch', loadDispatchSettings);
export type DispatchConfig = ReturnType<typeof loadDispatchConfig>;
