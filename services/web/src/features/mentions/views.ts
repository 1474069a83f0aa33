import { truncate } from '@ferry/core';
import type { Workspace } from '@ferry/db';
import { roomLabel, type MentionHandles, type MentionItem } from '@ferry/workspace';
import { plural, withQuery } from '../../shared/format.js';
import { html, type SafeHtml } from '../../shared/html.js';
import { emptyState, layout, workspaceBase, type PageContext } from '../../shared/layout.js';
import { messageItem } from '../rooms/message-views.js';
import { pager, pastLastPage } from '../../shared/pager.js';
import { roomPath } from '../rooms/views.js';

export interface MentionsPageData {
  workspace: Pick<Workspace, 'id' | 'slug' | 'name'>;
  items: MentionItem[];
  handles: MentionHandles;
  /** How many were unread when the page was opened (opening it reads them). */
  newCount: number;
  page: number;
  pages: number;
}

export function mentionsPath(workspace: Pick<Workspace, 'id' | 'slug'>): string {
  return `${workspaceBase(workspace)}/mentions`;
}

/** A ticket's title (or note) on one line: long ones end in an ellipsis. */
function shortTitle(title: string): string {
  const line = title.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${truncate(line, 79)}…` : line;
}

const REASONS = {
  mention: 'mentioned you in',
  ticket_reply: 'replied on',
  assignment: 'wrote to you about',
} as const;

/** The error group a notice from Ferry is about (issue 43: assignment), read from its metadata. */
function noticeGroupId(item: MentionItem): string | undefined {
  const id = item.message.metadata.errorGroupId;
  return item.reason === 'assignment' && typeof id === 'string' ? id : undefined;
}

/** A bulk assignment's notice opens the list of the assignee's errors (its metadata's search). */
function noticeErrorsQuery(item: MentionItem): string | undefined {
  const query = item.message.metadata.errorsQuery;
  return item.reason === 'assignment' && typeof query === 'string' ? query : undefined;
}

function mentionCard(
  workspace: MentionsPageData['workspace'],
  item: MentionItem,
  handles: MentionHandles,
): SafeHtml {
  const base = workspaceBase(workspace);
  // A ticket's conversation is named by its ticket, and opens there (the conversation is on it).
  // An assignment notice opens the error group it is about.
  const groupId = noticeGroupId(item);
  const query = noticeErrorsQuery(item);
  const [href, where] = groupId
    ? [`${base}/errors/${encodeURIComponent(groupId)}`, 'an error assigned to you']
    : query
      ? [withQuery(`${base}/errors`, { q: query }), 'errors assigned to you']
      : item.ticket
        ? [`${base}/feedback/${item.ticket.id}`, `the ticket “${shortTitle(item.ticket.title)}”`]
        : [roomPath(workspace, item.room.id), roomLabel(item.room)];
  return html`<li class="mention-card ${item.unread ? 'is-new' : ''}">
    <p class="mention-where">
      ${item.unread ? html`<span class="badge ok">new</span>` : ''}
      <span class="muted">${item.message.display_name} ${REASONS[item.reason]}</span>
      <a href="${href}">${where}</a>
    </p>
    <ul class="messages mention-message">
      ${messageItem(item.message, handles)}
    </ul>
  </li>`;
}

/**
 * Mentions: the messages that @-mention the viewer, and agents' (or GitHub's) replies on tickets
 * assigned to them, newest first. Opening it reads them, so the sidebar's count clears.
 */
export function mentionsPage(ctx: PageContext, data: MentionsPageData): SafeHtml {
  const { workspace, items, page, pages } = data;
  const list = { path: mentionsPath(workspace), page, pages };
  return layout(ctx, {
    title: 'Mentions',
    section: 'mentions',
    body: html`<div class="page-head">
        <h1>Mentions</h1>
        <p class="muted">
          ${
            data.newCount
              ? html`${plural(data.newCount, 'new mention')} since you last looked.`
              : 'Messages that @-mention you, agents\u2019 replies on tickets assigned to you, and errors assigned to you.'
          }
        </p>
      </div>
      <div class="live-notice" role="status">
        <p class="flash ok" id="mentions-arrived" hidden>
          <a href="${list.path}">New mentions arrived: show them</a>
        </p>
      </div>
      ${
        items.length
          ? html`<ol class="mention-cards">
                ${items.map((item) => mentionCard(workspace, item, data.handles))}
              </ol>
              ${pager(list)}`
          : emptyState(
              page > 1 ? 'Nothing here' : 'No mentions yet',
              page > 1
                ? pastLastPage(list)
                : 'When someone writes @ and your name, or an agent replies on a ticket assigned to you, it shows up here.',
            )
      }`,
  });
}
