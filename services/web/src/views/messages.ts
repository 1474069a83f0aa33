import type { Message } from '@ferry/db';
import { renderMarkdown, type MentionHandles } from '../markdown.js';
import { html, type SafeHtml } from './html.js';
import { timeAgo } from './layout.js';

/**
 * One message as an `<li>`: the same markup on the room page and in live `message:new` events, so
 * a message looks the same whether it was there on load or arrived over the socket.
 */

const AUTHOR_BADGES: Record<Message['author_kind'], SafeHtml | ''> = {
  member: '',
  webhook: html`<span class="badge link" title="Posted through an incoming webhook">webhook</span>`,
  agent: html`<span class="badge agent" title="Posted by an agent">agent</span>`,
  system: html`<span class="badge system" title="Posted by Ferry">system</span>`,
};

function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  const letters = parts.length > 1 ? [parts[0], parts[parts.length - 1]] : [parts[0]];
  return (
    letters
      .map((p) => (p ? [...p][0] : ''))
      .join('')
      .toUpperCase() || '?'
  );
}

/** A stable avatar colour per author name (one of eight classes, no inline styles). */
function tint(name: string): number {
  let hash = 0;
  for (const ch of name) hash = (hash * 31 + (ch.codePointAt(0) ?? 0)) >>> 0;
  return hash % 8;
}

/**
 * The webhook badge: a link to the key's settings page when the viewer may manage webhooks
 * (`webhookKeyBase` is that room's `.../settings/webhooks`), plain text otherwise. Live messages
 * are rendered once for every viewer, so they get the plain badge until the page is reloaded.
 */
function authorBadge(message: Message, webhookKeyBase: string | undefined): SafeHtml | '' {
  if (message.author_kind === 'webhook' && webhookKeyBase && message.author_ref) {
    return html`<a
      class="badge link"
      href="${webhookKeyBase}/incoming/${message.author_ref}"
      title="Posted through an incoming webhook: open its key"
      >webhook</a
    >`;
  }
  return AUTHOR_BADGES[message.author_kind];
}

export function messageItem(
  message: Message,
  handles: MentionHandles,
  options: { webhookKeyBase?: string | undefined } = {},
): SafeHtml {
  const name = message.display_name;
  return html`<li
    class="message author-${message.author_kind} kind-${message.kind}"
    data-id="${message.id}"
  >
    <div class="avatar tint-${tint(name)}" aria-hidden="true">${initials(name)}</div>
    <div class="content">
      <div class="meta">
        <span class="author">${name}</span>${authorBadge(message, options.webhookKeyBase)}${
          message.kind === 'proposal' ? html`<span class="badge proposal">proposal</span>` : ''
        }
        ${timeAgo(message.created_at)}
      </div>
      <div class="body">${renderMarkdown(message.body, handles)}</div>
    </div>
  </li>`;
}
