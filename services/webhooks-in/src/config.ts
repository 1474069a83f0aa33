import { z } from 'zod';
import { ConfigError, loadConfig, type Config } from '@ferry/core';

/** This service's own settings on top of the shared ones; parsed once at start. */
export const webhooksInConfigShape = {
  /** SPEC.md: 60 posts per minute per key by default; raised for benchmarks and by self-hosters. */
  WEBHOOK_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(60),
};

const settingsSchema = z.object(webhooksInConfigShape);

export type WebhooksInSettings = z.infer<typeof settingsSchema>;

export interface WebhooksInConfig extends Config {
  webhooksIn: WebhooksInSettings;
}

/** Only this service's settings, for a process whose base config is already loaded (`pnpm start`). */
export function loadWebhooksInSettings(env: NodeJS.ProcessEnv = process.env): WebhooksInSettings {
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const result = settingsSchema.safeParse(cleaned);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => `${issue.path.join('.') || '(env)'}: ${issue.message}`),
    );
  }
  return result.data;
}

export function loadWebhooksInConfig(env: NodeJS.ProcessEnv = process.env): WebhooksInConfig {
  return { ...loadConfig(env), webhooksIn: loadWebhooksInSettings(env) };
}
