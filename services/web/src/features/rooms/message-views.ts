import type { Message } from '@ferry/db';
import {
  isInlineImage,
  messageFilePath,
  messageFilesOf,
  type MentionHandles,
  type OriginalPayload,
} from '@ferry/workspace';
import { renderMarkdown } from '../../shared/markdown.js';
import { html, type SafeHtml } from '../../shared/html.js';
import { timeAgo } from '../../shared/format.js';

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
 * The webhook badge: a link to the key's settings page (under the key's own room, which may not
 * be the message's) when the viewer may open it (`webhookKeyLinks`, features/webhooks/badges.ts),
 * plain text otherwise. Live messages are rendered once for every viewer, so they get the plain
 * badge until the page is reloaded.
 */
function authorBadge(
  message: Message,
  webhookKeyLinks: ReadonlyMap<string, string> | undefined,
): SafeHtml | '' {
  const href =
    message.author_kind === 'webhook' && message.author_ref
      ? webhookKeyLinks?.get(message.author_ref)
      : undefined;
  if (href) {
    return html`<a
      class="badge link"
      href="${href}"
      title="Posted through an incoming webhook: open its key"
      >webhook</a
    >`;
  }
  return AUTHOR_BADGES[message.author_kind];
}

/**
 * The avatar: the webhook post's own emoji (Slack's `icon_emoji`) when it sent one, else the
 * author's initials. An `icon_url`/`avatar_url` is kept in the metadata but not shown: the pages'
 * CSP loads images from our own origin only, and a remote avatar would tell its host who reads.
 */
function avatar(message: Message): SafeHtml {
  const emoji = (message.metadata as { avatar_emoji?: unknown } | null)?.avatar_emoji;
  const name = message.display_name;
  if (message.author_kind === 'webhook' && typeof emoji === 'string' && emoji) {
    return html`<div class="avatar emoji" aria-hidden="true">
      ${[...emoji].slice(0, 8).join('')}
    </div>`;
  }
  return html`<div class="avatar tint-${tint(name)}" aria-hidden="true">${initials(name)}</div>`;
}

/** A webhook message's original payload, pretty-printed when it is whole JSON. */
function prettyPayload(original: OriginalPayload): string {
  if (original.truncated) return original.payload;
  try {
    return JSON.stringify(JSON.parse(original.payload), null, 2);
  } catch {
    return original.payload;
  }
}

/**
 * "View payload" for admins (the viewers given `payloads`): what the sending system posted, as
 * it arrived, escaped like everything else on the page. Closed until asked for.
 */
function payloadDisclosure(
  message: Message,
  payloads: ReadonlyMap<string, OriginalPayload> | undefined,
): SafeHtml | '' {
  const original = message.author_kind === 'webhook' ? payloads?.get(message.id) : undefined;
  if (!original) return '';
  const how = original.format === 'form' ? 'form field payload=' : 'JSON body';
  return html`<details class="payload">
    <summary>View payload</summary>
    <p class="muted">As received (${how})${original.truncated ? ', cut at 64 KB' : ''}.</p>
    <pre><code>${prettyPayload(original)}</code></pre>
  </details>`;
}

/** A byte count as people read it: 512 B, 14 KB, 3.2 MB. */
function fileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * A webhook message's files (issue 44): images its bytes proved inline (each opens the full
 * image), every other file a download link with its size. Served by web's /files/<id> to the
 * room's readers only (features/rooms/file-routes.ts), never as HTML; names are escaped here.
 */
function messageFiles(message: Message): SafeHtml | '' {
  const files = messageFilesOf(message.metadata);
  if (!files.length) return '';
  return html`<ul class="message-files">
    ${files.map((file) => {
      const href = messageFilePath(file.id);
      if (isInlineImage(file.type)) {
        return html`<li class="file-image">
          <a href="${href}" target="_blank" rel="noopener"
            ><img src="${href}" alt="${file.name}" loading="lazy"
          /></a>
        </li>`;
      }
      return html`<li class="file-link">
        <a href="${href}" download="${file.name}">${file.name}</a>
        <span class="muted">${fileSize(file.size)}</span>
      </li>`;
    })}
  </ul>`;
}

/**
 * The message's body: its markdown, then its files. A message of files alone has their names as
 * its body (for previews and notifications), which the files themselves replace here.
 */
function messageBody(
  message: Message,
  handles: MentionHandles,
  before: SafeHtml | '' = '',
): SafeHtml {
  const filesOnly = (message.metadata as { files_only?: unknown } | null)?.files_only === true;
  // No whitespace inside .body: its text is what people typed (tests and copy-paste read it).
  const body = filesOnly ? '' : renderMarkdown(message.body, handles);
  return html`<div class="body">${before}${body}</div>
    ${messageFiles(message)}`;
}

/** "edited" beside the time, once a webhook's message was changed (Discord's edits). */
function editedMark(message: Message): SafeHtml | '' {
  const editedAt = (message.metadata as { edited_at?: unknown } | null)?.edited_at;
  return typeof editedAt === 'string'
    ? html`<span class="edited muted" title="Edited ${editedAt}">(edited)</span>`
    : '';
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
    <span class="chip-author" title="${message.display_name}">${message.display_name}</span>
    <span class="chip-text">${message.body}</span>
    ${timeAgo(message.created_at)}
  </li>`;
}

/** How close in time a message must follow its author's previous one to join its group. */
export const GROUP_WINDOW_MS = 5 * 60_000;

type GroupKey = Pick<
  Message,
  'kind' | 'author_kind' | 'author_member_id' | 'author_ref' | 'display_name' | 'created_at'
>;

/**
 * Consecutive plain messages of one author within 5 minutes form a group: only the first shows
 * the name header. The author is the seat (or agent) and the name shown. Webhook posts never
 * group: each is a separate event from another system (a build, an alert), and a grouped one
 * lost its header and "webhook" badge and sat under the previous post's "View payload", reading
 * as part of it (issue 42). Every renderer (room page, live events, the send
 * answer, ticket conversations) asks this about the message just before in the room, so the page
 * and the live path always agree.
 */
export function continuesGroup(message: GroupKey, previous: GroupKey | undefined): boolean {
  if (!previous || message.kind !== 'text' || previous.kind !== 'text') return false;
  if (message.author_kind === 'webhook') return false;
  const gap = new Date(message.created_at).getTime() - new Date(previous.created_at).getTime();
  return (
    gap >= 0 &&
    gap <= GROUP_WINDOW_MS &&
    message.author_kind === previous.author_kind &&
    message.author_member_id === previous.author_member_id &&
    message.author_ref === previous.author_ref &&
    message.display_name === previous.display_name
  );
}

/** A message that continues its author's group: the body alone, the header kept for screen readers. */
function groupedItem(
  message: Message,
  handles: MentionHandles,
  payloads: ReadonlyMap<string, OriginalPayload> | undefined,
): SafeHtml {
  return html`<li
    class="message grouped author-${message.author_kind} kind-${message.kind}"
    data-id="${message.id}"
  >
    <div class="avatar-gap" aria-hidden="true"></div>
    <div class="content">
      <div class="meta visually-hidden">
        <span class="author">${message.display_name}</span>
        ${timeAgo(message.created_at)}
      </div>
      ${messageBody(message, handles)} ${payloadDisclosure(message, payloads)}
    </div>
  </li>`;
}

/** A run of messages, oldest first; `before` is the one just before the first (from a page earlier). */
export function messageItems(
  messages: Message[],
  handles: MentionHandles,
  options: {
    webhookKeyLinks?: ReadonlyMap<string, string> | undefined;
    before?: Message | undefined;
    payloads?: ReadonlyMap<string, OriginalPayload> | undefined;
  } = {},
): SafeHtml[] {
  return messages.map((message, i) =>
    messageItem(message, handles, {
      webhookKeyLinks: options.webhookKeyLinks,
      payloads: options.payloads,
      previous: i === 0 ? options.before : messages[i - 1],
    }),
  );
}

export function messageItem(
  message: Message,
  handles: MentionHandles,
  options: {
    /** Webhook key id -> its key page, for viewers who may open it. */
    webhookKeyLinks?: ReadonlyMap<string, string> | undefined;
    /** The message just before this one in the room, if any: decides the grouping. */
    previous?: Message | undefined;
    /** Webhook messages' original payloads, given to admins only ("View payload"). */
    payloads?: ReadonlyMap<string, OriginalPayload> | undefined;
  } = {},
): SafeHtml {
  if (message.kind === 'progress') return progressChip(message);
  if (continuesGroup(message, options.previous)) {
    return groupedItem(message, handles, options.payloads);
  }
  const name = message.display_name;
  // The whole name on hover: a long one is cut with an ellipsis (app.css).
  const author = html`<span class="author" title="${name}">${name}</span>`;
  const proposal =
    message.kind === 'proposal'
      ? html`<div class="proposal-line">${proposalBadge(message)}</div>`
      : '';
  return html`<li
    class="message author-${message.author_kind} kind-${message.kind}"
    data-id="${message.id}"
  >
    ${avatar(message)}
    <div class="content">
      <div class="meta">
        ${author}${authorBadge(message, options.webhookKeyLinks)}${
          message.kind === 'proposal' ? html`<span class="badge proposal">proposal</span>` : ''
        }
        ${timeAgo(message.created_at)}${editedMark(message)}
      </div>
      ${messageBody(message, handles, proposal)} ${payloadDisclosure(message, options.payloads)}
    </div>
  </li>`;
}
