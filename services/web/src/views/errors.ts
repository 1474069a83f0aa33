import type { ErrorGroup, ErrorSource, ErrorStatus, Workspace } from '@ferry/db';
import {
  ERROR_SOURCES,
  ERROR_STATUSES,
  excerpt,
  ingestCurlExample,
  sentryDsn,
  sentrySnippets,
  OCCURRENCES_PAGE_SIZE,
  OCCURRENCES_SHOWN,
  SPARKLINE_DAYS,
  sumCounts,
  type DispatchJson,
  type GroupLatestFacts,
  type OccurrenceWithVisitor,
  type Ticket,
} from '@ferry/workspace';
import {
  code,
  exactTime,
  link,
  mailto,
  muted,
  noun,
  number,
  optional,
  plural,
  timeAgo,
  withQuery,
} from './format.js';
import { COPY_SCRIPT, copyButton, copyableSnippet } from './copy.js';
import { html, type SafeHtml } from './html.js';
import { csrfField, emptyState, layout, workspaceBase, type PageContext } from './layout.js';
import { pageHref, pager, pastLastPage } from './pager.js';
import { dispatchSummary } from './feedback.js';
import { dailyBars } from './sparkline.js';
import { tabs } from './tabs.js';

/**
 * The Errors list (status and source tabs, search and environment, sparklines, pages), an error
 * group with its triage buttons and pages of occurrences, and the setup page.
 */

export function sourceBadge(source: ErrorSource): SafeHtml {
  return html`<span class="badge source source-${source}">${source}</span>`;
}

/** ERROR_INGESTION_ENABLED=false: said wherever the pages show how to send a report. */
export function ingestionOffNotice(): SafeHtml {
  return html`<div class="flash error ingestion-off" role="status" data-testid="ingestion-off">
    <strong>Error ingestion is turned off on this server</strong>
    (<code>ERROR_INGESTION_ENABLED=false</code>): reports are refused with 503 and nothing new
    appears here until it is turned back on.
  </div>`;
}

export function firstReportHelp(
  publicUrl: string,
  workspace: Pick<Workspace, 'public_key'>,
  ingestionEnabled = true,
): SafeHtml {
  return html`${ingestionEnabled ? '' : ingestionOffNotice()}
    <p>
      Send reports to <code>${publicUrl}/ingest/errors</code> with your workspace public key in the
      <code>X-Service-Tenant</code> header. The key only lets a client post reports, so it is safe
      to ship inside an app.
    </p>
    ${copyableSnippet({
      id: 'ingest-curl-command',
      what: 'the curl command',
      text: ingestCurlExample(publicUrl, workspace.public_key),
      className: 'curl',
      testId: 'ingest-curl',
    })}`;
}

/** Line breaks in a message are kept (pre-wrap), so no template whitespace may sit inside. */
function messageText(message: string, className: string): SafeHtml {
  return message
    ? html`<p class="plain-text ${className}">${message}</p>`
    : html`<p class="muted ${className}">(no message)</p>`;
}

/**
 * The visitor as the host page identified them (`service('identify', {label, role, email})`):
 * label, role and email, shown to those who may read errors (members and above). Never their
 * token, not even its start: it says nothing to a person and is the visitor's own.
 */
function visitor(o: OccurrenceWithVisitor): SafeHtml {
  if (!o.visitor) return muted('unknown');
  const { name, email, role } = o.visitor;
  if (!name && !email && !role) return muted('a visitor who was not identified');
  return html`${optional(name, undefined, 'unnamed')}${role ? html` (${role})` : ''}${
    email ? html` · ${mailto(email)}` : ''
  }`;
}

const STATUS_LABEL: Record<ErrorStatus, string> = {
  unresolved: 'Unresolved',
  resolved: 'Resolved',
  ignored: 'Ignored',
};

/** Regression and the triaged states stand out; plain unresolved is the default and says nothing. */
export function statusBadges(g: Pick<ErrorGroup, 'status' | 'regressed_at'>): SafeHtml {
  return html`${
    g.regressed_at && g.status === 'unresolved'
      ? html`<span class="badge danger" title="Resolved, then seen again">Regression</span>`
      : ''
  }
  ${g.status === 'resolved' ? html`<span class="badge ok">Resolved</span>` : ''}
  ${g.status === 'ignored' ? html`<span class="badge ignored">Ignored</span>` : ''}`;
}

/**
 * Collapsed to a line (message, environment, when; the class only where it differs from the
 * group's, since a group's occurrences nearly always share it); the first on a page opens itself.
 */
function occurrenceItem(o: OccurrenceWithVisitor, groupClass: string, open: boolean): SafeHtml {
  const request = [o.request_method, o.request_path].filter(Boolean).join(' ');
  const contextKeys = Object.keys(o.context).length;
  return html`<details class="card occurrence" id="${o.id}" ${open ? html`open` : ''}>
    <summary class="occurrence-head">
      <span class="occurrence-title">
        ${
          o.error_class === groupClass
            ? ''
            : html`<strong class="occurrence-class">${o.error_class}</strong>`
        }
        <span class="occurrence-excerpt">${excerpt(o.message, 160) || '(no message)'}</span>
      </span>
      <span class="occurrence-meta">
        ${o.environment ? html`<span class="badge">${o.environment}</span>` : ''}
        <span class="muted">${timeAgo(o.occurred_at)}</span>
      </span>
    </summary>
    <div class="occurrence-body">
      ${
        o.error_class === groupClass
          ? ''
          : html`<p class="occurrence-class-full"><strong>${o.error_class}</strong></p>`
      }
      ${messageText(o.message, 'occurrence-message')}
      <dl class="kv">
        <dt>Occurred</dt>
        <dd>${exactTime(o.occurred_at)}</dd>
        <dt>Received</dt>
        <dd>${exactTime(o.received_at)}</dd>
        <dt>URL</dt>
        <dd class="break">${link(o.url)}</dd>
        <dt>Request</dt>
        <dd class="break">${optional(request, code)}</dd>
        <dt>Environment</dt>
        <dd>${optional(o.environment)}</dd>
        <dt>App version</dt>
        <dd>${optional(o.app_version)}</dd>
        <dt>Source</dt>
        <dd>${sourceBadge(o.source)}</dd>
        <dt>Visitor</dt>
        <dd class="visitor">${visitor(o)}</dd>
        <dt>Id</dt>
        <dd class="break">${code(o.id)}</dd>
      </dl>
      <h3>Backtrace</h3>
      ${
        o.backtrace.length
          ? html`<pre class="backtrace">${o.backtrace.join('\n')}</pre>`
          : html`<p class="muted">None reported.</p>`
      }
      <h3>Context</h3>
      ${
        contextKeys
          ? html`<pre class="context">${JSON.stringify(o.context, null, 2)}</pre>`
          : html`<p class="muted">None reported.</p>`
      }
    </div>
  </details>`;
}

/** Under the class: where it broke, the environments it was seen in and its last release. */
function groupFacts(g: ErrorGroup, facts: GroupLatestFacts | undefined): SafeHtml {
  const parts = [
    g.environments.length
      ? html`<span class="facts-envs" title="Environments">${g.environments.join(', ')}</span>`
      : '',
    facts?.release
      ? html`<span class="facts-release" title="Last release seen">release ${facts.release}</span>`
      : '',
  ].filter(Boolean);
  return html`${
    facts?.culprit
      ? html`<p class="culprit" title="${facts.culprit}">
          <code>${excerpt(facts.culprit, 120)}</code>
        </p>`
      : ''
  }
  ${parts.length ? html`<p class="group-facts">${parts.map((part, i) => html`${i ? ' · ' : ''}${part}`)}</p>` : ''}`;
}

function groupsTable(
  base: string,
  groups: ErrorGroup[],
  sparklines: ReadonlyMap<string, readonly number[]>,
  facts: ReadonlyMap<string, GroupLatestFacts>,
): SafeHtml {
  return html`<table class="errors">
    <thead>
      <tr>
        <th>Error</th>
        <th>Last ${SPARKLINE_DAYS} days</th>
        <th>Source</th>
        <th class="num">Occurrences</th>
        <th class="col-first-seen">First seen</th>
        <th>Last seen</th>
      </tr>
    </thead>
    <tbody>
      ${groups.map(
        (g) =>
          html`<tr>
            <td class="error-cell">
              <a href="${base}/errors/${g.id}">${g.error_class}</a>
              ${statusBadges(g)} ${groupFacts(g, facts.get(g.id))}
              <p class="excerpt" title="${excerpt(g.latest_message, 1_000)}">
                ${optional(excerpt(g.latest_message, 140), undefined, '(no message)')}
              </p>
            </td>
            <td class="trend">${dailyBars(sparklines.get(g.id) ?? [], SPARKLINE_DAYS)}</td>
            <td>${sourceBadge(g.source)}</td>
            <td class="num">
              ${number(Number(g.occurrence_count))}<span class="narrow-only">
                ${noun(Number(g.occurrence_count), 'occurrence')}</span
              >
            </td>
            <td class="col-first-seen">${timeAgo(g.first_seen_at)}</td>
            <td class="last-seen">${timeAgo(g.last_seen_at)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** What the list shows: `status` 'all' for every status; the rest undefined when not filtered. */
export interface ErrorListFilter {
  status: ErrorStatus | 'all';
  source: ErrorSource | undefined;
  environment: string | undefined;
  q: string | undefined;
}

export interface ErrorListData {
  workspace: Pick<Workspace, 'id' | 'slug' | 'public_key'>;
  publicUrl: string;
  /** ERROR_INGESTION_ENABLED: false says so on the page. */
  ingestionEnabled: boolean;
  filter: ErrorListFilter;
  page: number;
  pages: number;
  groups: ErrorGroup[];
  /** Daily counts for the last SPARKLINE_DAYS days, per group shown. */
  sparklines: ReadonlyMap<string, readonly number[]>;
  /** Culprit and last release per group shown (from its latest retained occurrence). */
  facts: ReadonlyMap<string, GroupLatestFacts>;
  /** Groups per source and per status under the other filters. */
  counts: Record<ErrorSource, number>;
  statusCounts: Record<ErrorStatus, number>;
  /** Groups in the whole workspace (none: how to send a first report). */
  allGroups: number;
  /** Environments to filter by. */
  environments: string[];
  /** Occurrences retained in the workspace. */
  retained: number;
}

/** The list's query, in one order, with the first-page and default values left out. */
function listQuery(filter: ErrorListFilter): Record<string, string | undefined> {
  return {
    status: filter.status === 'unresolved' ? undefined : filter.status,
    environment: filter.environment,
    q: filter.q,
    source: filter.source,
  };
}

/** GET form: search and environment; the status and source tabs are kept as hidden fields. */
function filterForm(path: string, data: ErrorListData): SafeHtml {
  const { filter } = data;
  const environments = [
    ...new Set([...data.environments, ...(filter.environment ? [filter.environment] : [])]),
  ];
  return html`<form class="error-filters" method="get" action="${path}" role="search">
    <div class="field">
      <label for="errors-q">Search</label>
      <input
        id="errors-q"
        type="search"
        name="q"
        value="${filter.q ?? ''}"
        maxlength="200"
        placeholder="Class or message"
      />
    </div>
    <div class="field">
      <label for="errors-environment">Environment</label>
      <select id="errors-environment" name="environment">
        <option value="">All environments</option>
        ${environments.map(
          (e) =>
            html`<option value="${e}" ${e === filter.environment ? html`selected` : ''}>
              ${e}
            </option>`,
        )}
      </select>
    </div>
    ${
      filter.status !== 'unresolved'
        ? html`<input type="hidden" name="status" value="${filter.status}" />`
        : ''
    }
    ${filter.source ? html`<input type="hidden" name="source" value="${filter.source}" />` : ''}
    <div class="filter-actions">
      <button type="submit" class="secondary">Filter</button>
      ${
        filter.q || filter.environment
          ? html`<a
              href="${withQuery(path, { ...listQuery(filter), q: undefined, environment: undefined })}"
              >Clear</a
            >`
          : ''
      }
    </div>
  </form>`;
}

function statusTabs(path: string, data: ErrorListData): SafeHtml {
  const { filter, statusCounts } = data;
  const entries: { value: ErrorStatus | 'all'; label: string; count: number }[] = [
    ...ERROR_STATUSES.map((s) => ({ value: s, label: STATUS_LABEL[s], count: statusCounts[s] })),
    { value: 'all', label: 'All', count: sumCounts(statusCounts) },
  ];
  return tabs(
    'Filter by status',
    entries.map((e) => ({
      href: withQuery(path, {
        ...listQuery(filter),
        status: e.value === 'unresolved' ? undefined : e.value,
      }),
      label: e.label,
      count: e.count,
      current: e.value === filter.status,
    })),
  );
}

function sourceTabs(path: string, data: ErrorListData): SafeHtml {
  const { filter, counts } = data;
  const entries: { value: ErrorSource | undefined; label: string; count: number }[] = [
    { value: undefined, label: 'All', count: sumCounts(counts) },
    ...ERROR_SOURCES.map((s) => ({ value: s, label: s, count: counts[s] })),
  ];
  return tabs(
    'Filter by source',
    entries.map((e) => ({
      href: withQuery(path, { ...listQuery(filter), source: e.value }),
      label: e.label,
      count: e.count,
      current: e.value === filter.source,
    })),
  );
}

/** Why the list is empty, and the one link that gets back to groups. */
function noMatches(path: string, data: ErrorListData): SafeHtml {
  const { filter, page } = data;
  const query = listQuery(filter);
  if (page > 1) {
    return emptyState(
      'No more error groups',
      page > data.pages
        ? pastLastPage({ path, query, page, pages: data.pages })
        : html`<a href="${pageHref({ path, query }, 1)}">Back to the first page</a>`,
    );
  }
  if (filter.q || filter.environment) {
    return emptyState(
      'No error groups match',
      html`Nothing matches ${filter.q ? html`“${filter.q}”` : ''}
        ${filter.environment ? html` in ${filter.environment}` : ''}.
        <a href="${withQuery(path, { ...query, q: undefined, environment: undefined })}"
          >Clear the search</a
        >`,
    );
  }
  const what = filter.status === 'all' ? '' : `${filter.status} `;
  return emptyState(
    `No ${what}errors${filter.source ? ` from ${filter.source}` : ''}`,
    html`<a href="${withQuery(path, { status: 'all' })}">Show every error group</a>`,
  );
}

/** The live list's script (public/errors-live.js): the "N new errors" line below. */
export const ERRORS_LIVE_SCRIPT = '/assets/errors-live.js';

/**
 * Filled in and shown by errors-live.js when the writer stores occurrences this list's filter
 * shows; the link opens the list's first page, where they are (groups sort by last seen).
 */
function arrivedNotice(path: string, filter: ErrorListFilter): SafeHtml {
  return html`<div class="live-notice errors-arrived" role="status">
    <p class="flash ok" id="errors-arrived" data-testid="errors-arrived" hidden>
      <a href="${withQuery(path, listQuery(filter))}">New errors arrived: show them</a>
    </p>
  </div>`;
}

export function errorListPage(ctx: PageContext, data: ErrorListData): SafeHtml {
  const { page, filter } = data;
  const base = workspaceBase(data.workspace);
  const path = `${base}/errors`;
  return layout(ctx, {
    title: 'Errors',
    section: 'errors',
    scripts: data.allGroups === 0 ? [COPY_SCRIPT, ERRORS_LIVE_SCRIPT] : [ERRORS_LIVE_SCRIPT],
    // What the live line counts: this workspace, this filter (live-errors.ts errors:join).
    body: html`<div
      class="errors-view"
      data-live-errors
      data-workspace-id="${data.workspace.id}"
      data-status="${filter.status}"
      data-source="${filter.source ?? ''}"
      data-environment="${filter.environment ?? ''}"
      data-q="${filter.q ?? ''}"
    >
      <div class="page-head">
        <h1>Errors</h1>
        <p class="muted errors-total" data-testid="retained-total">
          <strong>${plural(data.retained, 'occurrence')}</strong> retained in
          ${plural(data.allGroups, 'group')} ·
          <a href="${base}/settings/errors">Setup</a>
        </p>
      </div>
      ${arrivedNotice(path, filter)}
      ${
        data.allGroups === 0
          ? html`<div class="empty">
              <h2>No errors reported yet</h2>
              ${firstReportHelp(data.publicUrl, data.workspace, data.ingestionEnabled)}
              <p>Reports with the same class and top backtrace frame are grouped here.</p>
            </div>`
          : html`${data.ingestionEnabled ? '' : ingestionOffNotice()} ${statusTabs(path, data)}
            ${filterForm(path, data)} ${sourceTabs(path, data)}
            ${data.groups.length ? groupsTable(base, data.groups, data.sparklines, data.facts) : noMatches(path, data)}
            ${pager({ path, query: listQuery(filter), page, pages: data.pages })}`
      }
    </div>`,
  });
}

export interface ErrorGroupData {
  workspace: Pick<Workspace, 'id' | 'slug'>;
  group: ErrorGroup;
  /** This page of the latest retained occurrences, newest first. */
  occurrences: OccurrenceWithVisitor[];
  page: number;
  pages: number;
  /** Retained occurrences the pages cover (at most OCCURRENCES_SHOWN). */
  shown: number;
  /** Whether the viewer may resolve, ignore and reopen. */
  canTriage: boolean;
  /** Whether the viewer may file the group's ticket ("Fix with agent"). */
  canFileTicket: boolean;
  /** The ticket filed from this group, with its dispatches; null before "Fix with agent". */
  ticket: (Ticket & { dispatches: DispatchJson[] }) | null;
}

/**
 * "Fix with agent": before, a button that files a ticket from this group (the local agent gets it
 * at once; dispatch works from the ticket); after, the ticket and what its dispatches did.
 */
function agentSection(ctx: PageContext, data: ErrorGroupData, path: string): SafeHtml {
  const base = workspaceBase(data.workspace);
  const { ticket } = data;
  if (ticket) {
    return html`<section class="card group-ticket" aria-label="Ticket">
      <h2>Ticket</h2>
      <p>
        <a href="${base}/feedback/${ticket.id}">${ticket.title ?? excerpt(ticket.note, 80)}</a>
        <span class="badge">${ticket.status}</span> · filed ${timeAgo(ticket.created_at)}
      </p>
      ${
        ticket.dispatches.length
          ? html`<ul class="plain dispatch-list">
              ${ticket.dispatches.map(
                (d) => html`<li class="dispatch" data-testid="dispatch">${dispatchSummary(d)}</li>`,
              )}
            </ul>`
          : html`<p class="muted">Not dispatched to GitHub yet; a connected local agent has it.</p>`
      }
    </section>`;
  }
  if (!data.canFileTicket) return html``;
  return html`<section class="card group-ticket" aria-label="Fix with agent">
    <form method="post" action="${path}/feedback" class="inline">
      ${csrfField(ctx)}<button type="submit">Fix with agent</button>
    </form>
    <p class="muted small">
      Files a ticket with this error’s message, culprit and latest backtrace: the workspace’s local
      agent picks it up as it is filed, and it can be dispatched to GitHub from the ticket.
    </p>
  </section>`;
}

/** The buttons that move a group to each other status, as POST forms with the CSRF token. */
function triageForms(ctx: PageContext, action: string, status: ErrorStatus): SafeHtml {
  const moves: { to: ErrorStatus; label: string }[] =
    status === 'unresolved'
      ? [
          { to: 'resolved', label: 'Resolve' },
          { to: 'ignored', label: 'Ignore' },
        ]
      : status === 'resolved'
        ? [
            { to: 'unresolved', label: 'Reopen' },
            { to: 'ignored', label: 'Ignore' },
          ]
        : [
            { to: 'unresolved', label: 'Stop ignoring' },
            { to: 'resolved', label: 'Resolve' },
          ];
  return html`<div class="button-row triage-actions">
    ${moves.map(
      (m, i) =>
        html`<form method="post" action="${action}" class="inline">
          ${csrfField(ctx)}<input type="hidden" name="status" value="${m.to}" /><button
            type="submit"
            class="${i === 0 ? '' : 'secondary'}"
          >
            ${m.label}
          </button>
        </form>`,
    )}
  </div>`;
}

function statusLine(group: ErrorGroup): SafeHtml {
  return html`<p class="triage-status" data-testid="group-status">
    <strong>${STATUS_LABEL[group.status]}</strong>
    ${
      group.regressed_at && group.status === 'unresolved'
        ? html` · <span class="badge danger">Regression</span> seen again
            ${timeAgo(group.regressed_at)} after it was resolved`
        : group.status_changed_at
          ? html` · since ${timeAgo(group.status_changed_at)}`
          : ''
    }
  </p>`;
}

function occurrencesSection(data: ErrorGroupData, path: string): SafeHtml {
  const { occurrences, page, pages, shown, group } = data;
  const count = Number(group.occurrence_count);
  const first = (page - 1) * OCCURRENCES_PAGE_SIZE + 1;
  const heading =
    shown < count
      ? `Latest ${plural(shown, 'occurrence')} of ${number(count)}`
      : plural(shown, 'occurrence');
  return html`<h2 id="occurrences">${heading}</h2>
    ${
      shown < count
        ? html`<p class="muted">
            Up to ${OCCURRENCES_SHOWN} of the most recent occurrences are shown; older ones may have
            been removed by retention, but still count.
          </p>`
        : ''
    }
    ${
      occurrences.length
        ? html`${
              pages > 1
                ? html`<p class="muted">
                    Showing ${number(first)}–${number(first + occurrences.length - 1)}, newest
                    first.
                  </p>`
                : ''
            }
            <div class="occurrences">
              ${occurrences.map((o, i) => occurrenceItem(o, group.error_class, i === 0))}
            </div>`
        : shown === 0
          ? emptyState('No occurrences retained', 'Older occurrences were removed by retention.')
          : emptyState(
              `There is no page ${number(page)}`,
              html`This group’s occurrences fit on ${plural(pages, 'page')}.
                <a href="${pageHref({ path }, pages)}">Go to the last page</a>`,
            )
    }
    ${pager({ path, page, pages })}`;
}

export function errorGroupPage(ctx: PageContext, data: ErrorGroupData): SafeHtml {
  const { group } = data;
  const base = workspaceBase(data.workspace);
  const path = `${base}/errors/${group.id}`;
  return layout(ctx, {
    title: group.error_class,
    section: 'errors',
    body: html`<div class="errors-view">
      <p class="crumbs"><a href="${base}/errors">← Errors</a></p>
      <div class="page-head group-head">
        <h1 class="error-class">${group.error_class}</h1>
        <span class="group-badges">${sourceBadge(group.source)} ${statusBadges(group)}</span>
      </div>
      <section class="card triage" aria-label="Status">
        ${statusLine(group)}
        ${data.canTriage ? triageForms(ctx, `${path}/status`, group.status) : ''}
      </section>
      ${agentSection(ctx, data, path)}
      <section class="card group-summary">
        ${messageText(group.latest_message, 'latest-message')}
        <dl class="kv">
          <dt>Occurrences</dt>
          <dd>${number(Number(group.occurrence_count))}</dd>
          <dt>First seen</dt>
          <dd>${exactTime(group.first_seen_at)}</dd>
          <dt>Last seen</dt>
          <dd>${exactTime(group.last_seen_at)}</dd>
          <dt>Environments</dt>
          <dd>
            ${group.environments.length ? group.environments.join(', ') : muted('none reported')}
          </dd>
          <dt>Group</dt>
          <dd class="break">${code(group.id)}</dd>
        </dl>
      </section>
      ${occurrencesSection(data, path)}
    </div>`,
  });
}

/**
 * Apps that already use a Sentry SDK change only their DSN: the envelope and store endpoints take
 * what those SDKs send.
 */
function sentrySection(publicUrl: string, workspace: Pick<Workspace, 'public_key'>): SafeHtml {
  const dsn = sentryDsn(publicUrl, workspace.public_key);
  const snippets = Object.entries(sentrySnippets(dsn));
  return html`<section class="card" aria-labelledby="sentry-sdks">
    <h2 id="sentry-sdks">Sentry SDKs</h2>
    <p>
      Already using a Sentry SDK (JavaScript, Node, Python, Ruby, PHP, mobile)? Give it this DSN;
      nothing else changes. Errors and messages are kept; performance data and sessions are dropped.
    </p>
    ${copyableSnippet({
      id: 'sentry-dsn',
      what: 'the DSN',
      text: dsn,
      // The curl example's look: light, and wrapped rather than cut off on a phone.
      className: 'curl',
      testId: 'sentry-dsn',
    })}
    ${snippets.map(
      ([name, snippet]) =>
        html`<h3>${snippet.label}</h3>
          ${copyableSnippet({
            id: `sentry-snippet-${name}`,
            what: `the ${snippet.label} set-up`,
            text: snippet.code,
            className: 'curl',
            testId: `sentry-snippet-${name}`,
          })}`,
    )}
  </section>`;
}

/** /settings/errors: the public key and a ready report. */
export function errorSettingsPage(
  ctx: PageContext,
  data: {
    workspace: Pick<Workspace, 'id' | 'slug' | 'public_key'>;
    publicUrl: string;
    ingestionEnabled: boolean;
  },
): SafeHtml {
  const base = workspaceBase(data.workspace);
  return layout(ctx, {
    title: 'Error reporting',
    section: 'errors-settings',
    scripts: [COPY_SCRIPT],
    body: html`<div class="errors-view">
      <div class="page-head"><h1>Error reporting</h1></div>
      <section class="card">
        <h2>Workspace public key</h2>
        <p>
          This key identifies the workspace to the error-ingestion endpoint. It is not a secret: it
          is visible in the embed snippet, and anyone holding it can post reports but cannot read,
          delete or reach anything else.
        </p>
        <p>
          <code class="public-key" id="public-key" data-testid="public-key"
            >${data.workspace.public_key}</code
          >
          ${copyButton('public-key', 'the public key')}
        </p>
        <h2>Send a first report</h2>
        ${firstReportHelp(data.publicUrl, data.workspace, data.ingestionEnabled)}
        <p>
          Reports then appear on the <a href="${base}/errors">Errors</a> page, grouped by class and
          top backtrace frame.
        </p>
      </section>
      ${sentrySection(data.publicUrl, data.workspace)}
    </div>`,
  });
}
