import type { Feedback, GithubRepo } from '@ferry/db';
import type { DispatchJson } from '@ferry/workspace';
import { timeAgo } from '../../shared/format.js';
import { githubLink, repoName } from '../github/views.js';
import { html, type SafeHtml } from '../../shared/html.js';
import { csrfField, type PageContext } from '../../shared/layout.js';

/**
 * A ticket's "Dispatch to GitHub" panel (the repository form and past dispatches), and one
 * dispatch's summary, also shown on the page of the error group a ticket was filed from.
 */

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

/** The "Dispatch to GitHub" panel's data (feedback/routes.ts), for members who may dispatch. */
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

export function dispatchCard(
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
