import { loadAgentGatewaySettings, type AgentGatewaySettings } from '@ferry/agent-gateway';
import { loadAll, loadConfig, type Config } from '@ferry/core';
import { loadDispatchSettings, type DispatchSettings } from '@ferry/dispatch';
import { loadIngestSettings, type IngestSettings } from '@ferry/ingest-errors';
import { loadWebSettings, type WebSettings } from '@ferry/web';
import { loadWebhooksInSettings, type WebhooksInSettings } from '@ferry/webhooks-in';
import { loadWebhooksOutSettings, type WebhooksOutSettings } from '@ferry/webhooks-out';

/** Everything `pnpm start` reads from the environment, parsed once: every problem listed at once. */
export interface FerryConfig {
  base: Config;
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
