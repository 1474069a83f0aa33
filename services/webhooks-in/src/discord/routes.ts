import express, { type Request, type RequestHandler, type Router } from 'express';
import { AppError } from '@ferry/core';
import { access, mount, routeTable, type MountedTable, type RouteDoc } from '@ferry/http';
import {
  bodyWithFiles,
  deleteWebhookMessage,
  editWebhookMessage,
  findWebhookMessage,
  messageFilesOf,
  prepareFiles,
  type WebhookMessageRef,
} from '@ferry/workspace';
import { IDEMPOTENCY_KEY_MAX, SENDER_MAX, type IncomingPost, type LiveKey } from '../accept.js';
import { avatarOf } from '../decode/index.js';
import { STORED_PAYLOAD_MAX, unsupportedMediaType } from '../decode/request-body.js';
import type { WebhooksInDeps } from '../deps.js';
import { keyGate, liveKey } from '../gate.js';
import { createPostWriter } from '../post-writer.js';
import {
  DISCORD_CODE,
  DiscordError,
  discordErrorHandler,
  invalidFormBody,
  unknownMessage,
  unknownRoute,
} from './errors.js';
import {
  DISCORD_BODY,
  discordBaseParams,
  discordErrorSchema,
  discordExecuteParams,
  discordExecuteQuery,
  discordMessageParams,
  discordMessageSchema,
} from './api-schemas.js';
import { discordMessage } from './message-object.js';
import { isMultipart, readMultipart, type MultipartBody } from './multipart.js';
import { mergeEdit, readDiscordPayload, renderedText, type DiscordPayload } from './payload.js';

/**
 * The Discord-compatible endpoint (issue 44): discord.js's WebhookClient, given only
 * `rest: { api: '<base>/wh/in/<key>/discord' }`, appends `/v10/webhooks/<id>/<token>` (and
 * `/messages/<message id>`) to it; Ferry answers those paths as Discord's webhook API does
 * (https://discord.com/developers/docs/resources/webhook). The key in the path is the credential,
 * as for SPEC.md's POST /wh/in/<key>, with the same rate limit, permissions and rendering; the
 * client's id and token are whatever it was given and are ignored (and kept out of logs).
 *
 * - POST .../webhooks/<id>/<token>: Execute Webhook. 204, or with `?wait=true` 200 and the
 *   message object; JSON, form or multipart (`payload_json` + `files[n]`).
 * - GET, PATCH, DELETE .../webhooks/<id>/<token>/messages/<message id>: Get, Edit and Delete
 *   Webhook Message, of messages this key posted only (anything else is 10008 Unknown Message).
 * - POST to the prefix itself: Execute Webhook, for senders that take one URL and post to it.
 */

export const DISCORD_BASE = '/wh/in/:key/discord';
const EXECUTE = '/:version/webhooks/:webhookId/:token';
const MESSAGE = `${EXECUTE}/messages/:messageId`;

const VERSION = /^v\d{1,2}$/;
const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json$/;

function emptyMessage(): DiscordError {
  return new DiscordError('bad_request', DISCORD_CODE.emptyMessage, 'Cannot send an empty message');
}

/** `?wait=true` (Discord also takes 1): answer with the message, not 204. */
function wantsMessage(req: Request): boolean {
  const wait = req.query.wait;
  return typeof wait === 'string' && /^(?:true|1)$/i.test(wait);
}

/** The body as Discord reads it: JSON, a form's fields, or multipart with files; else 415. */
async function readBody(req: Request): Promise<DiscordPayload> {
  if (isMultipart(req)) return readDiscordPayload(undefined, await readMultipart(req));
  const type = (req.get('Content-Type') ?? '').split(';')[0]!.trim().toLowerCase();
  const raw = typeof req.body === 'string' ? req.body : '';
  if (type === '' || JSON_TYPE.test(type)) return readDiscordPayload(raw, undefined);
  if (type === FORM) {
    const form: MultipartBody = { fields: Object.fromEntries(new URLSearchParams(raw)), files: [] };
    return readDiscordPayload(undefined, form);
  }
  throw unsupportedMediaType(type);
}

function idempotencyKey(req: Request): string | undefined {
  const value = req.get('Idempotency-Key')?.trim();
  if (value && value.length > IDEMPOTENCY_KEY_MAX) {
    throw invalidFormBody({
      idempotency_key: `Must be ${IDEMPOTENCY_KEY_MAX} or fewer in length.`,
    });
  }
  return value || undefined;
}

/** Execute Webhook's payload as the post SPEC.md's route would store. */
function postOf(req: Request, payload: DiscordPayload): IncomingPost {
  const text = renderedText(payload.object);
  const files = prepareFiles(payload.files);
  if (!text && !files.length) throw emptyMessage();
  const username = payload.object.username;
  const sender =
    typeof username === 'string' ? username.trim().slice(0, SENDER_MAX) || undefined : undefined;
  // Files alone: their names are the body (previews, notifications), shown as the files.
  const { body, filesOnly } = bodyWithFiles(
    text,
    files.map((file) => file.meta),
  );
  return {
    body,
    filesOnly,
    sender,
    idempotencyKey: idempotencyKey(req),
    family: 'discord',
    avatar: avatarOf(payload.object),
    original: payload.original,
    files,
  };
}

/** What every Discord-compatible route's description shares. */
const discordDoc = (doc: Omit<RouteDoc, 'tag' | 'security' | 'errorSchema'>): RouteDoc => ({
  ...doc,
  tag: 'Incoming webhooks',
  security: 'webhookKey',
  errorSchema: discordErrorSchema,
});

const EXECUTE_DOC = {
  description:
    'Discord’s Execute Webhook, for discord.js’s WebhookClient given `rest: { api: "<base>/wh/in/<key>/discord" }` and for senders that post to one URL: posted to the key’s room under the same key, rate limit and rendering as `/wh/in/{key}`. An optional `Idempotency-Key` header (up to 255 characters) posts once. Errors are Discord’s, with its JSON error codes; a 429 carries `retry_after` and the `X-RateLimit-*` headers discord.js waits by.',
  rawBody: DISCORD_BODY,
  query: discordExecuteQuery,
  responses: {
    200: { description: 'With `?wait=true`: the message posted.', schema: discordMessageSchema },
    204: { description: 'Posted.' },
  },
} satisfies Partial<RouteDoc>;

const refOf = (key: LiveKey, messageId: string): WebhookMessageRef => ({
  webhookId: key.id,
  workspaceId: key.workspaceId,
  messageId,
});

export function discordTable(deps: WebhooksInDeps): MountedTable {
  const posts = deps.posts ?? createPostWriter(deps.db, { logger: deps.logger });
  const publicUrl = deps.config.PUBLIC_URL;
  // JSON and forms as text, capped at what is kept as the original payload; multipart is read
  // by readMultipart (busboy) in the handler, under its own limits.
  const text = express.text({ limit: STORED_PAYLOAD_MAX, type: () => true });
  const body: RequestHandler = (req, res, next) => {
    if (isMultipart(req)) next();
    else text(req, res, next);
  };
  const version: RequestHandler = (req, _res, next) => {
    if (!VERSION.test(String(req.params.version))) throw new AppError('not_found', 'No such API.');
    next();
  };
  // The key and its rate limit as every URL of the key has them (gate.ts: one budget a key).
  const gate = keyGate(deps);
  const keyAccess = access.key('the incoming webhook key in the path (keys.find)', gate.findKey);
  const secrets = { params: ['key', 'token'] };
  const before = [gate.rateLimit];

  const execute: RequestHandler = async (req, res) => {
    const key = liveKey(res);
    const post = postOf(req, await readBody(req));
    // Discord posts to the webhook's own channel: no `room` override here.
    const accepted = await posts.write({ key, roomId: key.roomId, post });
    if (!wantsMessage(req)) {
      res.status(204).end();
      return;
    }
    const found = await findWebhookMessage(deps.db, refOf(key, accepted.messageId));
    if (!found) throw unknownMessage();
    res.status(200).json(discordMessage(found.message, found.payload, publicUrl));
  };

  const routes = routeTable();
  routes.post(
    '/',
    {
      access: keyAccess,
      secrets,
      before: [...before, body],
      doc: discordDoc({
        summary: 'Post a message, as to a Discord webhook URL',
        params: discordBaseParams,
        ...EXECUTE_DOC,
      }),
    },
    execute,
  );
  routes.post(
    EXECUTE,
    {
      access: keyAccess,
      secrets,
      before: [...before, version, body],
      doc: discordDoc({
        summary: 'Post a message, as Discord’s Execute Webhook',
        params: discordExecuteParams,
        ...EXECUTE_DOC,
      }),
    },
    execute,
  );

  routes.get(
    MESSAGE,
    {
      access: keyAccess,
      secrets,
      before: [...before, version],
      doc: discordDoc({
        summary: 'Read a message this key posted, as Discord’s Get Webhook Message',
        params: discordMessageParams,
        responses: { 200: { description: 'The message.', schema: discordMessageSchema } },
      }),
    },
    async (req, res) => {
      const found = await findWebhookMessage(deps.db, refOf(liveKey(res), req.params.messageId));
      if (!found) throw unknownMessage();
      res.json(discordMessage(found.message, found.payload, publicUrl));
    },
  );

  routes.patch(
    MESSAGE,
    {
      access: keyAccess,
      secrets,
      before: [...before, version, body],
      doc: discordDoc({
        summary: 'Edit a message this key posted, as Discord’s Edit Webhook Message',
        description:
          'The fields sent replace the message’s (`content`, `embeds`, `allowed_mentions`, `components`, `flags`; `null` clears one); `attachments` lists the files to keep, new `files[n]` are added.',
        params: discordMessageParams,
        rawBody: DISCORD_BODY,
        responses: { 200: { description: 'The message as edited.', schema: discordMessageSchema } },
      }),
    },
    async (req, res) => {
      const ref = refOf(liveKey(res), req.params.messageId);
      const edit = await readBody(req);
      const found = await findWebhookMessage(deps.db, ref);
      if (!found) throw unknownMessage();
      const merged = mergeEdit(found.payload, edit.object);
      const text = renderedText(merged.object);
      const current = messageFilesOf(found.message.metadata);
      const keep = edit.keepFileIds ? new Set(edit.keepFileIds) : undefined;
      const kept = keep ? current.filter((file) => keep.has(file.id)) : current;
      if (!text && !kept.length && !edit.files.length) throw emptyMessage();
      const edited = await editWebhookMessage(deps.db, ref, {
        text,
        payload: merged.original,
        keepFileIds: edit.keepFileIds,
        newFiles: edit.files,
      });
      if (!edited) throw unknownMessage();
      res.json(discordMessage(edited.message, merged.original, publicUrl));
    },
  );

  routes.delete(
    MESSAGE,
    {
      access: keyAccess,
      secrets,
      before: [...before, version],
      doc: discordDoc({
        summary: 'Delete a message this key posted, as Discord’s Delete Webhook Message',
        params: discordMessageParams,
        responses: { 204: { description: 'Deleted.' } },
      }),
    },
    async (req, res) => {
      if (!(await deleteWebhookMessage(deps.db, refOf(liveKey(res), req.params.messageId)))) {
        throw unknownMessage();
      }
      res.status(204).end();
    },
  );
  return { base: DISCORD_BASE, table: routes };
}

/** The Discord-compatible routes, mounted at their base, every error in Discord's shape. */
export function discordRoutes(deps: WebhooksInDeps): Router {
  const table = discordTable(deps);
  const router = express.Router({ caseSensitive: true });
  const routes = mount(table, { caseSensitive: true });
  router.use(DISCORD_BASE, routes);
  // A path no route answers is Discord's 404 here, not a page (whose CSRF check would answer 403).
  router.use(DISCORD_BASE, (_req, _res, next) => next(unknownRoute()));
  router.use(
    DISCORD_BASE,
    discordErrorHandler(deps.logger, deps.settings.WEBHOOK_RATE_LIMIT_PER_MINUTE),
  );
  return router;
}
