import type { Feedback, FeedbackStatus, GithubRepo, Message, Workspace } from '@ferry/db';
import {
  excerpt,
  type Assignee,
  type DispatchJson,
  type MentionHandles,
  type ScreenshotMeta,
  type Ticket,
} from '@ferry/workspace';
import { code, link, mailto, optional, orDash, timeAgo, withQuery } from './format.js';
import { githubLink, repoName } from './github.js';
import { COPY_SCRIPT, copyableSnippet } from './copy.js';
import { html, type SafeHtml } from './html.js';
import { csrfField, emptyState, layout, workspaceBase, type PageContext } from './layout.js';
import { messageItems } from './messages.js';
import { pageHref, pager, pastLastPage } from './pager.js';
import { tabs } from './tabs.js';

/**
 * The feedback inbox (status tabs, assignee and search filters, pages) and a ticket with its
 * triage form, conversation and dispatches.
 */

const STATUS_TONE: Record<FeedbackStatus, string> = {
  new: 'warn',
  triaged: 'ok',
  closed: 'closed',
};
const STATUS_LABEL: Record<FeedbackStatus, string> = {
  new: 'New',
  triaged: 'Triaged',
  closed: 'Closed',
};

function statusBadge(status: FeedbackStatus): SafeHtml {
  return html`<span class="badge ${STATUS_TONE[status]}" data-status="${status}">${status}</span>`;
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
    ${copyableSnippet({
      id: 'feedback-curl-command',
      what: 'the curl command',
      text: curlExample(publicUrl),
      className: 'curl',
    })}
    <p>Each ticket gets its own conversation room for the follow-up.</p>
  </div>`;
}

function inboxTable(base: string, items: Ticket[]): SafeHtml {
  return html`<table class="inbox">
    <thead>
      <tr>
        <th>Ticket</th>
        <th>Reporter</th>
        <th>Page</th>
        <th>Status</th>
        <th>Assignee</th>
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
            <td data-label="Reporter">${orDash(reporterText(f))}</td>
            <td data-label="Page">${orDash(f.page_path, code)}</td>
            <td data-label="Status">${statusBadge(f.status)}</td>
            <td data-label="Assignee">
              ${orDash(f.assignee_member_id ? (f.assignee_name ?? 'A former member') : null)}
            </td>
            <td data-label="Created">${timeAgo(f.created_at)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** The inbox's assignee filter as the page writes it: `me`, `none` or a member id. */
export type AssigneeChoice = string;

export interface InboxFilter {
  /** The status tab shown; undefined for All. */
  status: FeedbackStatus | undefined;
  assignee: AssigneeChoice | undefined;
  q: string | undefined;
}

export interface InboxData {
  workspace: Pick<Workspace, 'id' | 'slug'>;
  publicUrl: string;
  canManageTokens: boolean;
  /** The workspace has tickets at all (the filters may still match none). */
  hasTickets: boolean;
  filter: InboxFilter;
  /** Who tickets can be assigned to: the assignee filter's choices. */
  members: Assignee[];
  /** Per status, among tickets matching the assignee and search filters. */
  counts: Record<FeedbackStatus, number>;
  page: number;
  pages: number;
  items: Ticket[];
}

/** The GET form beside the status tabs: assignee and search, keeping the status tab. */
function filterForm(path: string, filter: InboxFilter, members: Assignee[]): SafeHtml {
  const option = (value: string, label: string) =>
    html`<option value="${value}" ${filter.assignee === value ? html`selected` : ''}>
      ${label}
    </option>`;
  const active = filter.assignee !== undefined || filter.q !== undefined;
  return html`<form method="get" action="${path}" class="inbox-filters" role="search">
    ${filter.status ? html`<input type="hidden" name="status" value="${filter.status}" />` : ''}
    <div class="field">
      <label for="filter-assignee">Assignee</label>
      <select id="filter-assignee" name="assignee">
        ${option('', 'Anyone')} ${option('me', 'Me')} ${option('none', 'Nobody')}
        ${members.map((m) => option(m.id, m.name))}
      </select>
    </div>
    <div class="field search-field">
      <label for="filter-q">Search</label>
      <input
        id="filter-q"
        name="q"
        type="search"
        value="${filter.q ?? ''}"
        maxlength="200"
        placeholder="Note, reporter name or email"
      />
    </div>
    <div class="filter-actions">
      <button type="submit">Filter</button>
      ${active ? html`<a href="${withQuery(path, { status: filter.status })}">Clear</a>` : ''}
    </div>
  </form>`;
}

export function inboxPage(ctx: PageContext, data: InboxData): SafeHtml {
  const { filter, counts, page } = data;
  const base = workspaceBase(data.workspace);
  const path = `${base}/feedback`;
  const list = { path, query: { status: filter.status, assignee: filter.assignee, q: filter.q } };
  const total = counts.new + counts.triaged + counts.closed;
  const statusTab = (value: FeedbackStatus | undefined, label: string, count: number) => ({
    href: withQuery(path, { ...list.query, status: value }),
    label,
    count,
    current: value === filter.status,
  });
  const filtered = filter.assignee !== undefined || filter.q !== undefined;
  const nothing =
    page > 1
      ? 'No more tickets'
      : `No ${filter.status ? `${filter.status} ` : ''}tickets${filtered ? ' match these filters' : ''}`;
  return layout(ctx, {
    title: 'Feedback',
    section: 'feedback',
    scripts: total === 0 ? [COPY_SCRIPT] : [],
    body: html`<div class="page-head">
        <h1>Feedback</h1>
      </div>
      ${
        !data.hasTickets
          ? emptyInbox(base, data.publicUrl, data.canManageTokens)
          : html`${tabs('Filter by status', [
              statusTab(undefined, 'All', total),
              ...(['new', 'triaged', 'closed'] as const).map((s) =>
                statusTab(s, STATUS_LABEL[s], counts[s]),
              ),
            ])}
            ${filterForm(path, filter, data.members)}
            ${
              data.items.length
                ? inboxTable(base, data.items)
                : emptyState(
                    nothing,
                    page > data.pages && page > 1
                      ? pastLastPage({ ...list, page, pages: data.pages })
                      : page > 1
                        ? html`<a href="${pageHref(list, 1)}">Back to the first page</a>`
                        : filtered
                          ? html`<a href="${withQuery(path, { status: filter.status })}"
                              >Clear the filters</a
                            >`
                          : html`<a href="${path}">Show all tickets</a>`,
                  )
            }
            ${pager({ ...list, page, pages: data.pages })}`
      }`,
  });
}

const DISPATCH_STATUS: Record<DispatchJson['status'], { label: string; tone: string }> = {
  queued: { label: 'Queued', tone: 'info' },
  issue_opened: { label: 'Issue opened', tone: 'info' },
  agent_started: { label: 'Agent started', tone: 'info' },
  assigned: { label: 'Assigned to the coding agent', tone: 'info' },
  pr_opened: { label: 'PR opened', tone: 'ok' },
  waiting_on_user: { label: 'Waiting on you', tone: 'warn' },
  completed: { label: 'Completed', tone: 'ok' },
  failed: { label: 'Failed', tone: 'danger' },
};

/** "#12" from `…/issues/12` or `…/pull/12`, for a shorter link text. */
function numberIn(url: string): string {
  const match = /\/(?:issues|pull)\/(\d+)(?:[/?#]|$)/.exec(url);
  return match ? ` #${match[1]}` : '';
}

/** The "Dispatch to GitHub" panel's data (pages/feedback.ts), for members who may dispatch. */
export interface DispatchPanel {
  /** GITHUB_* is set on this server. */
  configured: boolean;
  canManage: boolean;
  /** Every repository of the workspace (names for past dispatches). */
  repos: GithubRepo[];
  /** Linked, enabled and reachable: the select's choices. */
  readyRepos: GithubRepo[];
  /** Whose authorization a dispatch from here uses. */
  runAs:
    | { kind: 'identity'; login: string; self: boolean }
    | { kind: 'self'; login: string }
    | { kind: 'nobody' };
  /** After a refused dispatch: the repository that was chosen, and why it was refused. */
  selected?: string;
  error?: string;
}

function runAsHint(panel: DispatchPanel, settings: string): SafeHtml {
  const { runAs } = panel;
  if (runAs.kind === 'identity') {
    return html`Runs as <strong>@${runAs.login}</strong>, the workspace's dispatch
      identity${runAs.self ? ' (you)' : ''}.`;
  }
  if (runAs.kind === 'self') {
    return html`No dispatch identity is set, so this runs as you,
      <strong>@${runAs.login}</strong>.`;
  }
  return html`No dispatch identity is set, so this would run as you:
    <a href="${settings}#authorization">authorize GitHub</a> first.`;
}

/** A dispatch's state, links and error, as the ticket page and an error group's page show it. */
export function dispatchSummary(d: DispatchJson, repo?: string): SafeHtml {
  const status = DISPATCH_STATUS[d.status] ?? { label: d.status, tone: 'info' };
  return html`<div class="dispatch-head">
      ${repo ? html`<strong class="repo-name">${repoName(repo)}</strong>` : ''}
      <span class="badge ${status.tone}" data-status="${d.status}">${status.label}</span>
      <span class="dispatch-time muted">updated ${timeAgo(d.updated_at)}</span>
    </div>
    ${
      d.issue_url || d.pr_url
        ? html`<div class="dispatch-links">
            ${d.issue_url ? githubLink(d.issue_url, `Issue${numberIn(d.issue_url)}`) : ''}
            ${d.pr_url ? githubLink(d.pr_url, `Pull request${numberIn(d.pr_url)}`) : ''}
          </div>`
        : ''
    }
    ${d.error ? html`<p class="error dispatch-error">${d.error}</p>` : ''}`;
}

function dispatchItem(d: DispatchJson, names: Map<string, string>): SafeHtml {
  return html`<li class="dispatch" data-testid="dispatch">
    ${dispatchSummary(d, names.get(d.repo_id) ?? 'A removed repository')}
  </li>`;
}

function dispatchCard(
  ctx: PageContext,
  base: string,
  f: Feedback,
  panel: DispatchPanel | undefined,
  dispatches: DispatchJson[],
): SafeHtml {
  if (!panel && !dispatches.length) return html``;
  const settings = `${base}/settings/github`;
  const names = new Map((panel?.repos ?? []).map((r) => [r.id, r.full_name]));
  let form: SafeHtml = html``;
  if (panel) {
    const selected = panel.readyRepos.find((r) => r.id === panel.selected) ?? panel.readyRepos[0];
    form = panel.readyRepos.length
      ? html`<form method="post" action="${base}/feedback/${f.id}/dispatch" class="dispatch-form">
            ${csrfField(ctx)}
            <div class="field">
              <label for="dispatch-repo">Repository</label>
              <select id="dispatch-repo" name="repo">
                ${panel.readyRepos.map(
                  (r) =>
                    html`<option value="${r.id}" ${r.id === selected?.id ? html`selected` : ''}>
                      ${r.full_name} (${r.default_branch})
                    </option>`,
                )}
              </select>
            </div>
            <button type="submit">Dispatch</button>
          </form>
          <p class="hint">
            Opens an issue with this ticket's context and starts GitHub's coding agent on the
            default branch, asking for a pull request. ${runAsHint(panel, settings)}
          </p>`
      : html`<p class="muted dispatch-none">
          ${
            !panel.configured
              ? html`GitHub is not set up on this server yet: see the
                  <a href="${settings}">GitHub settings page</a>.`
              : panel.canManage
                ? html`No repository is ready for dispatch. Link and enable one on the
                    <a href="${settings}">GitHub settings page</a>.`
                : html`No repository is ready for dispatch yet: an admin links and enables them on
                    the <a href="${settings}">GitHub settings page</a>.`
          }
        </p>`;
  }
  return html`<section
    class="card dispatch-card-gh"
    id="dispatch"
    aria-labelledby="dispatch-heading"
  >
    <h2 id="dispatch-heading">Dispatch to GitHub</h2>
    ${panel?.error ? html`<div class="flash error" role="alert">${panel.error}</div>` : ''} ${form}
    ${
      dispatches.length
        ? html`<h3>Dispatches</h3>
            <ul class="dispatch-list">
              ${[...dispatches].reverse().map((d) => dispatchItem(d, names))}
            </ul>`
        : ''
    }
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
        <dt>Visitor</dt>
        <dd>
          ${
            f.visitor_id
              ? html`<code title="Filed through the widget by this visitor">${f.visitor_id}</code>`
              : optional(null)
          }
        </dd>
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

/** The ticket page's triage form, for members who may triage (pages/feedback.ts). */
export interface TriagePanel {
  members: Assignee[];
  /** What the form shows: the ticket's values, or what was sent when it was refused. */
  values: { status: string; assignee_id: string };
  errors: Record<string, string>;
}

function triageCard(ctx: PageContext, base: string, f: Ticket, panel: TriagePanel): SafeHtml {
  const { values, errors } = panel;
  // A refused assignee (someone who just left) is not a choice any more: the select shows the
  // ticket's current one, so saving again cannot quietly unassign it.
  const assigneeId = panel.members.some((m) => m.id === values.assignee_id)
    ? values.assignee_id
    : (f.assignee_member_id ?? '');
  const fieldClass = (name: string) => `field ${errors[name] ? 'has-error' : ''}`;
  const invalid = (name: string) =>
    errors[name] ? html`aria-invalid="true" aria-describedby="triage-${name}-error"` : '';
  const error = (name: string) =>
    errors[name] ? html`<p class="error" id="triage-${name}-error">${errors[name]}</p>` : '';
  const other = Object.entries(errors).find(([k]) => k !== 'status' && k !== 'assignee_id');
  return html`<section class="card triage-card" id="triage" aria-labelledby="triage-heading">
    <h2 id="triage-heading">Triage</h2>
    ${other ? html`<div class="flash error" role="alert">${other[1]}</div>` : ''}
    <form method="post" action="${base}/feedback/${f.id}/triage" class="triage-form" novalidate>
      ${csrfField(ctx)}
      <div class="${fieldClass('status')}">
        <label for="triage-status">Status</label>
        <select id="triage-status" name="status" ${invalid('status')}>
          ${(['new', 'triaged', 'closed'] as const).map(
            (s) =>
              html`<option value="${s}" ${values.status === s ? html`selected` : ''}>
                ${STATUS_LABEL[s]}
              </option>`,
          )}
        </select>
        ${error('status')}
      </div>
      <div class="${fieldClass('assignee_id')}">
        <label for="triage-assignee_id">Assignee</label>
        <select id="triage-assignee_id" name="assignee_id" ${invalid('assignee_id')}>
          <option value="" ${assigneeId ? '' : html`selected`}>Nobody</option>
          ${panel.members.map(
            (m) =>
              html`<option value="${m.id}" ${assigneeId === m.id ? html`selected` : ''}>
                ${m.name}
              </option>`,
          )}
        </select>
        ${error('assignee_id')}
      </div>
      <button type="submit">Save</button>
    </form>
    <p class="hint">Each change is noted in the conversation below.</p>
  </section>`;
}

export interface TicketData {
  workspace: Pick<Workspace, 'id' | 'slug'>;
  feedback: Ticket;
  /** The conversation room's latest messages, oldest first; `more` when earlier ones exist. */
  conversation: { messages: Message[]; more: boolean };
  handles: MentionHandles;
  /** Webhook badges' links to their keys' pages, for a viewer who may open them (as in the room). */
  webhookKeyLinks?: ReadonlyMap<string, string> | undefined;
  dispatches: DispatchJson[];
  /** Undefined for a viewer who may not dispatch: the list still shows, without the form. */
  dispatch?: DispatchPanel | undefined;
  /** Undefined for a viewer who may not triage. */
  triage?: TriagePanel | undefined;
  /** The error group it was filed from ("Fix with agent"), when it was and the group remains. */
  errorGroup?: { id: string; error_class: string } | undefined;
  /** The widget screenshot's size, when the visitor attached one (the bytes are served apart). */
  screenshot?: Pick<ScreenshotMeta, 'width' | 'height' | 'byte_size'> | undefined;
}

/** The visitor's screenshot: a preview that opens the full-size image (members only). */
function screenshotCard(
  base: string,
  f: Ticket,
  shot: NonNullable<TicketData['screenshot']>,
): SafeHtml {
  const src = `${base}/feedback/${f.id}/screenshot`;
  const where = f.page_path ?? f.page_url;
  const kb = Math.max(1, Math.round(shot.byte_size / 1024));
  return html`<section class="card screenshot-card" aria-labelledby="screenshot-heading">
    <h2 id="screenshot-heading">Screenshot</h2>
    <a class="screenshot-link" href="${src}" target="_blank" rel="noopener">
      <img
        src="${src}"
        width="${shot.width}"
        height="${shot.height}"
        loading="lazy"
        alt="${`Screenshot of ${where ? `the page ${where}` : 'the page'} as the reporter saw it, the picked element outlined`}"
      />
    </a>
    <p class="hint">
      ${shot.width} × ${shot.height} px, ${kb.toLocaleString('en-US')} KB · the reporter may have
      blacked out parts of it · <a href="${src}" target="_blank" rel="noopener">Open full size</a> ·
      never sent to GitHub
    </p>
  </section>`;
}

export function ticketPage(ctx: PageContext, data: TicketData): SafeHtml {
  const { feedback: f, conversation } = data;
  const base = workspaceBase(data.workspace);
  const roomHref = `${base}/rooms/${f.room_id}`;
  return layout(ctx, {
    title: ticketTitle(f),
    section: 'feedback',
    body: html`<p class="crumbs"><a href="${base}/feedback">← Feedback</a></p>
      <div class="page-head">
        <h1>${ticketTitle(f)} ${statusBadge(f.status)}</h1>
      </div>
      <p class="muted">
        Filed ${timeAgo(f.created_at)} ·
        ${f.assignee_member_id ? html`assigned to ${f.assignee_name ?? 'a former member'}` : 'unassigned'}
        · ${code(f.id)}
      </p>
      ${
        data.errorGroup
          ? html`<p class="from-error">
              Filed from the error
              <a href="${base}/errors/${data.errorGroup.id}">${data.errorGroup.error_class}</a>
            </p>`
          : ''
      }
      <div class="ticket">
        <div class="ticket-main">
          <section class="card">
            <h2>Note</h2>
            <div class="note plain-text">${f.note}</div>
          </section>
          ${data.screenshot ? screenshotCard(base, f, data.screenshot) : ''}
          ${data.triage ? triageCard(ctx, base, f, data.triage) : ''}
          ${dispatchCard(ctx, base, f, data.dispatch, data.dispatches)}
          <section class="card">
            <h2>Conversation</h2>
            ${
              conversation.messages.length
                ? html`<ol class="messages readonly">
                    ${conversation.more ? html`<li class="muted">Earlier messages are in the room.</li>` : ''}
                    ${messageItems(conversation.messages, data.handles, { webhookKeyLinks: data.webhookKeyLinks })}
                  </ol>`
                : html`<p class="muted">No messages yet.</p>`
            }
            <p><a class="button" href="${roomHref}">Reply in the conversation room</a></p>
          </section>
        </div>
        ${ticketSide(f)}
      </div>`,
  });
}
