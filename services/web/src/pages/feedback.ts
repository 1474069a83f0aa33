import { Router } from 'express';
import { AppError } from '@ferry/core';
import type { Feedback, FeedbackStatus, Message } from '@ferry/db';
import { can } from '../capabilities.js';
import type { WebDeps } from '../deps.js';
import {
  conversationMessages,
  countFeedbackByStatus,
  excerpt,
  findFeedback,
  listDispatches,
  listFeedback,
  type DispatchJson,
} from '../domain/feedback.js';
import { pageContext, requireCapability, seat, send } from '../request-context.js';
import { html, type SafeHtml } from '../views/html.js';
import { emptyState, layout, timeAgo, workspaceBase } from '../views/layout.js';

const STATUSES: readonly FeedbackStatus[] = ['new', 'triaged'];

/** Query values on a page are forgiving: junk falls back to the default instead of an error. */
function statusParam(value: unknown): FeedbackStatus | undefined {
  return STATUSES.find((s) => s === value);
}

function pageParam(value: unknown): number {
  const n = typeof value === 'string' && /^\d{1,5}$/.test(value) ? Number(value) : 1;
  return n >= 1 ? n : 1;
}

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

function optional(value: string | number | null | undefined): SafeHtml | string | number {
  return value === null || value === undefined || value === ''
    ? html`<span class="muted">not given</span>`
    : value;
}

/** Only http(s) addresses become links: a reported URL is untrusted and could be `javascript:`. */
function link(url: string | null): SafeHtml | string | number {
  if (!url) return optional(null);
  return /^https?:\/\//i.test(url)
    ? html`<a href="${url}" rel="noreferrer noopener" target="_blank">${url}</a>`
    : url;
}

function messageItem(m: Message): SafeHtml {
  return html`<li class="message">
    <div class="meta">
      <span class="author">${m.display_name}</span>
      ${m.author_kind === 'member' ? '' : html`<span class="badge">${m.author_kind}</span>`}
      ${timeAgo(m.created_at)}
    </div>
    <div class="body plain-text">${m.body}</div>
  </li>`;
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

export function feedbackRoutes({ db, config }: WebDeps): Router {
  const router = Router({ mergeParams: true });
  router.use(requireCapability('feedback.read'));

  router.get('/', async (req, res) => {
    const { workspace, member } = seat(res);
    const base = workspaceBase(workspace);
    const status = statusParam(req.query.status);
    const pageNumber = pageParam(req.query.page);
    const [page, counts] = await Promise.all([
      listFeedback(db, workspace.id, { page: pageNumber, status }),
      countFeedbackByStatus(db, workspace.id),
    ]);
    const total = counts.new + counts.triaged;
    const href = (s: FeedbackStatus | undefined, p = 1): string => {
      const params = new URLSearchParams();
      if (s) params.set('status', s);
      if (p > 1) params.set('page', String(p));
      const query = params.toString();
      return `${base}/feedback${query ? `?${query}` : ''}`;
    };
    const tab = (s: FeedbackStatus | undefined, label: string, n: number): SafeHtml =>
      html`<a href="${href(s)}" ${s === status ? html`aria-current="page"` : ''}
        >${label} <span class="count">${n}</span></a
      >`;
    const tokensLink = can(member.role, 'tokens.manage')
      ? html`Create a token with the <code>tenant:write</code> scope on the
          <a href="${base}/settings/tokens">API tokens</a> page, then`
      : html`Ask an admin for an API token with the <code>tenant:write</code> scope, then`;

    send(
      res,
      layout(pageContext(req, res), {
        title: 'Feedback',
        section: 'feedback',
        body: html`<div class="page-head">
            <h1>Feedback</h1>
          </div>
          ${
            total === 0
              ? html`<div class="empty">
                  <h2>No feedback yet</h2>
                  <p>
                    Tickets arrive here when your app or the embedded widget files feedback through
                    the REST API. ${tokensLink} send:
                  </p>
                  <pre class="curl">${curlExample(config.PUBLIC_URL)}</pre>
                  <p>Each ticket gets its own conversation room for the follow-up.</p>
                </div>`
              : html`<nav class="tabs" aria-label="Filter by status">
                    ${tab(undefined, 'All', total)} ${tab('new', 'New', counts.new)}
                    ${tab('triaged', 'Triaged', counts.triaged)}
                  </nav>
                  ${
                    page.items.length
                      ? html`<table class="inbox">
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
                            ${page.items.map(
                              (f) =>
                                html`<tr>
                                  <td class="ticket-cell">
                                    <a href="${base}/feedback/${f.id}">${ticketTitle(f)}</a>
                                    ${f.title ? html`<p class="excerpt">${excerpt(f.note, 140)}</p>` : ''}
                                  </td>
                                  <td>${reporterText(f) || html`<span class="muted">—</span>`}</td>
                                  <td>
                                    ${f.page_path ? html`<code>${f.page_path}</code>` : html`<span class="muted">—</span>`}
                                  </td>
                                  <td>${statusBadge(f.status)}</td>
                                  <td>${timeAgo(f.created_at)}</td>
                                </tr>`,
                            )}
                          </tbody>
                        </table>`
                      : emptyState(
                          pageNumber > 1 ? 'No more tickets' : `No ${status ?? ''} tickets`,
                          html`<a href="${href(status)}">Back to the first page</a>`,
                        )
                  }
                  ${
                    pageNumber > 1 || page.hasMore
                      ? html`<nav class="pager" aria-label="Pages">
                          ${pageNumber > 1 ? html`<a href="${href(status, pageNumber - 1)}" rel="prev">← Newer</a>` : html`<span></span>`}
                          <span class="muted">Page ${pageNumber}</span>
                          ${page.hasMore ? html`<a href="${href(status, pageNumber + 1)}" rel="next">Older →</a>` : html`<span></span>`}
                        </nav>`
                      : ''
                  }`
          }`,
      }),
    );
  });

  router.get('/:feedbackId', async (req, res) => {
    const { workspace } = seat(res);
    const base = workspaceBase(workspace);
    const f = await findFeedback(db, workspace.id, req.params.feedbackId);
    if (!f) throw new AppError('not_found', 'No such feedback ticket in this workspace.');
    const [conversation, dispatches] = await Promise.all([
      conversationMessages(db, f),
      listDispatches(db, f),
    ]);
    const roomHref = `${base}/rooms/${f.room_id}`;
    const viewport =
      f.viewport_width !== null || f.viewport_height !== null
        ? `${f.viewport_width ?? '?'} × ${f.viewport_height ?? '?'}`
        : null;

    send(
      res,
      layout(pageContext(req, res), {
        title: ticketTitle(f),
        section: 'feedback',
        body: html`<p class="crumbs"><a href="${base}/feedback">← Feedback</a></p>
          <div class="page-head">
            <h1>${ticketTitle(f)} ${statusBadge(f.status)}</h1>
          </div>
          <p class="muted">Filed ${timeAgo(f.created_at)} · <code>${f.id}</code></p>
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
                        ${conversation.messages.map(messageItem)}
                      </ol>`
                    : html`<p class="muted">No messages yet.</p>`
                }
                <p><a class="button" href="${roomHref}">Reply in the conversation room</a></p>
              </section>
              ${dispatchList(dispatches)}
            </div>
            <div class="ticket-side">
              <section class="card">
                <h2>Reporter</h2>
                <dl class="kv">
                  <dt>Name</dt>
                  <dd>${optional(f.reporter_label)}</dd>
                  <dt>Role</dt>
                  <dd>${optional(f.reporter_role)}</dd>
                  <dt>Email</dt>
                  <dd>
                    ${f.reporter_email ? html`<a href="mailto:${f.reporter_email}">${f.reporter_email}</a>` : optional(null)}
                  </dd>
                </dl>
              </section>
              <section class="card">
                <h2>Page</h2>
                <dl class="kv">
                  <dt>URL</dt>
                  <dd class="break">${link(f.page_url)}</dd>
                  <dt>Path</dt>
                  <dd>${f.page_path ? html`<code>${f.page_path}</code>` : optional(null)}</dd>
                  <dt>Controller#action</dt>
                  <dd>
                    ${f.controller_action ? html`<code>${f.controller_action}</code>` : optional(null)}
                  </dd>
                  <dt>Viewport</dt>
                  <dd>${optional(viewport)}</dd>
                </dl>
                <h3>Rendered partials (${f.partials.length})</h3>
                ${
                  f.partials.length
                    ? html`<ol class="partials">
                        ${f.partials.map((p) => html`<li><code>${p}</code></li>`)}
                      </ol>`
                    : html`<p class="muted">None reported.</p>`
                }
              </section>
              <section class="card">
                <h2>Picked element</h2>
                <dl class="kv">
                  <dt>Selector</dt>
                  <dd>
                    ${f.element_selector ? html`<code>${f.element_selector}</code>` : optional(null)}
                  </dd>
                  <dt>Tag</dt>
                  <dd>${f.element_tag ? html`<code>${f.element_tag}</code>` : optional(null)}</dd>
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
            </div>
          </div>`,
      }),
    );
  });

  return router;
}
