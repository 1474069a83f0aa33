import type { RequestHandler, Response } from 'express';
import { AppError } from '@ferry/core';
import { groupedRateLimit } from '@ferry/http';
import { unknownKey, type LiveKey } from './accept.js';
import type { WebhooksInDeps } from './deps.js';

/**
 * What every `/wh/in/<key>…` route does before reading a body, whichever sender's answers it
 * gives: find the live key (so an unknown key answers the same 404 whatever the body), then count
 * the post against the key's rate limit (in Redis, before any parsing; grouped with the other
 * posts of the moment). SPEC.md's route and the sender-compatible ones share them, so a key's
 * limit is one budget across all its URLs.
 */
export interface KeyGate {
  findKey: RequestHandler;
  rateLimit: RequestHandler;
}

export function liveKey(res: Response): LiveKey {
  return (res.locals as { webhookKey: LiveKey }).webhookKey;
}

export function keyGate(deps: WebhooksInDeps): KeyGate {
  // The posts of the moment, across keys, are counted in one Redis call (a hot route).
  const limits = groupedRateLimit(deps.redis);
  const findKey: RequestHandler = async (req, res, next) => {
    const key = await deps.keys.find(String(req.params.key ?? ''));
    if (!key) throw unknownKey();
    (res.locals as { webhookKey: LiveKey }).webhookKey = key;
    next();
  };

  const rateLimit: RequestHandler = async (_req, res, next) => {
    const key = liveKey(res);
    let retryAfter: number | undefined;
    try {
      retryAfter = await limits.hit(
        `${deps.config.REDIS_PREFIX}:whin:rl:${key.id}`,
        deps.settings.WEBHOOK_RATE_LIMIT_PER_MINUTE,
      );
    } catch (error) {
      // Redis down or failing over (no master yet): a 503 the sender retries, as ingest answers,
      // not a 500. Nothing was stored yet.
      deps.logger.warn({ err: error }, 'rate limit check failed: redis unreachable');
      throw new AppError(
        'unavailable',
        'Posts cannot be accepted right now (the rate limit is unreachable); nothing was saved, send it again shortly.',
      );
    }
    if (retryAfter !== undefined) {
      throw new AppError(
        'rate_limited',
        `This key is over ${deps.settings.WEBHOOK_RATE_LIMIT_PER_MINUTE} posts per minute; retry after ${retryAfter} s.`,
        { headers: { 'Retry-After': String(retryAfter) } },
      );
    }
    next();
  };
  return { findKey, rateLimit };
}

/**
 * The same middleware, with any error it raises (thrown, rejected or passed to `next`) answered
 * by `answer` instead of the app's JSON error handler: Slack's senders expect Slack's text errors.
 */
export function answeringWith(
  answer: (error: unknown, res: Response) => void,
  middleware: RequestHandler,
): RequestHandler {
  return async (req, res, next) => {
    let failed = false;
    const fail = (error: unknown) => {
      if (failed || res.headersSent) return;
      failed = true;
      answer(error, res);
    };
    try {
      await middleware(req, res, (error?: unknown) => {
        if (error !== undefined && error !== 'route' && error !== 'router') fail(error);
        else next(error as undefined);
      });
    } catch (error) {
      fail(error);
    }
  };
}
