import type { ErrorGroup, ErrorSource, Workspace } from '@ferry/db';
import {
  ERROR_SOURCES,
  excerpt,
  ingestCurlExample,
  OCCURRENCES_SHOWN,
  sumCounts,
  type OccurrenceWithVisitor,
} from '@ferry/workspace';
import {
  code,
  exactTime,
  link,
  mailto,
  muted,
  number,
  optional,
  plural,
  timeAgo,
} from './format.js';
import { COPY_SCRIPT, copyButton, copyableSnippet } from './copy.js';
import { html, type SafeHtml } from './html.js';
import { emptyState, layout, workspaceBase, type PageContext } from './layout.js';
import { pager, pastLastPage } from './pager.js';
import { filterTabs } from './tabs.js';

/** The Errors list (source tabs, pages), an error group with its occurrences, and the setup page. */

export function sourceBadge(source: ErrorSource): SafeHtml {
  return html`<span class="badge source source-${source}">${source}</span>`;
}

export function firstReportHelp(
  publicUrl: string,
  workspace: Pick<Workspace, 'public_key'>,
): SafeHtml {
  return html`<p>
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

function visitor(o: OccurrenceWithVisitor): SafeHtml {
  if (!o.visitor) return muted('unknown');
  const { name, email, token } = o.visitor;
  return html`${optional(name, undefined, 'unnamed')} ${email ? html` · ${mailto(email)}` : ''} ·
  ${code(token)}`;
}

function occurrenceCard(o: OccurrenceWithVisitor): SafeHtml {
  const request = [o.request_method, o.request_path].filter(Boolean).join(' ');
  const contextKeys = Object.keys(o.context).length;
  return html`<article class="card occurrence" id="${o.id}">
    <header class="occurrence-head">
      <strong>${o.error_class}</strong>
      ${sourceBadge(o.source)}
      ${o.environment ? html`<span class="badge">${o.environment}</span>` : ''}
      <span class="muted">${timeAgo(o.occurred_at)}</span>
    </header>
    ${messageText(o.message, 'occurrence-message')}
    <dl class="kv">
      <dt>Occurred</dt>
      <dd>${exactTime(o.occurred_at)}</dd>
      <dt>Received</dt>
      <dd>${exactTime(o.received_at)}</dd>
      <dt>URL</dt>
      <dd class="break">${link(o.url)}</dd>
      <dt>Request</dt>
      <dd>${optional(request, code)}</dd>
      <dt>Environment</dt>
      <dd>${optional(o.environment)}</dd>
      <dt>App version</dt>
      <dd>${optional(o.app_version)}</dd>
      <dt>Visitor</dt>
      <dd class="visitor">${visitor(o)}</dd>
      <dt>Id</dt>
      <dd>${code(o.id)}</dd>
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
  </article>`;
}

function groupsTable(base: string, groups: ErrorGroup[]): SafeHtml {
  return html`<table class="errors">
    <thead>
      <tr>
        <th>Error</th>
        <th>Source</th>
        <th class="num">Occurrences</th>
        <th>First seen</th>
        <th>Last seen</th>
      </tr>
    </thead>
    <tbody>
      ${groups.map(
        (g) =>
          html`<tr>
            <td class="error-cell">
              <a href="${base}/errors/${g.id}">${g.error_class}</a>
              <p class="excerpt" title="${excerpt(g.latest_message, 1_000)}">
                ${optional(excerpt(g.latest_message, 140), undefined, '(no message)')}
              </p>
            </td>
            <td>${sourceBadge(g.source)}</td>
            <td class="num">${number(Number(g.occurrence_count))}</td>
            <td>${timeAgo(g.first_seen_at)}</td>
            <td>${timeAgo(g.last_seen_at)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

export interface ErrorListData {
  workspace: Pick<Workspace, 'id' | 'slug' | 'public_key'>;
  publicUrl: string;
  /** The source tab shown; undefined for All. */
  source: ErrorSource | undefined;
  page: number;
  pages: number;
  groups: ErrorGroup[];
  /** Groups per source in the whole workspace. */
  counts: Record<ErrorSource, number>;
  /** Occurrences retained in the workspace. */
  retained: number;
}

export function errorListPage(ctx: PageContext, data: ErrorListData): SafeHtml {
  const { source, page, counts } = data;
  const base = workspaceBase(data.workspace);
  const list = { path: `${base}/errors`, query: { source } };
  const allGroups = sumCounts(counts);
  return layout(ctx, {
    title: 'Errors',
    section: 'errors',
    scripts: allGroups === 0 ? [COPY_SCRIPT] : [],
    body: html`<div class="page-head">
        <h1>Errors</h1>
        <p class="muted errors-total" data-testid="retained-total">
          <strong>${plural(data.retained, 'occurrence')}</strong> retained in
          ${plural(allGroups, 'group')} · <a href="${base}/settings/errors">Setup</a>
        </p>
      </div>
      ${
        allGroups === 0
          ? html`<div class="empty">
              <h2>No errors reported yet</h2>
              ${firstReportHelp(data.publicUrl, data.workspace)}
              <p>Reports with the same class and top backtrace frame are grouped here.</p>
            </div>`
          : html`${filterTabs('Filter by source', {
              path: list.path,
              param: 'source',
              current: source,
              entries: [
                { value: undefined, label: 'All', count: allGroups },
                ...ERROR_SOURCES.map((s) => ({ value: s, label: s, count: counts[s] })),
              ],
            })}
            ${
              data.groups.length
                ? groupsTable(base, data.groups)
                : emptyState(
                    page > 1 ? 'No more error groups' : `No errors from ${source ?? ''}`,
                    page > data.pages
                      ? pastLastPage({ ...list, page, pages: data.pages })
                      : html`<a href="${list.path}">Show all sources</a>`,
                  )
            }
            ${pager({ ...list, page, pages: data.pages })}`
      }`,
  });
}

export interface ErrorGroupData {
  workspace: Pick<Workspace, 'id' | 'slug'>;
  group: ErrorGroup;
  /** The latest retained occurrences, newest first (at most OCCURRENCES_SHOWN). */
  occurrences: OccurrenceWithVisitor[];
}

export function errorGroupPage(ctx: PageContext, data: ErrorGroupData): SafeHtml {
  const { group, occurrences } = data;
  const base = workspaceBase(data.workspace);
  const count = Number(group.occurrence_count);
  const shown = plural(occurrences.length, 'occurrence');
  return layout(ctx, {
    title: group.error_class,
    section: 'errors',
    body: html`<p class="crumbs"><a href="${base}/errors">← Errors</a></p>
      <div class="page-head">
        <h1 class="error-class">${group.error_class} ${sourceBadge(group.source)}</h1>
      </div>
      <section class="card group-summary">
        ${messageText(group.latest_message, 'latest-message')}
        <dl class="kv">
          <dt>Occurrences</dt>
          <dd>${number(count)}</dd>
          <dt>First seen</dt>
          <dd>${exactTime(group.first_seen_at)}</dd>
          <dt>Last seen</dt>
          <dd>${exactTime(group.last_seen_at)}</dd>
          <dt>Group</dt>
          <dd>${code(group.id)}</dd>
        </dl>
      </section>
      <h2>${occurrences.length < count ? `Latest ${shown} of ${number(count)}` : shown}</h2>
      ${
        occurrences.length < count
          ? html`<p class="muted">
              Up to ${OCCURRENCES_SHOWN} of the most recent occurrences are shown; older ones may
              have been removed by retention, but still count.
            </p>`
          : ''
      }
      ${
        occurrences.length
          ? html`<div class="occurrences">${occurrences.map(occurrenceCard)}</div>`
          : emptyState('No occurrences retained', 'Older occurrences were removed by retention.')
      }`,
  });
}

/** /settings/errors: the public key and a ready report. */
export function errorSettingsPage(
  ctx: PageContext,
  data: { workspace: Pick<Workspace, 'id' | 'slug' | 'public_key'>; publicUrl: string },
): SafeHtml {
  const base = workspaceBase(data.workspace);
  return layout(ctx, {
    title: 'Error reporting',
    section: 'errors-settings',
    scripts: [COPY_SCRIPT],
    body: html`<div class="page-head"><h1>Error reporting</h1></div>
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
        ${firstReportHelp(data.publicUrl, data.workspace)}
        <p>
          Reports then appear on the <a href="${base}/errors">Errors</a> page, grouped by class and
          top backtrace frame.
        </p>
      </section>`,
  });
}
