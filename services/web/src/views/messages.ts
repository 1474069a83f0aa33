import type { Message } from '@ferry/db';
import type { MentionHandles } from '@ferry/workspace';
import { renderMarkdown } from '../markdown.js';
import { html, type SafeHtml } from './html.js';
import { timeAgo } from './format.js';

/**
 * One message as an `<li>`: the one renderer for messages, used by the room page, live
 * `message:new` events and the feedback ticket's conversation, so a message (an agent's progress
 * chip, a proposal, a webhook post) looks the same wherever it is shown.
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

/** What an agent's proposal message carries (services/agent-gateway agent-events.ts). */
interface ProposalMeta {
  route?: unknown;
  reason?: unknown;
  files?: unknown;
  lines?: unknown;
}

/**
 * A proposal's badge: "quick fix" (committed to the base branch) or "PR", with the rule that
 * decided as its hover text (SPEC.md). It only informs: nothing here applies the change.
 */
function proposalBadge(message: Message): SafeHtml {
  const meta = (message.metadata ?? {}) as ProposalMeta;
  const quick = meta.route === 'quick_fix';
  const reason = typeof meta.reason === 'string' ? meta.reason : 'Decided by the ship policy';
  const files = Array.isArray(meta.files) ? meta.files.length : null;
  const lines = typeof meta.lines === 'number' ? meta.lines : null;
  const size =
    files !== null && lines !== null
      ? `${files} file${files === 1 ? '' : 's'}, ${lines} line${lines === 1 ? '' : 's'}`
      : '';
  return html`<span
      class="badge route ${quick ? 'route-quick' : 'route-pr'}"
      title="${quick ? 'Quick fix' : 'Pull request'}: ${reason}"
      tabindex="0"
      >${quick ? 'quick fix' : 'PR'}</span
    >${size ? html`<span class="proposal-size">${size}</span>` : ''}`;
}

/** An agent's progress step: one compact line, the same in rooms and ticket conversations. */
function progressChip(message: Message): SafeHtml {
  return html`<li
    class="message chip author-${message.author_kind} kind-progress"
    data-id="${message.id}"
  >
    <span class="chip-author">${message.display_name}</span>
    <span class="chip-text">${message.body}</span>
    ${timeAgo(message.created_at)}
  </li>`;
}

export function messageItem(
  message: Message,
  handles: MentionHandles,
  options: { webhookKeyBase?: string | undefined } = {},
): SafeHtml {
  if (message.kind === 'progress') return progressChip(message);
  const name = message.display_name;
  const proposal =
    message.kind === 'proposal'
      ? html`<div class="proposal-line">${proposalBadge(message)}</div>`
      : '';
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
      <div class="body">${proposal}${renderMarkdown(message.body, handles)}</div>
    </div>
  </li>`;
}
