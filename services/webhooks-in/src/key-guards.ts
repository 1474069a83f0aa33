import type { RequestHandler, Response } from 'express';
import { AppError } from '@ferry/core';
import { hitRateLimit } from '@ferry/http';
import { unknownKey, type LiveKey } from './accept.js';
import type { WebhooksInDeps } from './deps.js';

/**
 * What every route under /wh/in/<key> runs first, whatever it answers like (SPEC.md's own, or a
 * sender-compatible one): the key (so an unknown key answers the same 404 whatever the body),
 * then the key's rate limit (so a flood costs one Redis call each, before any parsing).
 */

/** The key findKey put on the response. */
export function liveKey(res: Response): LiveKey {
  return (res.locals as { webhookKey: LiveKey }).webhookKey;
}

/** Looks the path's `:key` up (the live-key cache); 404 when it cannot post. */
export function findKey(deps: Pick<WebhooksInDeps, 'keys'>): RequestHandler {
  return async (req, res, next) => {
    const key = await deps.keys.find(String(req.params.key ?? ''));
    if (!key) throw unknownKey();
    (res.locals as { webhookKey: LiveKey }).webhookKey = key;
    next();
  };
}

/** The key's posts per minute (SPEC.md: 429 with Retry-After past it). */
export function keyRateLimit(
  deps: Pick<WebhooksInDeps, 'redis' | 'config' | 'settings'>,
): RequestHandler {
  return async (_req, res, next) => {
    const key = liveKey(res);
    const retryAfter = await hitRateLimit(
      deps.redis,
      `${deps.config.REDIS_PREFIX}:whin:rl:${key.id}`,
      deps.settings.WEBHOOK_RATE_LIMIT_PER_MINUTE,
    );
    if (retryAfter !== undefined) {
      throw new AppError(
        'rate_limited',
        `This key is over ${deps.settings.WEBHOOK_RATE_LIMIT_PER_MINUTE} posts per minute; retry after ${retryAfter} s.`,
        { headers: { 'Retry-After': String(retryAfter) } },
      );
    }
    next();
  };
}
