import type { Message } from '@ferry/db';
import { messageFilePath, messageFilesOf, type OriginalPayload } from '@ferry/workspace';
import { isObject } from '../decode/lenient.js';
import type { DiscordAttachment, DiscordMessage } from './api-schemas.js';

/**
 * A Ferry message as Discord's message object
 * (https://discord.com/developers/docs/resources/message#message-object), what Execute Webhook
 * answers with `?wait=true` and what Edit/Get Webhook Message answer: discord.js's WebhookClient
 * returns it as is (APIMessage), and bots read `id` to edit or delete the message later. Ids are
 * Ferry's (`msg_...`, `room_...`): discord.js passes them back untouched. `content` and `embeds`
 * are what was sent; `attachments` point at Ferry's file route (readable by the room's members).
 */

export type { DiscordAttachment, DiscordMessage };

function sentPayload(payload: OriginalPayload | undefined): Record<string, unknown> {
  if (!payload || payload.truncated) return {};
  try {
    const parsed = JSON.parse(payload.payload) as unknown;
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

export function discordMessage(
  message: Message,
  payload: OriginalPayload | undefined,
  publicUrl: string,
): DiscordMessage {
  const sent = sentPayload(payload);
  const metadata = message.metadata as { edited_at?: unknown };
  const editedAt = typeof metadata.edited_at === 'string' ? metadata.edited_at : null;
  return {
    id: message.id,
    type: 0,
    channel_id: message.room_id,
    webhook_id: message.author_ref ?? '',
    author: {
      id: message.author_ref ?? '',
      username: message.display_name,
      global_name: null,
      avatar: null,
      discriminator: '0000',
      public_flags: 0,
      flags: 0,
      bot: true,
    },
    content: typeof sent.content === 'string' ? sent.content : '',
    embeds: Array.isArray(sent.embeds) ? sent.embeds : [],
    attachments: messageFilesOf(message.metadata).map((file) => {
      const url = `${publicUrl}${messageFilePath(file.id)}`;
      return {
        id: file.id,
        filename: file.name,
        size: file.size,
        url,
        proxy_url: url,
        content_type: file.type,
      };
    }),
    components: [],
    mentions: [],
    mention_roles: [],
    mention_everyone: false,
    pinned: false,
    tts: false,
    flags: 0,
    timestamp: new Date(message.created_at).toISOString(),
    edited_timestamp: editedAt,
  };
}
