import { Router } from 'express';
import { AppError } from '@ferry/core';
import type { ErrorSource, Workspace } from '@ferry/db';
import type { WebDeps } from '../deps.js';
import {
  ERROR_SOURCES,
  findErrorGroup,
  ingestCurlExample,
  isErrorSource,
  latestOccurrences,
  listErrorGroups,
  OCCURRENCES_SHOWN,
  retainedOccurrences,
  sumCounts,
  type OccurrenceWithVisitor,
} from '../domain/errors.js';
import { excerpt } from '../domain/feedback.js';
import { pageContext, requireCapability, seat, send } from '../request-context.js';
import { html, type SafeHtml } from '../views/html.js';
import { emptyState, layout, timeAgo, workspaceBase } from '../views/layout.js';

/**
 * Query values on a page are forgiving, as on the feedback inbox: an unknown source shows all
 * sources and a junk page number shows the first page, rather than an error page. The API is
 * strict instead (422), since a program should learn its query is wrong.
 */
function sourceParam(value: unknown): ErrorSource | undefined {
  return isErrorSource(value) ? value : undefined;
}

function pageParam(value: unknown): number {
  const n = typeof value === 'string' && /^\d{1,5}$/.test(value) ? Number(value) : 1;
  return n >= 1 ? n : 1;
}

export function sourceBadge(source: ErrorSource): SafeHtml {
  return html`<span class="badge source source-${source}">${source}</span>`;
}

const number = (n: number): string => n.toLocaleString('en-US');

const plural = (n: number, one: string, many = `${one}s`): string =>
  `${number(n)} ${n === 1 ? one : many}`;

function optional(value: string | null | undefined): SafeHtml | string {
  return value ? value : html`<span class="muted">not given</span>`;
}

/** Only http(s) addresses become links: a reported URL is untrusted and could be `javascript:`. */
function link(url: string | null): SafeHtml | string {
  if (!url) return optional(null);
  return /^https?:\/\//i.test(url)
    ? html`<a href="${url}" rel="noreferrer noopener" target="_blank">${url}</a>`
    : url;
}

/** Exact time, for detail rows where the relative time alone would hide the order of events. */
function exact(date: Date): SafeHtml {
  return html`${timeAgo(date)} <span class="muted small">(${date.toISOString()})</span>`;
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
    <pre class="curl" data-testid="ingest-curl">
${ingestCurlExample(publicUrl, workspace.public_key)}</pre>`;
}

/** Line breaks in a message are kept (pre-wrap), so no template whitespace may sit inside. */
function messageText(message: string, className: string): SafeHtml {
  return message
    ? html`<p class="plain-text ${className}">${message}</p>`
    : html`<p class="muted ${className}">(no message)</p>`;
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
      <dd>${exact(o.occurred_at)}</dd>
      <dt>Received</dt>
      <dd>${exact(o.received_at)}</dd>
      <dt>URL</dt>
      <dd class="break">${link(o.url)}</dd>
      <dt>Request</dt>
      <dd>${request ? html`<code>${request}</code>` : optional(null)}</dd>
      <dt>Environment</dt>
      <dd>${optional(o.environment)}</dd>
      <dt>App version</dt>
      <dd>${optional(o.app_version)}</dd>
      <dt>Visitor</dt>
      <dd class="visitor">
        ${
          o.visitor
            ? html`${o.visitor.name ?? html`<span class="muted">unnamed</span>`}
                ${o.visitor.email ? html` · <a href="mailto:${o.visitor.email}">${o.visitor.email}</a>` : ''}
                · <code>${o.visitor.token}</code>`
            : html`<span class="muted">unknown</span>`
        }
      </dd>
      <dt>Id</dt>
      <dd><code>${o.id}</code></dd>
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

export function errorRoutes({ db, config }: WebDeps): Router {
  const router = Router({ mergeParams: true });
  router.use(requireCapability('errors.read'));

  router.get('/', async (req, res) => {
    const { workspace } = seat(res);
    const base = workspaceBase(workspace);
    const source = sourceParam(req.query.source);
    const pageNumber = pageParam(req.query.page);
    const [list, retained] = await Promise.all([
      listErrorGroups(db, workspace.id, { page: pageNumber, source }),
      retainedOccurrences(db, workspace.id),
    ]);
    const counts = list.counts;
    const allGroups = sumCounts(counts);
    const href = (s: ErrorSource | undefined, p = 1): string => {
      const params = new URLSearchParams();
      if (s) params.set('source', s);
      if (p > 1) params.set('page', String(p));
      const query = params.toString();
      return `${base}/errors${query ? `?${query}` : ''}`;
    };
    const tab = (s: ErrorSource | undefined, label: string, n: number): SafeHtml =>
      html`<a href="${href(s)}" ${s === source ? html`aria-current="page"` : ''}
        >${label} <span class="count">${number(n)}</span></a
      >`;

    const table = html`<table class="errors">
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
        ${list.groups.map(
          (g) =>
            html`<tr>
              <td class="error-cell">
                <a href="${base}/errors/${g.id}">${g.error_class}</a>
                <p class="excerpt" title="${excerpt(g.latest_message, 1_000)}">
                  ${excerpt(g.latest_message, 140) || html`<span class="muted">(no message)</span>`}
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

    const pager =
      list.pages > 1 || pageNumber > 1
        ? html`<nav class="pager" aria-label="Pages">
            ${
              pageNumber > 1
                ? html`<a href="${href(source, Math.min(pageNumber - 1, list.pages))}" rel="prev"
                    >← Newer</a
                  >`
                : html`<span></span>`
            }
            <span class="muted">Page ${number(pageNumber)} of ${number(list.pages)}</span>
            ${
              pageNumber < list.pages
                ? html`<a href="${href(source, pageNumber + 1)}" rel="next">Older →</a>`
                : html`<span></span>`
            }
          </nav>`
        : '';

    send(
      res,
      layout(pageContext(req, res), {
        title: 'Errors',
        section: 'errors',
        body: html`<div class="page-head">
            <h1>Errors</h1>
            <p class="muted errors-total" data-testid="retained-total">
              <strong>${plural(retained, 'occurrence')}</strong> retained in
              ${plural(allGroups, 'group')} · <a href="${base}/settings/errors">Setup</a>
            </p>
          </div>
          ${
            allGroups === 0
              ? html`<div class="empty">
                  <h2>No errors reported yet</h2>
                  ${firstReportHelp(config.PUBLIC_URL, workspace)}
                  <p>Reports with the same class and top backtrace frame are grouped here.</p>
                </div>`
              : html`<nav class="tabs" aria-label="Filter by source">
                    ${tab(undefined, 'All', allGroups)}
                    ${ERROR_SOURCES.map((s) => tab(s, s, counts[s]))}
                  </nav>
                  ${
                    list.groups.length
                      ? table
                      : emptyState(
                          pageNumber > 1
                            ? 'No more error groups'
                            : `No errors from ${source ?? ''}`,
                          html`<a href="${href(pageNumber > 1 ? source : undefined)}"
                            >${pageNumber > 1 ? 'Back to the first page' : 'Show all sources'}</a
                          >`,
                        )
                  }
                  ${pager}`
          }`,
      }),
    );
  });

  router.get('/:groupId', async (req, res) => {
    const { workspace } = seat(res);
    const base = workspaceBase(workspace);
    const group = await findErrorGroup(db, workspace.id, req.params.groupId);
    if (!group) throw new AppError('not_found', 'No such error group in this workspace.');
    const occurrences = await latestOccurrences(db, group);
    const count = Number(group.occurrence_count);

    send(
      res,
      layout(pageContext(req, res), {
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
              <dd>${exact(group.first_seen_at)}</dd>
              <dt>Last seen</dt>
              <dd>${exact(group.last_seen_at)}</dd>
              <dt>Group</dt>
              <dd><code>${group.id}</code></dd>
            </dl>
          </section>
          <h2>
            ${
              occurrences.length < count
                ? `Latest ${plural(occurrences.length, 'occurrence')} of ${number(count)}`
                : `${plural(occurrences.length, 'occurrence')}`
            }
          </h2>
          ${
            occurrences.length < count
              ? html`<p class="muted">
                  Up to ${OCCURRENCES_SHOWN} of the most recent occurrences are shown; older ones
                  may have been removed by retention, but still count.
                </p>`
              : ''
          }
          ${
            occurrences.length
              ? html`<div class="occurrences">${occurrences.map(occurrenceCard)}</div>`
              : emptyState(
                  'No occurrences retained',
                  'Older occurrences were removed by retention.',
                )
          }`,
      }),
    );
  });

  return router;
}

/** /settings/errors: the public key and a ready report, for anyone who may read errors. */
export function errorSettingsRoutes({ config }: WebDeps): Router {
  const router = Router({ mergeParams: true });
  router.use(requireCapability('errors.read'));
  router.get('/', (req, res) => {
    const { workspace } = seat(res);
    const base = workspaceBase(workspace);
    send(
      res,
      layout(pageContext(req, res), {
        title: 'Error reporting',
        section: 'errors-settings',
        body: html`<div class="page-head"><h1>Error reporting</h1></div>
          <section class="card">
            <h2>Workspace public key</h2>
            <p>
              This key identifies the workspace to the error-ingestion endpoint. It is not a secret:
              it is visible in the embed snippet, and anyone holding it can post reports but cannot
              read, delete or reach anything else.
            </p>
            <p><code class="public-key" data-testid="public-key">${workspace.public_key}</code></p>
            <h2>Send a first report</h2>
            ${firstReportHelp(config.PUBLIC_URL, workspace)}
            <p>
              Reports then appear on the <a href="${base}/errors">Errors</a> page, grouped by class
              and top backtrace frame.
            </p>
          </section>`,
      }),
    );
  });
  return router;
}
