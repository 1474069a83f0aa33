import express, { type Response } from 'express';
import type { Logger } from '@ferry/core';
import {
  access,
  redactPath,
  toAppError,
  type RouteResponseDoc,
  type RouteTable,
} from '@ferry/http';
import { parseIncomingPost, resolvePost } from './accept.js';
import { z } from 'zod';
import {
  BODY_CONTENT_TYPES,
  incomingBodySchema,
  LENIENT_PAYLOADS,
  webhookKey,
} from './api-schemas.js';
import { readPayload } from './decode/request-body.js';
import type { WebhooksInDeps } from './deps.js';
import { answeringWith, liveKey, type KeyGate } from './gate.js';
import type { PostWriter } from './post-writer.js';

/**
 * `/wh/in/<key>/slack`: the same post as SPEC.md's `/wh/in/<key>` (key, rate limit, permissions,
 * rendering, idempotency), answered as Slack's incoming webhooks answer
 * (https://docs.slack.dev/messaging/sending-messages-using-incoming-webhooks, and the error list
 * of https://api.slack.com/changelog/2016-05-17-changes-to-errors-for-incoming-webhooks): 200
 * with the text `ok`, errors as a short code in plain text. Mattermost answers success the same
 * way (200 `ok`), and tools written for it check exactly that: Apprise's `mmost://` posts to
 * `<its path>/hooks/<token>`, so that shape is answered here too, its token ignored (the key in the
 * path is the credential).
 */
export const SLACK_PATHS = ['/wh/in/:key/slack', '/wh/in/:key/slack/hooks/:token'] as const;

/** Slack's answer for a refused post: its status and the code it sends as the body. */
export interface SlackRefusal {
  status: number;
  code: string;
  headers?: Record<string, string> | undefined;
}

/**
 * Our errors as Slack's: an unknown, disabled or deleted key is Slack's revoked URL (404
 * `no_service`); nothing to show is `no_text`; a `room`/`channel` the key cannot post to is
 * `channel_not_found`; a body we cannot read (bad JSON, a type we do not read, a bad field) is
 * `invalid_payload`; an over-long message `msg_too_long`; a flood 429 `rate_limited` with
 * Retry-After. Slack keeps 5xx for its own failures; so do we (`rollup_error`, as Slack).
 */
export function slackRefusal(error: unknown): SlackRefusal {
  const appError = toAppError(error);
  const headers = appError.options.headers;
  const fields = appError.options.fields ?? {};
  switch (appError.code) {
    case 'not_found':
      return { status: 404, code: 'no_service' };
    case 'rate_limited':
      return { status: 429, code: 'rate_limited', headers };
    case 'payload_too_large':
      return { status: 413, code: 'payload_too_large' };
    case 'validation_failed':
      if (fields.room) return { status: 404, code: 'channel_not_found' };
      if (fields.body && Object.keys(fields).length === 1) {
        // bodyProblem (accept.ts) words an over-long text "At most N characters…".
        return {
          status: 400,
          code: fields.body.startsWith('At most') ? 'msg_too_long' : 'no_text',
        };
      }
      return { status: 400, code: 'invalid_payload' };
    case 'invalid_json':
    case 'unsupported_media_type':
    case 'bad_request':
      return { status: 400, code: 'invalid_payload' };
    case 'unavailable':
      return { status: 503, code: 'service_unavailable', headers };
    default:
      return appError.status < 500
        ? { status: appError.status, code: 'invalid_payload' }
        : { status: 500, code: 'rollup_error' };
  }
}

function answerer(logger: Logger) {
  return (error: unknown, res: Response): void => {
    const refusal = slackRefusal(error);
    if (refusal.status >= 500) {
      logger.error(
        { err: error, path: redactPath(res.req.originalUrl) },
        'slack-compatible post failed',
      );
    }
    for (const [name, value] of Object.entries(refusal.headers ?? {})) res.setHeader(name, value);
    res.status(refusal.status).type('text/plain').send(refusal.code);
  };
}

/** Slack's answers are a word in plain text, not JSON: described by the words each status sends. */
const text = (description: string, ...codes: [string, ...string[]]): RouteResponseDoc => ({
  description,
  contentType: 'text/plain',
  schema: z.enum(codes),
});

const SLACK_RESPONSES: Record<number, RouteResponseDoc> = {
  200: text('Posted (or an idempotent replay: nothing posted again).', 'ok'),
  400: text(
    'Nothing to show (`no_text`), a message over 20,000 characters (`msg_too_long`), or a body that cannot be read or has a wrong field (`invalid_payload`).',
    'invalid_payload',
    'no_text',
    'msg_too_long',
  ),
  404: text(
    'An unknown, disabled or deleted key (`no_service`, Slack’s revoked URL), or a `channel`/`room` the key’s creator has not joined (`channel_not_found`).',
    'no_service',
    'channel_not_found',
  ),
  413: text('The body is over 256 KB.', 'payload_too_large'),
  429: text('Too many posts under this key: wait `Retry-After` seconds.', 'rate_limited'),
  500: text('Ferry failed to store the post.', 'rollup_error'),
  503: text('Ferry cannot store posts right now: try again.', 'service_unavailable'),
};

export function addSlackRoutes(
  routes: RouteTable,
  deps: WebhooksInDeps,
  gate: KeyGate,
  posts: PostWriter,
  bodyLimit: string,
): void {
  const answer = answerer(deps.logger);
  const guarded = answeringWith.bind(null, answer);
  const rawText = express.text({ limit: bodyLimit, type: () => true });
  for (const path of SLACK_PATHS) {
    routes.post(
      path,
      {
        access: access.key(
          'the incoming webhook key in the path (keys.find); a trailing token is ignored',
          guarded(gate.findKey),
        ),
        secrets: { params: ['key', ...(path.endsWith(':token') ? ['token'] : [])] },
        bodyTimeout: 'ingest',
        before: [guarded(gate.rateLimit), guarded(rawText)],
        doc: {
          summary: path.endsWith(':token')
            ? 'Post a message, as to a Mattermost incoming webhook'
            : 'Post a message, as to a Slack incoming webhook',
          description: path.endsWith(':token')
            ? 'The same post as `/wh/in/{key}/slack`, at the `…/hooks/<token>` path Mattermost clients (Apprise’s `mmost://`) post to; the token is ignored. Answers as Slack and Mattermost do: `ok`, or an error code, in plain text.'
            : 'SPEC.md’s post (same key, rate limit, room rules and idempotency) for tools written for Slack’s or Mattermost’s incoming webhooks: `text`, `blocks`, `attachments`, `channel`, `username`, `icon_emoji`/`icon_url`, as JSON or a form’s `payload`. Answers as Slack does: `ok`, or an error code, in plain text.',
          tag: 'Incoming webhooks',
          security: 'webhookKey',
          params: path.endsWith(':token')
            ? z.object({
                key: webhookKey,
                token: z.string().meta({ description: 'Ignored: the key is the credential.' }),
              })
            : z.object({ key: webhookKey }),
          rawBody: {
            contentTypes: BODY_CONTENT_TYPES,
            description:
              'A Slack or Mattermost incoming-webhook payload (SPEC.md’s fields work too), as JSON or as a form with the JSON in `payload`.',
            schema: incomingBodySchema,
            outsideSchema: LENIENT_PAYLOADS,
          },
          responses: SLACK_RESPONSES,
        },
      },
      guarded(async (req, res) => {
        const raw = typeof req.body === 'string' ? req.body : undefined;
        const payload = readPayload(req.get('Content-Type'), raw);
        const post = parseIncomingPost(payload.value, req.get('Idempotency-Key'), {
          format: payload.format,
          payload: payload.original,
          truncated: payload.truncated,
        });
        // A replay of an idempotency key answers `ok` too: Slack has no other success.
        await posts.write(await resolvePost(deps.db, liveKey(res), post));
        res.status(200).type('text/plain').send('ok');
      }),
    );
  }
}
