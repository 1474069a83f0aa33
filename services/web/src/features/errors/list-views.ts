import type { ErrorBulkAction, ErrorGroup, ErrorSource, ErrorStatus, Workspace } from '@ferry/db';
import {
  ERROR_SOURCES,
  ERROR_STATUSES,
  excerpt,
  SEARCH_QUERY_MAX,
  SPARKLINE_DAYS,
  searchValue,
  sumCounts,
  withKeyReplaced,
  type Assignee,
  type GroupLatestFacts,
  type SearchTerm,
} from '@ferry/workspace';
import { bulkBar, bulkCheckbox, ERRORS_BULK_SCRIPT } from './bulk-views.js';
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
  selectable: boolean,
): SafeHtml {
  return html`<table class="errors ${selectable ? 'selectable' : ''}">
    <thead>
      <tr>
        ${selectable ? html`<th class="select-cell"><span class="visually-hidden">Select</span></th>` : ''}
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
            ${selectable ? bulkCheckbox(g.id, `${g.error_class}: ${excerpt(g.latest_message, 80)}`) : ''}
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

/** The page's query when the URL has none (issue 43); the API's default stays every group. */
export const DEFAULT_ERROR_SEARCH = 'is:unresolved';

/** What the list shows: the search as typed, its terms, and why it was refused, if it was. */
export interface ErrorListFilter {
  q: string;
  /** Empty when refused. */
  terms: SearchTerm[];
  /** The refusal naming the token, shown under the box. */
  error: string | undefined;
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
  /** For those who may triage: the bulk bar's assignees, and the actions still running. */
  bulk?: { assignees: readonly Assignee[]; running: readonly ErrorBulkAction[] } | undefined;
  /** Groups the search matches (what "all matching" acts on). */
  matching: number;
}

/**
 * The list's URL query for a search: none for the default; an empty search (every group) as a
 * single space, since an absent `q` means the default and withQuery drops empty values.
 */
function listQuery(q: string): Record<string, string | undefined> {
  return { q: q === DEFAULT_ERROR_SEARCH ? undefined : q || ' ' };
}

/**
 * The one value a key's positive terms pick, when exactly one term of that kind is typed and it
 * is not negated: what the tabs and the environment menu mark as current. `null`: none typed.
 */
function picked<K extends 'status' | 'source' | 'env'>(
  terms: readonly SearchTerm[],
  kind: K,
): string | null | undefined {
  const of = terms.filter((t) => t.kind === kind);
  if (of.length === 0) return null;
  const [only] = of;
  if (of.length > 1 || !only || only.negated) return undefined;
  if (only.kind === 'status') return only.status;
  if (only.kind === 'source') return only.source;
  return only.kind === 'env' && !only.value.includes('*') ? only.value : undefined;
}

/** The environment menu: shortcuts that put one env: term in the query (or take it out). */
function environmentMenu(path: string, data: ErrorListData): SafeHtml {
  const { filter } = data;
  const current = picked(filter.terms, 'env');
  const entries: { value: string | undefined; label: string }[] = [
    { value: undefined, label: 'All environments' },
    ...data.environments.map((e) => ({ value: e, label: e })),
  ];
  return html`<details class="env-menu">
    <summary>
      Environment: <strong>${current === null ? 'all' : (current ?? 'as searched')}</strong>
    </summary>
    <ul>
      ${entries.map((e) => {
        const q = withKeyReplaced(
          filter.q,
          ['env', 'environment'],
          e.value === undefined ? undefined : `env:${searchValue(e.value)}`,
        );
        const isCurrent = e.value === undefined ? current === null : e.value === current;
        return html`<li>
          <a href="${withQuery(path, listQuery(q))}" ${isCurrent ? html`aria-current="true"` : ''}
            >${e.label}</a
          >
        </li>`;
      })}
    </ul>
  </details>`;
}

/** GET form: the search box (its refusal under it) and the environment shortcuts. */
function filterForm(path: string, data: ErrorListData): SafeHtml {
  const { filter } = data;
  return html`<form class="error-filters" method="get" action="${path}" role="search">
    <div class="field search-field ${filter.error ? 'has-error' : ''}">
      <label for="errors-q">Search</label>
      <input
        id="errors-q"
        type="search"
        name="q"
        value="${filter.q}"
        maxlength="${SEARCH_QUERY_MAX}"
        placeholder="is:unresolved browser:Chrome timeout"
        autocomplete="off"
        spellcheck="false"
        ${filter.error ? html`aria-invalid="true"` : ''}
        aria-describedby="errors-q-${filter.error ? 'error' : 'hint'}"
      />
      ${
        filter.error
          ? html`<p class="error" id="errors-q-error" data-testid="search-error">
              ${filter.error}
            </p>`
          : html`<p class="hint" id="errors-q-hint">
              Keys: <code>is:</code> <code>env:</code> <code>source:</code> <code>release:</code>
              <code>level:</code> <code>url:</code> <code>first-seen:-24h</code>
              <code>times-seen:&gt;10</code>, any tag (<code>browser:Chrome</code>),
              <code>*</code> globs, <code>!</code> to negate, <code>"quoted phrases"</code>.
            </p>`
      }
    </div>
    <div class="filter-actions">
      <button type="submit" class="secondary">Search</button>
      ${filter.q !== DEFAULT_ERROR_SEARCH ? html`<a href="${path}">Reset</a>` : ''}
    </div>
    ${data.environments.length ? environmentMenu(path, data) : ''}
  </form>`;
}

function statusTabs(path: string, data: ErrorListData): SafeHtml {
  const { filter, statusCounts } = data;
  const current = picked(filter.terms, 'status');
  const entries: { value: ErrorStatus | undefined; label: string; count: number }[] = [
    ...ERROR_STATUSES.map((s) => ({ value: s, label: STATUS_LABEL[s], count: statusCounts[s] })),
    { value: undefined, label: 'All', count: sumCounts(statusCounts) },
  ];
  return tabs(
    'Filter by status',
    entries.map((e) => ({
      href: withQuery(
        path,
        listQuery(withKeyReplaced(filter.q, ['is'], e.value ? `is:${e.value}` : undefined)),
      ),
      label: e.label,
      count: e.count,
      current: e.value === undefined ? current === null : e.value === current,
    })),
  );
}

function sourceTabs(path: string, data: ErrorListData): SafeHtml {
  const { filter, counts } = data;
  const current = picked(filter.terms, 'source');
  const entries: { value: ErrorSource | undefined; label: string; count: number }[] = [
    { value: undefined, label: 'All', count: sumCounts(counts) },
    ...ERROR_SOURCES.map((s) => ({ value: s, label: s, count: counts[s] })),
  ];
  return tabs(
    'Filter by source',
    entries.map((e) => ({
      href: withQuery(
        path,
        listQuery(withKeyReplaced(filter.q, ['source'], e.value ? `source:${e.value}` : undefined)),
      ),
      label: e.label,
      count: e.count,
      current: e.value === undefined ? current === null : e.value === current,
    })),
  );
}

/** Why the list is empty, and the one link that gets back to groups. */
function noMatches(path: string, data: ErrorListData): SafeHtml {
  const { filter, page } = data;
  const query = listQuery(filter.q);
  if (filter.error) {
    return emptyState(
      'Fix the search to see errors',
      html`The search above was not run, so nothing is counted.
        <a href="${path}">Show unresolved errors</a>`,
    );
  }
  if (page > 1) {
    return emptyState(
      'No more error groups',
      page > data.pages
        ? pastLastPage({ path, query, page, pages: data.pages })
        : html`<a href="${pageHref({ path, query }, 1)}">Back to the first page</a>`,
    );
  }
  if (filter.q === DEFAULT_ERROR_SEARCH) {
    return emptyState(
      'No unresolved errors',
      html`<a href="${withQuery(path, listQuery(''))}">Show every error group</a>`,
    );
  }
  if (assignedToViewer(filter)) {
    return emptyState(
      'Nothing assigned to you here',
      html`Nothing matches “${filter.q}”.
        <a href="${withQuery(path, listQuery(withKeyReplaced(filter.q, ['assigned'], undefined)))}"
          >Show everyone’s errors</a
        >`,
    );
  }
  return emptyState(
    'No error groups match',
    html`Nothing matches “${filter.q}”.
      <a href="${withQuery(path, listQuery(''))}">Show every error group</a>`,
  );
}

/** The search asks for the viewer's own groups (`assigned:me`: the sidebar's "Assigned to me"). */
function assignedToViewer(filter: ErrorListFilter): boolean {
  return filter.terms.some((t) => t.kind === 'assigned' && t.assignee === 'me' && !t.negated);
}

/** Bulk actions still running here: each links to its progress. */
function runningActions(base: string, running: readonly ErrorBulkAction[]): SafeHtml {
  if (running.length === 0) return html``;
  return html`<ul class="bulk-running" data-testid="bulk-running">
    ${running.map(
      (action) =>
        html`<li>
          <a href="${base}/errors/bulk/${action.id}">A bulk action is running</a>:
          ${number(action.processed)} of ${plural(action.total, 'group')} done.
        </li>`,
    )}
  </ul>`;
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
      <a href="${withQuery(path, listQuery(filter.q))}">New errors arrived: show them</a>
    </p>
  </div>`;
}

/** A refused search counts nothing, so it shows no tabs: tabs of zeroes would say "none". */
export function errorListPage(ctx: PageContext, data: ErrorListData): SafeHtml {
  const { page, filter } = data;
  const base = workspaceBase(data.workspace);
  const path = `${base}/errors`;
  // The sidebar's "Assigned to me" is this search; the page says so, with the way back.
  const mine = assignedToViewer(filter);
  return layout(ctx, {
    title: mine ? 'Errors assigned to me' : 'Errors',
    section: mine ? 'errors-assigned' : 'errors',
    scripts: [
      ...(data.allGroups === 0 ? [COPY_SCRIPT] : []),
      ERRORS_LIVE_SCRIPT,
      ...(data.bulk ? [ERRORS_BULK_SCRIPT] : []),
    ],
    // What the live line counts: this workspace, this filter (live.ts, errors:join).
    body: html`<div
      class="errors-view"
      data-live-errors
      data-workspace-id="${data.workspace.id}"
      data-status="all"
      data-q="${filter.q}"
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
        mine
          ? html`<p class="assigned-filter" data-testid="assigned-filter">
              Showing errors assigned to you.
              <a
                href="${withQuery(path, listQuery(withKeyReplaced(filter.q, ['assigned'], undefined)))}"
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
          : html`${data.ingestionEnabled ? '' : ingestionOffNotice()}
            ${filter.error ? '' : statusTabs(path, data)} ${filterForm(path, data)}
            ${filter.error ? '' : sourceTabs(path, data)}
            ${runningActions(base, data.bulk?.running ?? [])}
            ${
              data.groups.length && data.bulk
                ? bulkBar(ctx, path, {
                    q: filter.q,
                    page,
                    matching: data.matching,
                    shown: data.groups.length,
                    assignees: data.bulk.assignees,
                  })
                : ''
            }
            ${data.groups.length ? groupsTable(base, data.groups, data.sparklines, data.facts, data.assignees, Boolean(data.bulk)) : noMatches(path, data)}
            ${pager({ path, query: listQuery(filter.q), page, pages: data.pages })}`
      }
    </div>`,
  });
}
