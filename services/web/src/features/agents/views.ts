import type { Agent, AgentWork, ApiToken, Workspace } from '@ferry/db';
import { workState, type AgentStatus, type ShipPolicyRules } from '@ferry/workspace';
import {
  csrfField,
  field,
  layout,
  scrollBox,
  workspaceBase,
  type PageContext,
} from '../../shared/layout.js';
import { COPY_SCRIPT, copyButton, copyableSnippet } from '../../shared/copy.js';
import { timeAgo } from '../../shared/format.js';
import { html, type SafeHtml } from '../../shared/html.js';

/** Local agents: the Dispatch card, the agents page, an agent's Configure page, the ship policy. */

export const agentsPath = (workspace: Pick<Workspace, 'id' | 'slug'>): string =>
  `${workspaceBase(workspace)}/agents`;

/**
 * "Online · heartbeat 12 s ago · claude 2.1.332 · Working on: …" or "Not connected": what the
 * card shows.
 */
export function statusLine(status: AgentStatus): SafeHtml {
  if (!status.online) return html`<span class="agent-state offline">Not connected</span>`;
  const age = status.heartbeatAgeSeconds ?? 0;
  return html`<span class="agent-state online">Online</span>
    <span class="muted">· heartbeat ${age} s ago</span>
    ${status.cli ? html`<span class="agent-cli muted">· ${status.cli}</span>` : ''}
    ${status.activity ? html`<span class="agent-activity">· ${status.activity}</span>` : ''}`;
}

/** How to add an agent: the one command, the tarball it installs, and the token to give it. */
export interface AgentInstall {
  /** `curl -fsSL <PUBLIC_URL>/agent/install.sh | sudo bash -s -- --dispatch` */
  command: string;
  version: string;
  sha256: string;
  tarballUrl: string;
  /** The form that makes a platform:dispatch token; absent for who may not make tokens. */
  tokenForm?: { action: string; csrfToken: string };
}

function installSteps(install: AgentInstall, open: boolean): SafeHtml {
  return html`<details class="agent-install" ${open ? html`open` : ''}>
    <summary>Add an agent</summary>
    <ol class="install-steps">
      <li>
        ${
          install.tokenForm
            ? html`<form method="post" action="${install.tokenForm.action}" class="inline-form">
                  <input type="hidden" name="_csrf" value="${install.tokenForm.csrfToken}" />
                  <button type="submit" class="secondary small">
                    Make a platform:dispatch token
                  </button>
                </form>
                <span class="muted">shown once, to paste into the installer.</span>`
            : html`Ask a workspace admin for an API token with the
                <code>platform:dispatch</code> scope.`
        }
      </li>
      <li>
        On the machine with your checkout (Python 3.9+, git, Claude Code or Codex), run:
        ${copyableSnippet({ id: 'agent-install-command', what: 'the install command', text: install.command, testId: 'agent-install-command', className: 'install-command' })}
        It asks for the token and the checkout, confirms the workspace by name, and installs a
        systemd service.
      </li>
    </ol>
    <p class="agent-tarball muted small-text">
      Installs <a href="${install.tarballUrl}">ferry-agent-${install.version}.tar.gz</a>, refused
      unless its SHA-256 is
      <code class="sha256" data-testid="agent-sha256">${install.sha256}</code>.
      <code>install.sh --update</code> later fetches the newest from here.
    </p>
  </details>`;
}

/**
 * The Dispatch card (Dashboard, API tokens page, Agents page): every agent, online with its
 * heartbeat age and activity, or 'Not connected', and how to add one. public/dispatch-card.js
 * polls the status endpoint every 5 s and redraws the list, so a drop shows without a reload.
 * On the Agents page itself it has no "All agents" link (it would lead back to the same page).
 */
export function dispatchCard(
  workspace: Pick<Workspace, 'id' | 'slug'>,
  agents: AgentStatus[],
  options: { canConfigure: boolean; install: AgentInstall; onAgentsPage?: boolean },
): SafeHtml {
  const base = agentsPath(workspace);
  const { canConfigure, install } = options;
  return html`<section
    class="card dispatch-card"
    aria-labelledby="dispatch-card"
    data-status-url="${base}/status"
    data-agents-url="${base}"
    data-room-url="${workspaceBase(workspace)}/rooms"
    data-configure="${canConfigure ? 'true' : 'false'}"
  >
    <h2 id="dispatch-card">Dispatch</h2>
    <ul class="agent-list" aria-live="polite">
      ${
        agents.length
          ? agents.map(
              (agent) =>
                html`<li class="agent-row" data-agent-id="${agent.id}">
                  <a class="agent-name" href="${workspaceBase(workspace)}/rooms/${agent.roomId}"
                    >@${agent.name}</a
                  >
                  <span class="agent-status">${statusLine(agent)}</span>
                  ${
                    canConfigure
                      ? html`<a class="agent-configure" href="${base}/${agent.id}">Configure</a>`
                      : ''
                  }
                </li>`,
            )
          : html`<li class="agent-empty muted">
              No local agent yet. One runs on your own machine with your checkout and a coding CLI.
            </li>`
      }
    </ul>
    ${installSteps(install, agents.length === 0)}
    ${options.onAgentsPage ? '' : html`<a href="${base}">All agents →</a>`}
    <script src="/assets/dispatch-card.js" defer></script>
    <script src="${COPY_SCRIPT}" defer></script>
  </section>`;
}

export interface AgentsPageData {
  workspace: Pick<Workspace, 'id' | 'slug' | 'name'>;
  agents: AgentStatus[];
  policy: ShipPolicyRules;
  canConfigure: boolean;
  install: AgentInstall;
}

export function agentsPage(ctx: PageContext, data: AgentsPageData): SafeHtml {
  const base = workspaceBase(data.workspace);
  const { policy } = data;
  return layout(ctx, {
    title: 'Agents',
    section: 'agents',
    body: html`<h1>Local agents</h1>
      <p class="muted">
        Agents run on your own machines with your checkout and a coding CLI. New feedback goes to
        the agent marked "receives new feedback"; @-mention an agent in a ticket's conversation, or
        write in its room, to hand it a message.
      </p>
      ${dispatchCard(data.workspace, data.agents, {
        canConfigure: data.canConfigure,
        install: data.install,
        onAgentsPage: true,
      })}
      <section class="card spaced" aria-labelledby="policy-card">
        <h2 id="policy-card">Ship policy</h2>
        <p>
          A proposal is a <strong>quick fix</strong> (committed to the base branch) when it changes
          at most ${policy.maxFiles} files and ${policy.maxLines} lines and touches no
          always-reviewed path; otherwise a <strong>PR</strong>.
          ${
            policy.alwaysReviewed.length
              ? html`Always reviewed: ${policy.alwaysReviewed.map((g) => html`<code>${g}</code> `)}`
              : ''
          }
        </p>
        ${data.canConfigure ? html`<a href="${base}/settings/ship-policy">Edit the policy →</a>` : ''}
      </section>`,
  });
}

export interface ConfigureData {
  workspace: Pick<Workspace, 'id' | 'slug' | 'name'>;
  agent: Agent;
  status: AgentStatus;
  work: AgentWork[];
  /** A refused form's values as posted (undefined: the agent's own). */
  values?: { name?: string; receives_feedback?: boolean; wake_url?: string };
  errors?: Record<string, string>;
}

function workTitle(work: AgentWork): string {
  const payload = (work.payload ?? {}) as {
    feedback?: { note?: string } | null;
    message?: { body?: string } | null;
  };
  const text = payload.message?.body ?? payload.feedback?.note ?? '';
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

export function configurePage(ctx: PageContext, data: ConfigureData): SafeHtml {
  const { agent, status, workspace } = data;
  const base = `${agentsPath(workspace)}/${agent.id}`;
  const errors = data.errors ?? {};
  return layout(ctx, {
    title: `@${agent.name}`,
    section: 'agents',
    body: html`<p class="crumbs"><a href="${agentsPath(workspace)}">← Agents</a></p>
      <h1>@${agent.name}</h1>
      <p>${statusLine(status)}</p>
      <p>
        <a href="${workspaceBase(workspace)}/rooms/${agent.room_id}">Open @${agent.name}'s room</a>
      </p>
      <div class="cards">
        <section class="card" aria-labelledby="agent-settings">
          <h2 id="agent-settings">Settings</h2>
          <form method="post" action="${base}" novalidate>
            ${csrfField(ctx)}
            ${field({
              label: 'Name',
              name: 'name',
              value: data.values?.name ?? agent.name,
              error: errors.name,
              required: true,
              maxlength: 40,
              hint: 'How people @-mention it: letters, digits, "-" and "_".',
            })}
            <div class="field checkbox">
              <label>
                <input
                  type="checkbox"
                  name="receives_feedback"
                  value="on"
                  ${(data.values?.receives_feedback ?? agent.receives_feedback) ? html`checked` : ''}
                />
                Receives new feedback
              </label>
              <p class="hint">One agent of the workspace receives every new ticket.</p>
            </div>
            <button type="submit">Save</button>
          </form>
        </section>
        <section class="card" aria-labelledby="agent-wake">
          <h2 id="agent-wake">Wake requests</h2>
          <p class="muted">
            When work is queued while the agent is offline, Ferry POSTs to this URL once per offline
            episode (and every 5 minutes while work waits), with the wake token in
            <code>X-Service-Wake-Token</code>.
          </p>
          <form method="post" action="${base}/wake" novalidate>
            ${csrfField(ctx)}
            ${field({
              label: 'Wake URL',
              name: 'wake_url',
              value: data.values?.wake_url ?? agent.wake_url ?? '',
              error: errors.wake_url,
              maxlength: 2000,
              hint: 'Leave empty for no wake requests.',
            })}
            <p>
              Wake token:
              <strong data-testid="wake-token-state"
                >${agent.wake_token_sealed ? 'set (••••••••)' : 'not set'}</strong
              >
            </p>
            ${field({
              label: agent.wake_token_sealed ? 'Replace the wake token' : 'Wake token',
              name: 'wake_token',
              type: 'password',
              error: errors.wake_token,
              maxlength: 200,
              autocomplete: 'off',
              hint: 'Leave empty to keep the current one.',
            })}
            <div class="actions">
              <button type="submit">Save wake settings</button>
              ${
                agent.wake_token_sealed
                  ? html`<button type="submit" name="clear_token" value="1" class="secondary">
                      Clear the wake token
                    </button>`
                  : ''
              }
            </div>
          </form>
        </section>
      </div>
      <section class="card spaced" aria-labelledby="agent-work">
        <h2 id="agent-work">Recent work</h2>
        ${
          data.work.length
            ? html`${scrollBox(
                'Recent work',
                html`
                  <table>
                    <thead>
                      <tr>
                        <th>Item</th>
                        <th>Kind</th>
                        <th>State</th>
                        <th>Logged</th>
                      </tr>
                    </thead>
                    <tbody>
                      ${data.work.map(
                        (work) =>
                          html`<tr data-testid="work-row">
                            <td>
                              <a href="${workspaceBase(workspace)}/rooms/${work.conversation_id}"
                                >${workTitle(work) || work.id}</a
                              >
                            </td>
                            <td>${work.kind}</td>
                            <td>
                              <span class="work-state ${workState(work)}">${workState(work)}</span>
                            </td>
                            <td>${timeAgo(work.created_at)}</td>
                          </tr>`,
                      )}
                    </tbody>
                  </table>
                `,
              )}`
            : html`<p class="muted">Nothing yet.</p>`
        }
      </section>`,
  });
}

export function shipPolicyPage(
  ctx: PageContext,
  data: {
    workspace: Pick<Workspace, 'id' | 'slug' | 'name'>;
    values: { max_files: string; max_lines: string; always_reviewed: string };
    errors?: Record<string, string>;
  },
): SafeHtml {
  const errors = data.errors ?? {};
  const base = agentsPath(data.workspace);
  return layout(ctx, {
    title: 'Ship policy',
    section: 'agents',
    body: html`<p class="crumbs"><a href="${base}">← Agents</a></p>
      <h1>Ship policy</h1>
      <div class="card">
        <p class="muted">
          The server decides each proposal's route from these rules, never the agent. The badge on
          the proposal names the rule that decided.
        </p>
        <form method="post" action="${base}/settings/ship-policy" novalidate>
          ${csrfField(ctx)}
          ${field({ label: 'Quick fix: at most this many files', name: 'max_files', type: 'number', value: data.values.max_files, error: errors.max_files, required: true })}
          ${field({ label: 'Quick fix: at most this many changed lines', name: 'max_lines', type: 'number', value: data.values.max_lines, error: errors.max_lines, required: true })}
          <div class="field ${errors.always_reviewed ? 'has-error' : ''}">
            <label for="always_reviewed">Always reviewed (one path pattern a line)</label>
            <textarea
              id="always_reviewed"
              name="always_reviewed"
              rows="5"
              ${errors.always_reviewed ? html`aria-invalid="true" aria-describedby="always_reviewed-error"` : ''}
            >
${data.values.always_reviewed}</textarea>
            ${
              errors.always_reviewed
                ? html`<p class="error" id="always_reviewed-error">${errors.always_reviewed}</p>`
                : html`<p class="hint">
                    For example <code>db/**</code> or <code>config/*.yml</code>. Matching is
                    case-sensitive, as in git.
                  </p>`
            }
          </div>
          <button type="submit">Save</button>
        </form>
      </div>`,
  });
}

export interface InstallPageData {
  workspace: Pick<Workspace, 'id' | 'slug' | 'name'>;
  token: ApiToken;
  /** The token's value, on the one view after it was made; undefined after. */
  raw: string | undefined;
  install: AgentInstall;
  tokensUrl: string;
}

/** After "Make a platform:dispatch token": the token once, and the command it is pasted into. */
export function installPage(ctx: PageContext, data: InstallPageData): SafeHtml {
  const { token, raw, install } = data;
  const base = agentsPath(data.workspace);
  return layout(ctx, {
    title: 'Install a local agent',
    section: 'agents',
    scripts: [COPY_SCRIPT],
    body: html`<p class="crumbs"><a href="${base}">← Agents</a></p>
      <div class="card install-card">
        <h1>Install a local agent</h1>
        <ol class="install-steps">
          <li>
            ${
              raw
                ? html`<p>
                      Copy the token <strong>${token.name}</strong> (scope
                      <code>platform:dispatch</code>). <strong>It is shown once</strong>: Ferry
                      keeps only its hash.
                    </p>
                    <div class="token-reveal">
                      <code class="secret" id="new-token-value" data-testid="new-token"
                        >${raw}</code
                      >
                      ${copyButton('new-token-value', 'the token')}
                    </div>`
                : html`<div class="flash warn" role="status">
                    The token <strong>${token.name}</strong> was shown once, when it was made, and
                    cannot be shown again. If you did not copy it, revoke it on the
                    <a href="${data.tokensUrl}">API tokens</a> page and make another from the
                    Dispatch card.
                  </div>`
            }
          </li>
          <li>
            On the machine with your checkout, run this and paste the token when it asks:
            ${copyableSnippet({ id: 'agent-install-command', what: 'the install command', text: install.command, testId: 'agent-install-command', className: 'install-command' })}
          </li>
        </ol>
        <p class="agent-tarball muted small-text">
          Installs <a href="${install.tarballUrl}">ferry-agent-${install.version}.tar.gz</a>,
          refused unless its SHA-256 is <code class="sha256">${install.sha256}</code>.
        </p>
        <p><a class="button secondary" href="${base}">Back to Agents</a></p>
      </div>`,
  });
}
