import type { Feedback, FeedbackStatus, Message, Workspace } from '@ferry/db';
import { excerpt, type DispatchJson, type MentionHandles } from '@ferry/workspace';
import { code, link, mailto, optional, orDash, timeAgo } from './format.js';
import { html, type SafeHtml } from './html.js';
import { emptyState, layout, workspaceBase, type PageContext } from './layout.js';
import { messageItem } from './messages.js';
import { pageHref, pager } from './pager.js';
import { filterTabs } from './tabs.js';

/** The feedback inbox (status tabs, pages) and a ticket with its conversation and dispatches. */

function statusBadge(status: FeedbackStatus): SafeHtml {
  return html`<span class="badge ${status === 'new' ? 'warn' : 'ok'}">${status}</span>`;
}

function ticketTitle(f: Pick<Feedback, 'title' | 'note'>): string {
  return f.title ?? excerpt(f.note, 80);
}

function reporterText(f: Feedback): string {
  const role = f.reporter_role ? ` (${f.reporter_role})` : '';
  return f.reporter_label ? `${f.reporter_label}${role}` : (f.reporter_email ?? '');
}

/** The curl a first-time workspace can paste, pointed at this deployment's own address. */
function curlExample(publicUrl: string): string {
  return [
    `curl -X POST ${publicUrl}/api/v1/feedback \\`,
    `  -H "Authorization: Bearer fry_YOUR_TOKEN" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '{"note": "The Pay button does nothing on Safari.",`,
    `       "reporter": {"label": "Ada", "role": "customer", "email": "ada@example.com"},`,
    `       "page": {"url": "https://app.example.com/checkout", "path": "/checkout"}}'`,
  ].join('\n');
}

function emptyInbox(base: string, publicUrl: string, canManageTokens: boolean): SafeHtml {
  const tokensLink = canManageTokens
    ? html`Create a token with the <code>tenant:write</code> scope on the
        <a href="${base}/settings/tokens">API tokens</a> page, then`
    : html`Ask an admin for an API token with the <code>tenant:write</code> scope, then`;
  return html`<div class="empty">
    <h2>No feedback yet</h2>
    <p>
      Tickets arrive here when your app or the embedded widget files feedback through the REST API.
      ${tokensLink} send:
    </p>
    <pre class="curl">${curlExample(publicUrl)}</pre>
    <p>Each ticket gets its own conversation room for the follow-up.</p>
  </div>`;
}

function inboxTable(base: string, items: Feedback[]): SafeHtml {
  return html`<table class="inbox">
    <thead>
      <tr>
        <th>Ticket</th>
        <th>Reporter</th>
        <th>Page</th>
        <th>Status</th>
        <th>Created</th>
      </tr>
    </thead>
    <tbody>
      ${items.map(
        (f) =>
          html`<tr>
            <td class="ticket-cell">
              <a href="${base}/feedback/${f.id}">${ticketTitle(f)}</a>
              ${f.title ? html`<p class="excerpt">${excerpt(f.note, 140)}</p>` : ''}
            </td>
            <td>${orDash(reporterText(f))}</td>
            <td>${orDash(f.page_path, code)}</td>
            <td>${statusBadge(f.status)}</td>
            <td>${timeAgo(f.created_at)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

export interface InboxData {
  workspace: Pick<Workspace, 'id' | 'slug'>;
  publicUrl: string;
  canManageTokens: boolean;
  /** The status tab shown; undefined for All. */
  status: FeedbackStatus | undefined;
  counts: Record<FeedbackStatus, number>;
  page: number;
  pages: number;
  items: Feedback[];
}

export function inboxPage(ctx: PageContext, data: InboxData): SafeHtml {
  const { status, counts, page } = data;
  const base = workspaceBase(data.workspace);
  const list = { path: `${base}/feedback`, query: { status } };
  const total = counts.new + counts.triaged;
  return layout(ctx, {
    title: 'Feedback',
    section: 'feedback',
    body: html`<div class="page-head">
        <h1>Feedback</h1>
      </div>
      ${
        total === 0
          ? emptyInbox(base, data.publicUrl, data.canManageTokens)
          : html`${filterTabs('Filter by status', {
              path: list.path,
              param: 'status',
              current: status,
              entries: [
                { value: undefined, label: 'All', count: total },
                { value: 'new', label: 'New', count: counts.new },
                { value: 'triaged', label: 'Triaged', count: counts.triaged },
              ],
            })}
            ${
              data.items.length
                ? inboxTable(base, data.items)
                : emptyState(
                    page > 1 ? 'No more tickets' : `No ${status ?? ''} tickets`,
                    html`<a href="${pageHref(list, 1)}">Back to the first page</a>`,
                  )
            }
            ${pager({ ...list, page, pages: data.pages })}`
      }`,
  });
}

function dispatchList(dispatches: DispatchJson[]): SafeHtml {
  if (!dispatches.length) return html``;
  return html`<section class="card">
    <h2>Dispatches</h2>
    <ul class="plain">
      ${dispatches.map(
        (d) =>
          html`<li>
            <span class="badge">${d.status}</span> ${timeAgo(d.created_at)}
            ${d.issue_url ? html` · issue ${link(d.issue_url)}` : ''}
            ${d.pr_url ? html` · pull request ${link(d.pr_url)}` : ''}
            ${d.error ? html` · <span class="error">${d.error}</span>` : ''}
          </li>`,
      )}
    </ul>
  </section>`;
}

function ticketSide(f: Feedback): SafeHtml {
  const viewport =
    f.viewport_width !== null || f.viewport_height !== null
      ? `${f.viewport_width ?? '?'} × ${f.viewport_height ?? '?'}`
      : null;
  return html`<div class="ticket-side">
    <section class="card">
      <h2>Reporter</h2>
      <dl class="kv">
        <dt>Name</dt>
        <dd>${optional(f.reporter_label)}</dd>
        <dt>Role</dt>
        <dd>${optional(f.reporter_role)}</dd>
        <dt>Email</dt>
        <dd>${optional(f.reporter_email, mailto)}</dd>
      </dl>
    </section>
    <section class="card">
      <h2>Page</h2>
      <dl class="kv">
        <dt>URL</dt>
        <dd class="break">${link(f.page_url)}</dd>
        <dt>Path</dt>
        <dd>${optional(f.page_path, code)}</dd>
        <dt>Controller#action</dt>
        <dd>${optional(f.controller_action, code)}</dd>
        <dt>Viewport</dt>
        <dd>${optional(viewport)}</dd>
      </dl>
      <h3>Rendered partials (${f.partials.length})</h3>
      ${
        f.partials.length
          ? html`<ol class="partials">
              ${f.partials.map((p) => html`<li>${code(p)}</li>`)}
            </ol>`
          : html`<p class="muted">None reported.</p>`
      }
    </section>
    <section class="card">
      <h2>Picked element</h2>
      <dl class="kv">
        <dt>Selector</dt>
        <dd>${optional(f.element_selector, code)}</dd>
        <dt>Tag</dt>
        <dd>${optional(f.element_tag, code)}</dd>
        <dt>Text</dt>
        <dd>${optional(f.element_text)}</dd>
      </dl>
      ${
        f.element_outer_html
          ? html`<h3>Outer HTML</h3>
              <pre class="outer-html">${f.element_outer_html}</pre>`
          : ''
      }
    </section>
  </div>`;
}

export interface TicketData {
  workspace: Pick<Workspace, 'id' | 'slug'>;
  feedback: Feedback;
  /** The conversation room's latest messages, oldest first; `more` when earlier ones exist. */
  conversation: { messages: Message[]; more: boolean };
  handles: MentionHandles;
  /** The viewer may manage webhooks: webhook badges link to their key, as in the room. */
  canManageWebhooks: boolean;
  dispatches: DispatchJson[];
}

export function ticketPage(ctx: PageContext, data: TicketData): SafeHtml {
  const { feedback: f, conversation } = data;
  const base = workspaceBase(data.workspace);
  const roomHref = `${base}/rooms/${f.room_id}`;
  const keyBase = data.canManageWebhooks ? `${roomHref}/settings/webhooks` : undefined;
  return layout(ctx, {
    title: ticketTitle(f),
    section: 'feedback',
    body: html`<p class="crumbs"><a href="${base}/feedback">← Feedback</a></p>
      <div class="page-head">
        <h1>${ticketTitle(f)} ${statusBadge(f.status)}</h1>
      </div>
      <p class="muted">Filed ${timeAgo(f.created_at)} · ${code(f.id)}</p>
      <div class="ticket">
        <div class="ticket-main">
          <section class="card">
            <h2>Note</h2>
            <div class="note plain-text">${f.note}</div>
          </section>
          <section class="card">
            <h2>Conversation</h2>
            ${
              conversation.messages.length
                ? html`<ol class="messages readonly">
                    ${conversation.more ? html`<li class="muted">Earlier messages are in the room.</li>` : ''}
                    ${conversation.messages.map((m) => messageItem(m, data.handles, { webhookKeyBase: keyBase }))}
                  </ol>`
                : html`<p class="muted">No messages yet.</p>`
            }
            <p><a class="button" href="${roomHref}">Reply in the conversation room</a></p>
          </section>
          ${dispatchList(data.dispatches)}
        </div>
        ${ticketSide(f)}
      </div>`,
  });
}
