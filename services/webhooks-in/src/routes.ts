import type { Router } from 'express';
import express, { type RequestHandler, type Response } from 'express';
import { AppError } from '@ferry/core';
import { access, hitRateLimit, mount, routeTable, type MountedTable } from '@ferry/http';
import {
  parseIncomingPost,
  pruneIdempotencyRecords,
  resolvePost,
  unknownKey,
  type LiveKey,
} from './accept.js';
import { readPayload } from './decode/request-body.js';
import type { WebhooksInDeps } from './deps.js';
import { createPostWriter } from './post-writer.js';

export const WEBHOOKS_IN_PATH = '/wh/in/:key';
const BODY_LIMIT = '256kb';
/** About 1 request in this many prunes a batch of expired idempotency records. */
const PRUNE_ONE_IN = 100;

function liveKey(res: Response): LiveKey {
  return (res.locals as { webhookKey: LiveKey }).webhookKey;
}

/**
 * POST /wh/in/<key>. No session, no CSRF, no auth header: the key in the path is the credential
 * (and the request logger redacts it, see @ferry/http's redactPath). Order matters: the key first
 * (so an unknown key answers the same 404 whatever the body), then the rate limit (so a flood costs
 * one Redis call each, before any parsing), then the body.
 */
export function webhooksInTable(deps: WebhooksInDeps): MountedTable {
  const posts = deps.posts ?? createPostWriter(deps.db, { logger: deps.logger });
  // The raw text, whatever the type: readPayload decides by Content-Type (JSON, a form's
  // `payload=`, or 415), and keeps the text as the original payload.
  const rawText = express.text({ limit: BODY_LIMIT, type: () => true });

  const findKey: RequestHandler = async (req, res, next) => {
    const key = await deps.keys.find(String(req.params.key ?? ''));
    if (!key) throw unknownKey();
    (res.locals as { webhookKey: LiveKey }).webhookKey = key;
    next();
  };

  const rateLimit: RequestHandler = async (_req, res, next) => {
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

  const routes = routeTable();
  routes.post(
    WEBHOOKS_IN_PATH,
    {
      access: access.key('the incoming webhook key in the path (keys.find)', findKey),
      secrets: { params: ['key'] },
      before: [rateLimit, rawText],
    },
    async (req, res) => {
      const key = liveKey(res);
      const raw = typeof req.body === 'string' ? req.body : undefined;
      const payload = readPayload(req.get('Content-Type'), raw);
      const post = parseIncomingPost(payload.value, req.get('Idempotency-Key'), {
        format: payload.format,
        payload: payload.original,
        truncated: payload.truncated,
      });
      const accepted = await posts.write(await resolvePost(deps.db, key, post));
      // Everyone who can open the room sees it live (SPEC.md: notify everyone), the key's creator
      // included: the outbox relay announces the committed message (packages/workspace live.ts).
      res.status(accepted.status).json({ message_id: accepted.messageId });
      if (Math.random() * PRUNE_ONE_IN < 1) {
        pruneIdempotencyRecords(deps.db).catch((err: unknown) =>
          deps.logger.warn({ err }, 'pruning idempotency records failed'),
        );
      }
    },
  );
  return { base: '/', table: routes };
}

export function webhooksInRoutes(deps: WebhooksInDeps): Router {
  // Case-sensitive: /WH/IN/<key> is not this route (and the key never reaches a handler).
  return mount(webhooksInTable(deps), { caseSensitive: true });
}
