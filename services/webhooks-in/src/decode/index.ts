import { renderDiscordMessage } from './discord.js';
import { emojiChar } from './emoji.js';
import { isObject } from './lenient.js';
import { isMattermostPayload, renderMattermostMessage } from './mattermost.js';
import { renderSlackMessage } from './slack.js';
import { isTeamsPayload, renderTeamsMessage } from './teams.js';

/**
 * One decoder per payload family, picked by the fields only that family sends. SPEC.md's own
 * `body` (a bare Adaptive Card's element list aside) wins over everything (its text is kept exactly as sent); then Teams (`@type` MessageCard,
 * an Adaptive Card, or a `message` wrapping cards), Discord (`content`/`embeds`), Mattermost
 * (`props`), and Slack for the rest (`text`, SPEC.md's alias, read as mrkdwn; `blocks`;
 * `attachments`).
 */

export type PayloadFamily = 'native' | 'slack' | 'mattermost' | 'discord' | 'teams' | 'github';

export interface DecodedPayload {
  family: PayloadFamily;
  /**
   * The rendered markdown; undefined when the payload has none of its family's message fields,
   * or (native) when `body` is not a string.
   */
  text: string | undefined;
  /** The fields that would have carried the message, for the 422 when nothing renders. */
  expected: string;
  avatar: Avatar | undefined;
}

/** Slack's `icon_emoji` as its character, or an `icon_url`/`avatar_url` (http(s) only). */
export interface Avatar {
  emoji?: string;
  url?: string;
}

const has = (payload: Record<string, unknown>, name: string): boolean =>
  payload[name] !== undefined && payload[name] !== null;

const AVATAR_URL_MAX = 2_000;

export function avatarOf(payload: Record<string, unknown>): Avatar | undefined {
  const emoji = typeof payload.icon_emoji === 'string' ? emojiChar(payload.icon_emoji) : undefined;
  if (emoji) return { emoji };
  const url = [payload.icon_url, payload.avatar_url].find(
    (value): value is string =>
      typeof value === 'string' &&
      value.length <= AVATAR_URL_MAX &&
      /^https?:\/\/\S+$/i.test(value),
  );
  return url ? { url } : undefined;
}

export function decodePayload(payload: Record<string, unknown>): DecodedPayload {
  const avatar = avatarOf(payload);
  // A bare Adaptive Card's `body` is its list of elements, not SPEC.md's text.
  const adaptiveBody = payload.type === 'AdaptiveCard' && Array.isArray(payload.body);
  if (has(payload, 'body') && !adaptiveBody) {
    return {
      family: 'native',
      text: typeof payload.body === 'string' ? payload.body : undefined,
      expected: '"body"',
      avatar,
    };
  }
  if (isTeamsPayload(payload)) {
    return {
      family: 'teams',
      text: renderTeamsMessage(payload),
      expected: 'a card with text (MessageCard "title"/"text"/"sections", or Adaptive Card "body")',
      avatar,
    };
  }
  if (has(payload, 'content') || has(payload, 'embeds')) {
    return {
      family: 'discord',
      text: renderDiscordMessage(payload),
      expected: '"content" or "embeds"',
      avatar,
    };
  }
  const slackish = ['text', 'blocks', 'attachments'].some((name) => has(payload, name));
  if (isMattermostPayload(payload)) {
    const hasCard = isObject(payload.props) && has(payload.props, 'card');
    return {
      family: 'mattermost',
      text: slackish || hasCard ? renderMattermostMessage(payload) : undefined,
      expected: '"text", "attachments" or "props.card"',
      avatar,
    };
  }
  return {
    family: 'slack',
    text: slackish ? renderSlackMessage(payload) : undefined,
    expected: '"body" (or "text"), "blocks" or "attachments"',
    avatar,
  };
}
