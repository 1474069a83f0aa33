import { isObject } from './lenient.js';
import { paragraphs } from './markdown.js';
import { mrkdwnToMarkdown } from './mrkdwn.js';
import { renderAttachments } from './slack.js';

/**
 * Mattermost's incoming webhook (https://developers.mattermost.com/integrate/webhooks/incoming/):
 * Slack's shape with markdown text, message attachments as Slack's
 * (https://developers.mattermost.com/integrate/reference/message-attachments/), and `props.card`,
 * markdown Mattermost shows beside the post; here it follows the message.
 */

/** Only `props` tells a Mattermost payload from a Slack one; the rest reads the same either way. */
export function isMattermostPayload(payload: Record<string, unknown>): boolean {
  return isObject(payload.props);
}

export function renderMattermostMessage(payload: Record<string, unknown>): string {
  const options = { markdown: true };
  const text = typeof payload.text === 'string' ? mrkdwnToMarkdown(payload.text, options) : '';
  const props = isObject(payload.props) ? payload.props : {};
  const card = typeof props.card === 'string' ? mrkdwnToMarkdown(props.card, options) : '';
  return paragraphs([text, renderAttachments(payload.attachments, options), card]);
}
