import type { ServiceContext, ServiceManifest } from '@ferry/http';
import { webhooksInRouter } from './app.js';
import type { WebhooksInSettings } from './config.js';
import { createLiveKeyCache } from './key-cache.js';
import { createPostWriter } from './post-writer.js';

/** The webhooks-in service for runServices: POST /wh/in/<key>, a hot mount (no log line per post). */
export function webhooksInManifest(
  ctx: ServiceContext,
  settings: WebhooksInSettings,
): ServiceManifest {
  const { config, runtime } = ctx;
  const keys = createLiveKeyCache(runtime.db, {
    databaseUrl: config.DATABASE_DIRECT_URL,
    logger: runtime.logger,
  });
  const posts = createPostWriter(runtime.db, { logger: runtime.logger });
  const router = webhooksInRouter({
    config,
    settings,
    db: runtime.db,
    logger: runtime.logger,
    redis: ctx.producerRedis,
    keys,
    posts,
  });
  return {
    name: 'webhooks-in',
    mounts: [{ router, hot: true }],
    close: {
      // Requests still in flight have had their answers: write anything still queued.
      requests: async () => {
        await posts.stop();
        await keys.close();
      },
    },
  };
}
