import { z } from 'zod';
import { webhookKey } from '../api-schemas.js';

/**
 * The Discord-compatible endpoint's shapes as zod schemas (issue 46): Discord's message object
 * (message-object.ts infers its type from it), its error bodies, and the payload for readers.
 * Discord's own reference: https://discord.com/developers/docs/resources/webhook.
 */

export const discordAttachmentSchema = z.object({
  id: z.string().meta({ example: 'mfl_01m95vcs448p8d8nkpkmbpan9e' }),
  filename: z.string(),
  size: z.number().int().min(0),
  url: z.string().meta({ description: 'Ferry’s file route, readable by the room’s members.' }),
  proxy_url: z.string(),
  content_type: z.string(),
});

export type DiscordAttachment = z.infer<typeof discordAttachmentSchema>;

/** Discord's message object, with Ferry's ids (`msg_…`, `room_…`): clients pass them back as is. */
export const discordMessageSchema = z
  .object({
    id: z.string().meta({ example: 'msg_01m95vcs448p8d8nkpkmbpan9e' }),
    type: z.literal(0),
    channel_id: z
      .string()
      .meta({ description: 'The room.', example: 'room_01m95vcs448p8d8nkpkmbpan9e' }),
    webhook_id: z.string(),
    author: z.object({
      id: z.string(),
      username: z.string(),
      global_name: z.null(),
      avatar: z.null(),
      discriminator: z.literal('0000'),
      public_flags: z.literal(0),
      flags: z.literal(0),
      bot: z.literal(true),
    }),
    content: z.string(),
    embeds: z.array(z.unknown()).meta({ description: 'As sent.' }),
    attachments: z.array(discordAttachmentSchema),
    components: z.array(z.unknown()),
    mentions: z.tuple([]),
    mention_roles: z.tuple([]),
    mention_everyone: z.literal(false),
    pinned: z.literal(false),
    tts: z.literal(false),
    flags: z.literal(0),
    timestamp: z.iso.datetime({ offset: true }),
    edited_timestamp: z.iso.datetime({ offset: true }).nullable(),
  })
  .meta({ id: 'DiscordMessage' });

export type DiscordMessage = z.infer<typeof discordMessageSchema>;

/**
 * Every error of these routes (errors.ts): Discord's `{message, code, errors?}`, or its 429 body,
 * which discord.js reads to wait and retry.
 */
export const discordErrorSchema = z.union([
  z.object({
    message: z.string().meta({ example: 'Unknown Message' }),
    code: z.number().int().meta({
      description:
        'Discord’s JSON error code: 10008 Unknown Message, 10015 Unknown Webhook, 40005 request too large, 50006 empty message, 50035 Invalid Form Body, 50109 invalid JSON, 0 otherwise.',
      example: 10008,
    }),
    errors: z.record(z.string(), z.unknown()).optional().meta({
      description: 'With 50035: each refused field, `{field: {_errors: [{code, message}]}}`.',
    }),
  }),
  z.object({
    message: z.literal('You are being rate limited.'),
    retry_after: z.number().meta({ description: 'Seconds to wait (also `Retry-After`).' }),
    global: z.literal(false),
  }),
]);

/** Execute Webhook's and Edit Webhook Message's fields Ferry reads, as Discord documents them. */
export const discordPayloadSchema = z
  .object({
    content: z.string().max(2_000).optional().meta({ example: 'Build **#412** passed' }),
    embeds: z.array(z.record(z.string(), z.unknown())).max(10).optional(),
    username: z
      .string()
      .max(80)
      .optional()
      .meta({ description: 'Execute only: the display name.' }),
    avatar_url: z.string().optional().meta({ description: 'Execute only.' }),
    attachments: z
      .array(z.object({ id: z.union([z.string(), z.number()]), filename: z.string().optional() }))
      .optional()
      .meta({
        description:
          'Names for the multipart `files[n]` (by `id` n); in an edit, the existing files to keep.',
      }),
    payload_json: z
      .string()
      .optional()
      .meta({ description: 'Multipart only: these fields as JSON, beside the `files[n]` parts.' }),
  })
  .meta({ id: 'DiscordPayload' });

export const DISCORD_BODY = {
  contentTypes: ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'],
  description:
    'Discord’s webhook payload: JSON, a form, or multipart with `payload_json` and the files as `files[n]`.',
  schema: discordPayloadSchema,
} as const;

const discordParam = (description: string, example: string) =>
  z.string().meta({ description, example });

export const discordBaseParams = z.object({ key: webhookKey });

export const discordExecuteParams = discordBaseParams.extend({
  version: discordParam('Discord’s API version, as discord.js puts it (`v1` to `v99`).', 'v10'),
  webhookId: discordParam('Whatever id the client was given: ignored.', '1'),
  token: discordParam(
    'Whatever token the client was given: ignored (the key is the credential).',
    'x',
  ),
});

export const discordMessageParams = discordExecuteParams.extend({
  messageId: discordParam(
    'A message this key posted (any other is 10008 Unknown Message).',
    'msg_01m95vcs448p8d8nkpkmbpan9e',
  ),
});

/** `?wait=true` (or 1): answer 200 with the message instead of 204. Anything else is no. */
export const discordExecuteQuery = z.object({
  // `.catch`: a repeated or odd `wait` is "no", as wantsMessage reads it, never a refusal.
  wait: z
    .string()
    .optional()
    .catch(undefined)
    .meta({ description: '`true` or `1`: answer with the message object.', example: 'true' }),
});
