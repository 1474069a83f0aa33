import { createHmac, timingSafeEqual } from 'node:crypto';
import express from 'express';
import { AppError, SecretBox } from '@ferry/core';
import { access, errorBodySchema, type RouteTable } from '@ferry/http';
import { IDEMPOTENCY_KEY_MAX, resolvePost, type IncomingPost, type LiveKey } from './accept.js';
import { githubAnswerSchema, webhookKeyParams } from './api-schemas.js';
import { renderGithubEvent } from './decode/github.js';
import { isObject } from './decode/lenient.js';
import { readPayload } from './decode/request-body.js';
import type { WebhooksInDeps } from './deps.js';
import { liveKey, type KeyGate } from './gate.js';
import type { PostWriter } from './post-writer.js';

/**
 * `/wh/in/<key>/github`: a GitHub webhook's Payload URL
 * (https://docs.github.com/en/webhooks/using-webhooks/creating-webhooks). Each delivery becomes
 * one short message (decode/github.ts) under the same key, rate limit and permissions as
 * SPEC.md's `/wh/in/<key>`. With a GitHub signing secret set on the key, `X-Hub-Signature-256`
 * must match (https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries)
 * or the delivery is refused 401; without one, deliveries are taken unsigned, like any post to
 * the key.
 *
 * Answers, for GitHub's Recent Deliveries list: 200 `{message_id}` for a posted event (also for
 * a redelivery: `X-GitHub-Delivery` is the idempotency key, and GitHub redelivers under the same
 * id, so a redelivered event is not posted twice); 204 for an event or action that is not
 * posted; 200 for `ping`, not posted. Why not a "GitHub connected" line: GitHub sends a ping when
 * the hook is made and whenever someone presses Redeliver on it, and the room should carry what
 * happened in the repository, not setup chatter; the ping's answer (shown in GitHub's Recent
 * Deliveries) says where events will go.
 */
export const GITHUB_PATH = '/wh/in/:key/github';

/**
 * GitHub caps payloads at 25 MB, but a push listing 20 commits with their files is well under
 * a megabyte; past this the delivery is refused 413 (and shown so in Recent Deliveries).
 */
const GITHUB_BODY_LIMIT = '1mb';
const SIGNATURE = /^sha256=[0-9a-f]{64}$/i;

/** Throws 401 unless the body carries a valid signature for the key's secret, if it has one. */
export function verifyGithubSignature(
  box: SecretBox,
  key: LiveKey,
  body: Buffer,
  header: string | undefined,
): void {
  if (!key.githubSecretSealed) return;
  const given = header?.trim() ?? '';
  if (!given) {
    throw new AppError(
      'unauthorized',
      "This key has a GitHub signing secret, but the delivery has no X-Hub-Signature-256 header. Set the same secret in the GitHub webhook's settings.",
    );
  }
  const expected = `sha256=${createHmac('sha256', box.decrypt(key.githubSecretSealed)).update(body).digest('hex')}`;
  const matches =
    SIGNATURE.test(given) &&
    timingSafeEqual(Buffer.from(given.toLowerCase()), Buffer.from(expected));
  if (!matches) {
    throw new AppError(
      'unauthorized',
      "X-Hub-Signature-256 does not match this key's GitHub signing secret. Check that the webhook's secret in GitHub is the one set on the key's page.",
    );
  }
}

export function addGithubRoute(
  routes: RouteTable,
  deps: WebhooksInDeps,
  gate: KeyGate,
  posts: PostWriter,
): void {
  const box = new SecretBox(deps.config.APP_SECRET);
  // Bytes, not text: the signature is over the body exactly as sent.
  const rawBytes = express.raw({ limit: GITHUB_BODY_LIMIT, type: () => true });
  routes.post(
    GITHUB_PATH,
    {
      access: access.key(
        'the incoming webhook key in the path (keys.find), and X-Hub-Signature-256 when the key has a GitHub signing secret (verifyGithubSignature)',
        gate.findKey,
      ),
      secrets: { params: ['key'] },
      bodyTimeout: 'ingest',
      before: [gate.rateLimit, rawBytes],
      doc: {
        summary: 'Post a GitHub webhook delivery to a room',
        description:
          'A GitHub webhook’s Payload URL (content type `application/json` or `application/x-www-form-urlencoded`). `X-GitHub-Event` names the event (required); `X-GitHub-Delivery` is the idempotency key, so a redelivery is not posted twice; with a GitHub signing secret set on the key, `X-Hub-Signature-256` must match it (HMAC-SHA256 of the body) or the delivery is a 401. push, pull_request, issues, issue_comment, release, workflow_run and check_run become one short message each; other events and actions are answered 204.',
        tag: 'Incoming webhooks',
        security: 'webhookKey',
        params: webhookKeyParams,
        // Bytes, as the signature is computed over them: read by decode/github.ts, not here.
        rawBody: {
          contentTypes: ['application/json', 'application/x-www-form-urlencoded'],
          description: 'GitHub’s event payload, at most 1 MB.',
        },
        responses: {
          200: {
            description:
              'The event was posted (`message_id`; a redelivery answers the same id), or a `ping` was heard (nothing posted).',
            schema: githubAnswerSchema,
          },
          204: { description: 'An event or action that is not posted.' },
          401: {
            description:
              'The key has a GitHub signing secret and `X-Hub-Signature-256` is missing or does not match.',
            schema: errorBodySchema,
          },
        },
      },
    },
    async (req, res) => {
      const key = liveKey(res);
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      verifyGithubSignature(box, key, body, req.get('X-Hub-Signature-256'));
      const event = req.get('X-GitHub-Event')?.trim() ?? '';
      if (!/^[a-z_]{1,64}$/.test(event)) {
        throw new AppError(
          'bad_request',
          'Send GitHub webhook deliveries here: the X-GitHub-Event header is missing or not an event name.',
        );
      }
      const payload = readPayload(req.get('Content-Type'), body.toString('utf8'));
      if (!isObject(payload.value)) {
        throw new AppError('bad_request', 'The delivery has no JSON object in its body.');
      }
      if (event === 'ping') {
        res.status(200).json({
          ok: true,
          posted: false,
          message: `Ferry's key "${key.name}" is listening: push, pull_request, issues, issue_comment, release, workflow_run and check_run events are posted; other events are answered 204.`,
        });
        return;
      }
      const rendered = renderGithubEvent(event, payload.value);
      if (!rendered) {
        res.status(204).end();
        return;
      }
      const delivery = req.get('X-GitHub-Delivery')?.trim();
      const post: IncomingPost = {
        body: rendered.text,
        family: 'github',
        avatar: rendered.avatarUrl ? { url: rendered.avatarUrl } : undefined,
        idempotencyKey: delivery ? `github:${delivery}`.slice(0, IDEMPOTENCY_KEY_MAX) : undefined,
        original: {
          format: payload.format,
          payload: payload.original,
          truncated: payload.truncated,
        },
      };
      const accepted = await posts.write(await resolvePost(deps.db, key, post));
      res.status(200).json({ message_id: accepted.messageId });
    },
  );
}
