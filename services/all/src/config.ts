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

/** FERRY_PROCESSES, else WEB_CONCURRENCY, else every core this process may use. */
export function loadProcesses(env: NodeJS.ProcessEnv = process.env): number {
  const own = loadProcessSettings(env);
  return own.FERRY_PROCESSES ?? own.WEB_CONCURRENCY ?? os.availableParallelism();
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
