import type { ErrorGroup, ErrorSource, ErrorStatus, Workspace } from '@ferry/db';
import {
  ERROR_SOURCES,
  ERROR_STATUSES,
  excerpt,
  SPARKLINE_DAYS,
  sumCounts,
  type GroupLatestFacts,
} from '@ferry/workspace';
import {
  noun,
  number,
  optional,
  plural,
  relativeAmount,
  timeAgo,
  withQuery,
} from '../../shared/format.js';
import { COPY_SCRIPT } from '../../shared/copy.js';
import { html, type SafeHtml } from '../../shared/html.js';
import { emptyState, layout, workspaceBase, type PageContext } from '../../shared/layout.js';
import { pageHref, pager, pastLastPage } from '../../shared/pager.js';
import { dailyBars } from '../../shared/sparkline.js';
import { tabs } from '../../shared/tabs.js';
import { STATUS_LABEL, sourceBadge, statusBadges } from './shared-views.js';
import { firstReportHelp, ingestionOffNotice } from './setup-views.js';

/**
 * The Errors list: status and source tabs, search and environment filter, the groups table with
 * sparklines and facts, pages, and the live "new errors arrived" line.
 */

/**
 * The row's second line, under the title: the source, where it broke (the culprit), the
 * environments it was seen in and its last release. One line, cut at the cell's end (app.css).
 */
function groupFacts(
  g: ErrorGroup,
  facts: GroupLatestFacts | undefined,
  assignee: string | undefined,
): SafeHtml {
  const parts = [
    sourceBadge(g.source),
    g.assignee_member_id
      ? html`<span class="error-assignee" data-testid="row-assignee" title="Assigned to"
          >→ ${assignee ?? 'a former member'}</span
        >`
      : '',
    facts?.culprit
      ? html`<span class="culprit" title="${facts.culprit}"
          ><code>${excerpt(facts.culprit, 120)}</code></span
        >`
      : '',
    g.environments.length
      ? html`<span class="facts-envs" title="Environments">${g.environments.join(', ')}</span>`
      : '',
    facts?.release
      ? html`<span class="facts-release" title="Last release seen">release ${facts.release}</span>`
      : '',
  ].filter(Boolean);
  return html`<p class="group-facts">
    ${parts.map((part, i) => html`${i > 1 ? ' · ' : ' '}${part}`)}
  </p>`;
}

/**
 * The title, as in Sentry: the class (the link), its status badges, then the latest message,
 * on one line cut with an ellipsis; the whole of both on hover.
 */
function groupTitle(base: string, g: ErrorGroup): SafeHtml {
  const message = excerpt(g.latest_message, 1_000);
  return html`<div class="error-title" title="${g.error_class}${message ? `: ${message}` : ''}">
    <a href="${base}/errors/${g.id}">${g.error_class}</a>${statusBadges(g)}
    <span class="error-message"
      >${optional(excerpt(g.latest_message, 200), undefined, '(no message)')}</span
    >
  </div>`;
}

/** "44 days": how long ago the group was first seen, short enough for a narrow column. */
function age(firstSeen: Date): SafeHtml {
  const seconds = Math.max(0, Math.round((Date.now() - firstSeen.getTime()) / 1000));
  const { value, unit } = relativeAmount(seconds);
  return html`<time
    datetime="${firstSeen.toISOString()}"
    title="First seen ${firstSeen.toUTCString()}"
    >${seconds < 60 ? 'new' : plural(value, unit)}</time
  >`;
}

/**
 * The title takes most of the row (two short lines per group); the numbers and times keep
 * narrow columns. Issue 42: the title had the narrowest column and 25 rows were 3,200 px.
 */
function groupsTable(
  base: string,
  groups: ErrorGroup[],
  sparklines: ReadonlyMap<string, readonly number[]>,
  facts: ReadonlyMap<string, GroupLatestFacts>,
  assignees: ReadonlyMap<string, string>,
): SafeHtml {
  return html`<table class="errors">
    <thead>
      <tr>
        <th>Error</th>
        <th class="col-trend">Last ${SPARKLINE_DAYS} days</th>
        <th class="num">Occurrences</th>
        <th class="col-last-seen">Last seen</th>
        <th class="col-first-seen" title="Since first seen">Age</th>
      </tr>
    </thead>
    <tbody>
      ${groups.map(
        (g) =>
          html`<tr>
            <td class="error-cell">
              ${groupTitle(base, g)}
              ${groupFacts(
                g,
                facts.get(g.id),
                g.assignee_member_id ? assignees.get(g.assignee_member_id) : undefined,
              )}
            </td>
            <td class="trend">${dailyBars(sparklines.get(g.id) ?? [], SPARKLINE_DAYS)}</td>
            <td class="num">
              ${number(Number(g.occurrence_count))}<span class="narrow-only">
                ${noun(Number(g.occurrence_count), 'occurrence')}</span
              >
            </td>
            <td class="last-seen">${timeAgo(g.last_seen_at)}</td>
            <td class="col-first-seen">${age(new Date(g.first_seen_at))}</td>
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
  /**
   * `me`: groups assigned to the viewer (the sidebar's "Assigned to me"). Issue 43's query
   * language will say `assigned:me` in `q`; until then this is its own parameter.
   */
  assigned: 'me' | undefined;
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
  /** The names of the shown groups' assignees, by member id. */
  assignees: ReadonlyMap<string, string>;
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
    assigned: filter.assigned,
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
    ${filter.assigned ? html`<input type="hidden" name="assigned" value="${filter.assigned}" />` : ''}
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
  if (filter.assigned) {
    return emptyState(
      `No ${filter.status === 'all' ? '' : `${filter.status} `}errors assigned to you`,
      html`<a href="${withQuery(path, { ...query, assigned: undefined })}"
        >Show everyone’s errors</a
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
    title: filter.assigned ? 'Errors assigned to me' : 'Errors',
    section: filter.assigned ? 'errors-assigned' : 'errors',
    scripts: data.allGroups === 0 ? [COPY_SCRIPT, ERRORS_LIVE_SCRIPT] : [ERRORS_LIVE_SCRIPT],
    // What the live line counts: this workspace, this filter (live.ts, errors:join).
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
        filter.assigned
          ? html`<p class="assigned-filter" data-testid="assigned-filter">
              Showing errors assigned to you.
              <a href="${withQuery(path, { ...listQuery(filter), assigned: undefined })}"
                >Show everyone’s</a
              >
            </p>`
          : ''
      }
      ${
        data.allGroups === 0
          ? html`<div class="empty">
              <h2>No errors reported yet</h2>
              ${firstReportHelp(data.publicUrl, data.workspace, data.ingestionEnabled)}
              <p>Reports with the same class and top backtrace frame are grouped here.</p>
            </div>`
          : html`${data.ingestionEnabled ? '' : ingestionOffNotice()} ${statusTabs(path, data)}
            ${filterForm(path, data)} ${sourceTabs(path, data)}
            ${data.groups.length ? groupsTable(base, data.groups, data.sparklines, data.facts, data.assignees) : noMatches(path, data)}
            ${pager({ path, query: listQuery(filter), page, pages: data.pages })}`
      }
    </div>`,
  });
}
