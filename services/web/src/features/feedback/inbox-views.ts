import type { Feedback, FeedbackStatus, Workspace } from '@ferry/db';
import { excerpt, type Assignee, type Ticket } from '@ferry/workspace';
import { code, orDash, timeAgo, withQuery } from '../../shared/format.js';
import { COPY_SCRIPT, copyableSnippet } from '../../shared/copy.js';
import { html, type SafeHtml } from '../../shared/html.js';
import { emptyState, layout, workspaceBase, type PageContext } from '../../shared/layout.js';
import { pageHref, pager, pastLastPage } from '../../shared/pager.js';
import { tabs } from '../../shared/tabs.js';
import { STATUS_LABEL, statusBadge, ticketTitle } from './shared-views.js';

/**
 * The feedback inbox: status tabs, assignee and search filters, the tickets table and pages, or
 * how to file a first ticket when there are none.
 */

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
