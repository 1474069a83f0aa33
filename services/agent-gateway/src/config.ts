import { z } from 'zod';
import {
  defineConfig,
  loadAll,
  serviceConfig,
  loadSsrfSettings,
  type SsrfSettings,
} from '@ferry/core';

const loadShape = defineConfig({
  /** A comment line on every open stream this often (DESIGN.md: 15 s), to keep proxies open. */
  AGENT_KEEPALIVE_MS: z.coerce.number().int().min(50).max(60_000).default(15_000),
  /** While work stays queued for an offline agent, its wake request is repeated this often. */
  AGENT_WAKE_REPEAT_MS: z.coerce.number().int().min(100).default(300_000),
  /** One wake request, connect to last byte. */
  AGENT_WAKE_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
});

export interface AgentGatewaySettings {
  keepaliveMs: number;
  wakeRepeatMs: number;
  wakeTimeoutMs: number;
  /** ALLOW_PRIVATE_WEBHOOK_TARGETS: wake URLs are checked like webhook targets. */
  ssrf: SsrfSettings;
}

export function loadAgentGatewaySettings(
  env: NodeJS.ProcessEnv = process.env,
): AgentGatewaySettings {
  const { own, ssrf } = loadAll({ own: loadShape, ssrf: loadSsrfSettings }, env);
  return {
    keepaliveMs: own.AGENT_KEEPALIVE_MS,
    wakeRepeatMs: own.AGENT_WAKE_REPEAT_MS,
    wakeTimeoutMs: own.AGENT_WAKE_TIMEOUT_MS,
    ssrf,
  };
}

/** The whole config of the agentGateway process; every problem listed at once. */
export const loadAgentGatewayConfig = serviceConfig('agentGateway', loadAgentGatewaySettings);
export type AgentGatewayConfig = ReturnType<typeof loadAgentGatewayConfig>;
