import { z } from 'zod';
import { MESSAGE_BODY_MAX } from '@ferry/workspace';
import { IDEMPOTENCY_KEY_MAX, SENDER_MAX } from './accept.js';

/**
 * The incoming webhook URLs' descriptions (issue 46). Their bodies are read by the routes' own
 * decoders (SPEC.md's fields, Slack's, Discord's, Teams'...: decode/), never by a schema here, so
 * these schemas describe what is sent; the JSON answers are checked against theirs in the tests.
 */

export const WEBHOOK_KEY_DESCRIPTION =
  'The incoming webhook key, made on the room’s Integrations page: it is the whole credential. Treat the URL as a password; rotating the key ends the old URL at once.';

/** `:key`: a plain string, so any unknown key is the same 404 (accept.ts, unknownKey). */
export const webhookKey = z
  .string()
  .meta({ description: WEBHOOK_KEY_DESCRIPTION, example: 'whk_Qm9vUhT2sY0p3b6Nw1xZcA' });

export const webhookKeyParams = z.object({ key: webhookKey });

/** SPEC.md's body fields of POST /wh/in/<key>, with their aliases. */
export const incomingPostSchema = z
  .object({
    body: z.string().max(MESSAGE_BODY_MAX).meta({
      description:
        'Required. The message text; markdown and @-mentions work. Alias: Slack-style `text`; `body` wins if both are sent.',
      example: 'Deploy finished: **v2.4.1** is live',
    }),
    text: z.string().max(MESSAGE_BODY_MAX).optional().meta({ description: 'Alias of `body`.' }),
    sender: z.string().max(SENDER_MAX).optional().meta({
      description:
        'A display name for this message; aliases `name`, `username`. Falls back to the key’s name, then its creator’s account name.',
      example: 'CI',
    }),
    room: z.string().optional().meta({
      description:
        'Post into this room instead of the key’s: a room id, or a channel name (`#general`); aliases `room_hashid`, `channel`. Only rooms the key’s creator has joined, never a direct-message room.',
      example: 'room_01m95vcs448p8d8nkpkmbpan9e',
    }),
    idempotency_key: z.string().max(IDEMPOTENCY_KEY_MAX).optional().meta({
      description:
        'A retry with the same key within 24 h posts nothing and answers the first message’s id. The `Idempotency-Key` header wins over the field.',
    }),
  })
  .meta({
    id: 'IncomingPost',
    description:
      'SPEC.md’s fields. Slack, Mattermost, Discord and Microsoft Teams payloads are read too (their own message fields rendered as markdown), as JSON or as a form with the JSON in `payload`.',
  });

const displayName = z
  .string()
  .optional()
  .meta({ description: 'The display name (alias of `sender`).' });
const records = z.array(z.record(z.string(), z.unknown()));

/**
 * Everything POST /wh/in/<key> reads: SPEC.md's fields, or another sender's own payload, picked by
 * the fields only that family sends (decode/index.ts). A payload whose message fields render no
 * text is refused with a 422 naming the fields it needed.
 */
export const incomingBodySchema = z
  .union([
    incomingPostSchema,
    z
      .object({
        '@type': z.literal('MessageCard').optional(),
        type: z.enum(['AdaptiveCard', 'message']).optional(),
        title: z.string().optional(),
        text: z.string().optional(),
        sections: records.optional(),
        body: records.optional().meta({ description: 'An Adaptive Card’s elements.' }),
        attachments: records.optional().meta({
          description: 'A `message` wrapping cards: each `{contentType, content}`.',
        }),
      })
      .meta({
        id: 'TeamsPayload',
        description:
          'Microsoft Teams: a MessageCard (`@type`), an Adaptive Card (`type: AdaptiveCard`), or a `message` wrapping cards, as Power Automate and Teams connectors send.',
      }),
    z
      .object({
        content: z.string().optional(),
        embeds: records.optional(),
        username: displayName,
        avatar_url: z.string().optional(),
      })
      .meta({
        id: 'DiscordStylePayload',
        description: 'Discord’s Execute Webhook fields (`content` or `embeds`).',
      }),
    z
      .object({
        text: z.string().optional().meta({ description: 'mrkdwn; SPEC.md’s alias of `body`.' }),
        blocks: records.optional(),
        attachments: records.optional(),
        props: z.record(z.string(), z.unknown()).optional().meta({
          description: 'Mattermost: `props.card` is shown too.',
        }),
        username: displayName,
        icon_emoji: z.string().optional(),
        icon_url: z.string().optional(),
        channel: z.string().optional().meta({ description: 'Alias of `room`.' }),
      })
      .meta({
        id: 'SlackPayload',
        description:
          'Slack and Mattermost incoming-webhook payloads: `text`, `blocks` or `attachments` (Mattermost: or `props.card`).',
      }),
  ])
  .meta({ id: 'IncomingWebhookBody' });

/**
 * Why /wh/in's bodies are not held to incomingBodySchema (RouteDoc `outsideSchema`): senders post
 * what their tools make, so the decoders read leniently.
 */
export const LENIENT_PAYLOADS =
  'Senders’ payloads are read leniently: a field of the wrong type or an unknown one is ignored rather than refused (Slack, Discord and Teams tools send extra and odd fields); a payload is refused only when its message fields render no text, or the text is over-long.';

/** The other payload families' URLs: the sender's own format, read by its decoder. */
export const BODY_CONTENT_TYPES = [
  'application/json',
  'application/x-www-form-urlencoded',
] as const;

/** 201 (posted) and 200 (an idempotent replay). */
export const messageIdJsonSchema = z.object({
  message_id: z.string().meta({ example: 'msg_01m95vcs448p8d8nkpkmbpan9e' }),
});

/** `/github`: a posted event, or the answer to GitHub's `ping` (nothing posted). */
export const githubAnswerSchema = z.union([
  messageIdJsonSchema,
  z.object({
    ok: z.literal(true),
    posted: z.literal(false),
    message: z.string().meta({ description: 'Which events are posted, for Recent Deliveries.' }),
  }),
]);
