import { z } from 'zod';
import { defineConfig, serviceConfig } from '@ferry/core';

/** This service's own settings on top of the shared ones; parsed once at start. */
export const webhooksInConfigShape = {
  /** SPEC.md: 60 posts per minute per key by default; raised for benchmarks and by self-hosters. */
  WEBHOOK_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(60),
};

/** Only this service's settings, for a process whose base config is loaded too (`pnpm start`). */
export const loadWebhooksInSettings = defineConfig(webhooksInConfigShape);

export type WebhooksInSettings = ReturnType<typeof loadWebhooksInSettings>;

/** The whole config of the webhooksIn process; every problem listed at once. */
export const loadWebhooksInConfig = serviceConfig('webhooksIn', loadWebhooksInSettings);
export type WebhooksInConfig = ReturnType<typeof loadWebhooksInConfig>;
