import os from 'node:os';
import { z } from 'zod';
import { loadAgentGatewaySettings, type AgentGatewaySettings } from '@ferry/agent-gateway';
import { defineConfig, loadAll, loadConfig, type Config } from '@ferry/core';
import { loadDispatchSettings, type DispatchSettings } from '@ferry/dispatch';
import { loadIngestSettings, type IngestSettings } from '@ferry/ingest-errors';
import { loadWebSettings, type WebSettings } from '@ferry/web';
import { loadWebhooksInSettings, type WebhooksInSettings } from '@ferry/webhooks-in';
import { loadWebhooksOutSettings, type WebhooksOutSettings } from '@ferry/webhooks-out';

const processCount = z.coerce
  .number({ error: 'must be a whole number' })
  .int('must be a whole number')
  .min(1, 'must be at least 1')
  .max(256, 'must be at most 256');

const loadProcessSettings = defineConfig({
  /** How many processes `pnpm start` runs (node:cluster workers on one port); 1: no cluster. */
  FERRY_PROCESSES: processCount.optional(),
  /** The name Heroku-style hosts set for the same thing; FERRY_PROCESSES wins when both are set. */
  WEB_CONCURRENCY: processCount.optional(),
});

/** The database's own URL (DATABASE_DIRECT_URL past a pooler), else the default's: this host. */
const DEFAULT_DATABASE_HOST = '127.0.0.1';
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * Whether Postgres runs on this host: its URL names a loopback address or a Unix socket (no host,
 * or a `host=/path` query). Past a transaction pooler, DATABASE_DIRECT_URL is Postgres itself.
 */
export function postgresIsLocal(env: NodeJS.ProcessEnv): boolean {
  const raw = env.DATABASE_DIRECT_URL || env.DATABASE_URL;
  let url: URL;
  try {
    url = new URL(raw || `postgres://${DEFAULT_DATABASE_HOST}/ferry`);
  } catch {
    return false; // loadConfig names the bad URL; the default is then the cores alone
  }
  if (!url.hostname || url.searchParams.get('host')?.startsWith('/')) return true;
  return LOOPBACK.test(url.hostname);
}

/**
 * FERRY_PROCESSES, else WEB_CONCURRENCY, else every core this process may use, less one when
 * Postgres runs on this host: measured on 2 cores with Postgres beside it (bench/RESULTS.md,
 * issue 48), one process cost 15-30 % less CPU per report, post and delivery than two, and had the
 * better incoming throughput and open-loop p99s; the second process only competed with Postgres
 * for the same cores.
 */
export function loadProcesses(env: NodeJS.ProcessEnv = process.env): number {
  const own = loadProcessSettings(env);
  const cores = os.availableParallelism();
  const byHost = Math.max(1, postgresIsLocal(env) ? cores - 1 : cores);
  return own.FERRY_PROCESSES ?? own.WEB_CONCURRENCY ?? byHost;
}

/** Everything `pnpm start` reads from the environment, parsed once: every problem listed at once. */
export interface FerryConfig {
  base: Config;
  /** Processes serving (1: this one; more: a node:cluster primary and that many workers). */
  processes: number;
  web: WebSettings;
  ingest: IngestSettings;
  webhooksIn: WebhooksInSettings;
  webhooksOut: WebhooksOutSettings;
  agentGateway: AgentGatewaySettings;
  dispatch: DispatchSettings;
}

export function loadFerryConfig(env: NodeJS.ProcessEnv = process.env): FerryConfig {
  return loadAll(
    {
      base: loadConfig,
      processes: loadProcesses,
      web: loadWebSettings,
      ingest: loadIngestSettings,
      webhooksIn: loadWebhooksInSettings,
      webhooksOut: loadWebhooksOutSettings,
      agentGateway: loadAgentGatewaySettings,
      dispatch: loadDispatchSettings,
    },
    env,
  );
}
