import type { ErrorGroup, ErrorStatus, Workspace } from '@ferry/db';
import {
  excerpt,
  OCCURRENCES_PAGE_SIZE,
  OCCURRENCES_SHOWN,
  type Assignee,
  type DispatchJson,
  type GroupFingerprint,
  type OccurrenceWithVisitor,
  type Ticket,
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
} from '../../shared/format.js';
import { html, type SafeHtml } from '../../shared/html.js';
import {
  csrfField,
  emptyState,
  layout,
  workspaceBase,
  type PageContext,
} from '../../shared/layout.js';
import { pageHref, pager } from '../../shared/pager.js';
import { dispatchSummary } from '../feedback/dispatch-views.js';
import { breakdownSection, type GroupBreakdown } from './breakdown-views.js';
import { detailSection } from './detail-views.js';
import { STATUS_LABEL, sourceBadge, statusBadges } from './shared-views.js';
import { linkedTicketsCard, type LinkedTicketsPanel } from './linked-tickets-views.js';

/**
 * An error group's page: its status and triage buttons, "Fix with agent" (or the ticket filed
 * from it), the summary, and pages of occurrences with their backtraces and context.
 */

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
      ${
        o.detail
          ? html`${detailSection(o.id, o.detail)}
            ${
              o.backtrace.length
                ? html`<details class="raw-backtrace">
                    <summary>Backtrace as stored</summary>
                    <pre class="backtrace">${o.backtrace.join('\n')}</pre>
                  </details>`
                : ''
            }`
          : html`<h3>Backtrace</h3>
              ${
                o.backtrace.length
                  ? html`<pre class="backtrace">${o.backtrace.join('\n')}</pre>`
                  : html`<p class="muted">None reported.</p>`
              }`
      }
      <h3>${o.detail ? 'Additional data' : 'Context'}</h3>
      ${
        contextKeys
          ? html`<pre class="context">${JSON.stringify(o.context, null, 2)}</pre>`
          : html`<p class="muted">None reported.</p>`
      }
    </div>
  </details>`;
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
  /** Whether the viewer may resolve, ignore and reopen, and assign. */
  canTriage: boolean;
  /** Who looks after the group (issue 43); null: nobody. */
  assignee: Assignee | null;
  /** Whom the viewer may assign it to (empty when they may not assign). */
  assignees: Assignee[];
  /** Whether the viewer may file the group's ticket ("Fix with agent"). */
  canFileTicket: boolean;
  /** The ticket filed from this group, with its dispatches; null before "Fix with agent". */
  ticket: (Ticket & { dispatches: DispatchJson[] }) | null;
  /** Occurrences over time and the tags' top values (issue 41). */
  breakdown: GroupBreakdown;
  /** Issue 43: its own fingerprint and (the newest of) those merged into it; `merged`: how many. */
  fingerprints: { list: GroupFingerprint[]; merged: number };
  /** Issue 45: the tickets linked to it; undefined for a viewer who may not read feedback. */
  feedback?: LinkedTicketsPanel | undefined;
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
    <p class="hint">
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
    ${
      status === 'resolved'
        ? ''
        : html`<form method="post" action="${action}" class="inline">
            ${csrfField(ctx)}<input type="hidden" name="status" value="resolved" /><input
              type="hidden"
              name="resolve_in"
              value="next_release"
            /><button type="submit" class="secondary">Resolve in next release</button>
          </form>`
    }
  </div>`;
}

/**
 * The assignee line, and for those who may triage a select of the members (never guests: the
 * choices are assignableTo's) with "Nobody" first. A small POST form with the CSRF token.
 */
function assigneeControl(ctx: PageContext, data: ErrorGroupData, action: string): SafeHtml {
  const { assignee } = data;
  const current = assignee?.id ?? '';
  return html`<div class="assignee-control" data-testid="group-assignee">
    <p class="assignee-line">Assigned to <strong>${assignee ? assignee.name : 'nobody'}</strong></p>
    ${
      data.canTriage
        ? html`<form method="post" action="${action}" class="assignee-form">
            ${csrfField(ctx)}
            <label class="visually-hidden" for="group-assignee_id">Assignee</label>
            <select id="group-assignee_id" name="assignee_id">
              <option value="" ${current ? '' : html`selected`}>Nobody</option>
              ${data.assignees.map(
                (m) =>
                  html`<option value="${m.id}" ${current === m.id ? html`selected` : ''}>
                    ${m.name}
                  </option>`,
              )}
            </select>
            <button type="submit" class="secondary">Assign</button>
          </form>`
        : ''
    }
  </div>`;
}

/** A fingerprint's first 12 hex digits, the whole in its title: enough to tell them apart. */
function shortFingerprint(fingerprint: string): SafeHtml {
  return html`<code class="fingerprint-id" title="${fingerprint}"
    >${fingerprint.slice(0, 12)}</code
  >`;
}

/** One merged fingerprint: what it was, when and by whom it came, and its Unmerge button. */
function mergedFingerprintItem(
  ctx: PageContext,
  f: GroupFingerprint,
  action: string,
  canTriage: boolean,
): SafeHtml {
  return html`<li class="fingerprint" data-testid="merged-fingerprint">
    <div class="fingerprint-what">
      <strong>${f.error_class}</strong>
      <span class="fingerprint-message break"
        >${excerpt(f.latest_message, 120) || '(no message)'}</span
      >
    </div>
    <p class="fingerprint-meta muted">
      ${shortFingerprint(f.fingerprint)} · merged ${f.merged_at ? timeAgo(f.merged_at) : ''}
      ${f.merged_by_name ? html`by ${f.merged_by_name}` : f.merged_by ? '' : 'through the API'} ·
      ${plural(f.occurrence_count ?? 0, 'occurrence')} came with it
    </p>
    ${
      canTriage
        ? html`<form method="post" action="${action}" class="inline fingerprint-unmerge">
            ${csrfField(ctx)}<input
              type="hidden"
              name="fingerprint"
              value="${f.fingerprint}"
            /><button type="submit" class="secondary small">Unmerge</button>
          </form>`
        : ''
    }
  </li>`;
}

/**
 * Issue 43: the fingerprints the group holds. Its own, then each merged into it (newest first);
 * members who may triage can unmerge one: its occurrences from then on make a group of their own.
 */
function fingerprintsSection(ctx: PageContext, data: ErrorGroupData, path: string): SafeHtml {
  const [own, ...merged] = data.fingerprints.list;
  const total = data.fingerprints.merged;
  return html`<section
    class="card group-fingerprints"
    aria-labelledby="fingerprints-heading"
    data-testid="group-fingerprints"
  >
    <h2 id="fingerprints-heading">Fingerprints</h2>
    <p class="fingerprint-own">
      ${own ? shortFingerprint(own.fingerprint) : ''} <span class="muted">this group’s own</span>
    </p>
    ${
      merged.length
        ? html`<p class="hint">
              ${plural(total, 'group')} merged into this one: their new occurrences join it.
            </p>
            <ul class="plain fingerprint-list">
              ${merged.map((f) => mergedFingerprintItem(ctx, f, `${path}/unmerge`, data.canTriage))}
            </ul>
            ${
              total > merged.length
                ? html`<p class="muted">
                    The ${number(merged.length)} merged most recently are shown.
                  </p>`
                : ''
            }`
        : html`<p class="hint">
            No other group was merged into this one. Select groups on the Errors list to merge them.
          </p>`
    }
  </section>`;
}

function statusLine(group: ErrorGroup): SafeHtml {
  return html`<p class="triage-status" data-testid="group-status">
    <strong>${STATUS_LABEL[group.status]}</strong>
    ${
      group.regressed_at && group.status === 'unresolved'
        ? html` · <span class="badge danger">Regression</span> seen again
            ${timeAgo(group.regressed_at)} after it was resolved`
        : group.status === 'resolved' && group.resolved_in_release
          ? html` · in the release after ${code(group.resolved_in_release)}: occurrences on it or
            older releases do not reopen it`
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
        ${assigneeControl(ctx, data, `${path}/assignee`)}
      </section>
      ${agentSection(ctx, data, path)}
      ${data.feedback ? linkedTicketsCard(ctx, base, group, data.feedback) : ''}
      <section class="card group-summary">
        ${messageText(group.latest_message, 'latest-message')}
        <dl class="kv">
          <dt>Occurrences</dt>
          <dd>${number(Number(group.occurrence_count))}</dd>
          <dt>First seen</dt>
          <dd>${exactTime(group.first_seen_at)}</dd>
          <dt>Last seen</dt>
          <dd>${exactTime(group.last_seen_at)}</dd>
          <dt>First release</dt>
          <dd data-testid="first-release">
            ${group.first_release ? code(group.first_release) : muted('none named')}
          </dd>
          <dt>Last release</dt>
          <dd data-testid="last-release">
            ${group.last_release ? code(group.last_release) : muted('none named')}
          </dd>
          <dt>Environments</dt>
          <dd>
            ${group.environments.length ? group.environments.join(', ') : muted('none reported')}
          </dd>
          <dt>Group</dt>
          <dd class="break">${code(group.id)}</dd>
        </dl>
        ${
          group.fingerprint_rule
            ? html`<p class="hint grouped-by-rule" data-testid="grouped-by-rule">
                Grouped by your rule: <code class="break">${group.fingerprint_rule}</code>
              </p>`
            : ''
        }
      </section>
      ${fingerprintsSection(ctx, data, path)} ${breakdownSection(data.breakdown)}
      ${occurrencesSection(data, path)}
    </div>`,
  });
}
