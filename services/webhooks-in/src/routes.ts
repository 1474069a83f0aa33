import type { Router } from 'express';
import express from 'express';
import { access, mount, routeTable, type MountedTable } from '@ferry/http';
import { parseIncomingPost, pruneIdempotencyRecords, resolvePost } from './accept.js';
import {
  BODY_CONTENT_TYPES,
  incomingBodySchema,
  LENIENT_PAYLOADS,
  messageIdJsonSchema,
  webhookKeyParams,
} from './api-schemas.js';
import { readPayload } from './decode/request-body.js';
import type { WebhooksInDeps } from './deps.js';
import { keyGate, liveKey } from './gate.js';
import { addGithubRoute } from './github-route.js';
import { createPostWriter } from './post-writer.js';
import { addSlackRoutes } from './slack-route.js';

export const WEBHOOKS_IN_PATH = '/wh/in/:key';
const BODY_LIMIT = '256kb';
/** About 1 request in this many prunes a batch of expired idempotency records. */
const PRUNE_ONE_IN = 100;

/**
 * POST /wh/in/<key>. No session, no CSRF, no auth header: the key in the path is the credential
 * (and the request logger redacts it, see @ferry/http's redactPath). Order matters: the key first
 * (so an unknown key answers the same 404 whatever the body), then the rate limit (so a flood costs
 * one Redis call each, before any parsing), then the body (gate.ts).
 *
 * Beside it, under the same key, the sender-compatible URLs (issue 44): `/slack` (Slack's and
 * Mattermost's answers, slack-route.ts) and `/github` (GitHub deliveries, github-route.ts).
 */
export function webhooksInTable(deps: WebhooksInDeps): MountedTable {
  const posts = deps.posts ?? createPostWriter(deps.db, { logger: deps.logger });
  // The raw text, whatever the type: readPayload decides by Content-Type (JSON, a form's
  // `payload=`, or 415), and keeps the text as the original payload.
  const rawText = express.text({ limit: BODY_LIMIT, type: () => true });
  const gate = keyGate(deps);
  const { findKey, rateLimit } = gate;

  const routes = routeTable();
  routes.post(
    WEBHOOKS_IN_PATH,
    {
      access: access.key('the incoming webhook key in the path (keys.find)', findKey),
      secrets: { params: ['key'] },
      bodyTimeout: 'ingest',
      before: [rateLimit, rawText],
      doc: {
        summary: 'Post a message to a room',
        description:
          'No authentication header and no CSRF token: the key in the path is the credential. An optional `Idempotency-Key` header (up to 255 characters) wins over the `idempotency_key` field. An unknown, disabled or deleted key is one identical 404; a missing or over-long message text is a 422; too many posts under the key are a 429 with `Retry-After`.',
        tag: 'Incoming webhooks',
        security: 'webhookKey',
        params: webhookKeyParams,
        // Read by the payload families' decoders (decode/), which accept more than SPEC.md's
        // fields: described, not validated, so nothing they take is refused here.
        rawBody: {
          contentTypes: BODY_CONTENT_TYPES,
          description:
            'SPEC.md’s JSON object; also a form with the JSON in `payload` (or plain fields), as Slack senders post.',
          schema: incomingBodySchema,
          outsideSchema: LENIENT_PAYLOADS,
        },
        responses: {
          201: { description: 'Posted: the new message’s id.', schema: messageIdJsonSchema },
          200: {
            description:
              'An idempotent replay: nothing was posted, the id is the original message’s.',
            schema: messageIdJsonSchema,
          },
        },
      },
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
  addSlackRoutes(routes, deps, gate, posts, BODY_LIMIT);
  addGithubRoute(routes, deps, gate, posts);
  return { base: '/', table: routes };
}

export function webhooksInRoutes(deps: WebhooksInDeps): Router {
  // Case-sensitive: /WH/IN/<key> is not this route (and the key never reaches a handler).
  return mount(webhooksInTable(deps), { caseSensitive: true });
}
