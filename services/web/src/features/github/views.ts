import type { GithubInstallation, GithubRepo, Workspace } from '@ferry/db';
import {
  dispatchReady,
  GITHUB_APP_VARIABLES,
  type AuthorizedMember,
  type GithubSettings,
} from '@ferry/github';
import { code, muted, timeAgo } from '../../shared/format.js';
import { html, type SafeHtml } from '../../shared/html.js';
import {
  csrfField,
  layout,
  scrollBox,
  workspaceBase,
  type PageContext,
} from '../../shared/layout.js';

/** Settings > GitHub: the App's setup or connection, repositories, authorizations, identity. */

export const githubSettingsPath = (workspace: Pick<Workspace, 'id' | 'slug'>): string =>
  `${workspaceBase(workspace)}/settings/github`;

/** The App's fixed URLs on this deployment (DESIGN.md "Hosted dispatch"). */
export const githubSetupUrl = (publicUrl: string): string => `${publicUrl}/github/setup`;
export const githubCallbackUrl = (publicUrl: string): string => `${publicUrl}/github/callback`;

/** A link to GitHub: its own tab, no opener, no referrer (our URLs stay ours). */
export function githubLink(href: string, text: SafeHtml | string, className = ''): SafeHtml {
  if (!/^https?:\/\//i.test(href)) return html`${text}`;
  return html`<a class="${className}" href="${href}" target="_blank" rel="noopener noreferrer"
    >${text}<span class="external" aria-hidden="true">↗</span></a
  >`;
}

const VARIABLE_HELP: Record<(typeof GITHUB_APP_VARIABLES)[number], string> = {
  GITHUB_APP_ID: 'The "App ID" shown at the top of the App\'s settings page.',
  GITHUB_APP_PRIVATE_KEY:
    'The content of the .pem file from "Generate a private key" (newlines may be written as \\n).',
  GITHUB_APP_SLUG: "The App's URL name: the last part of github.com/apps/<slug>.",
  GITHUB_CLIENT_ID: 'The "Client ID" on the App\'s settings page.',
  GITHUB_CLIENT_SECRET: 'A secret from "Generate a new client secret".',
};

/** Which permission each side uses: the installation's token, and members' user tokens. */
const PERMISSIONS: { name: string; installation: string; member: string }[] = [
  { name: 'Metadata', installation: 'Read', member: '—' },
  { name: 'Issues', installation: 'Read & write', member: 'Read & write' },
  { name: 'Pull requests', installation: 'Read', member: 'Read & write' },
  { name: 'Contents', installation: '—', member: 'Read & write' },
  { name: 'Actions', installation: '—', member: 'Read & write' },
  { name: 'Agent tasks', installation: '—', member: 'Read & write' },
];

function copyableUrl(id: string, label: string, url: string, hint: string): SafeHtml {
  return html`<div class="copy-row">
    <span class="copy-label" id="${id}-label">${label}</span>
    <div class="copy-value">
      <code id="${id}">${url}</code>
      <button type="button" class="secondary small" data-copy="#${id}" aria-label="Copy ${label}">
        Copy
      </button>
    </div>
    <p class="hint">${hint}</p>
  </div>`;
}

function setupPanel(
  settings: Extract<GithubSettings, { configured: false }>,
  publicUrl: string,
  canManage: boolean,
): SafeHtml {
  const missing = new Set(settings.missing);
  return html`<section class="card github-setup" aria-labelledby="gh-setup">
    <div class="card-head">
      <h2 id="gh-setup">Set up the GitHub App</h2>
      <span class="badge warn">Not configured</span>
    </div>
    <p class="lead">
      Dispatching tickets to GitHub's coding agent needs a GitHub App of your own, configured on
      this server.
      ${
        canManage
          ? 'Until then everything else in Ferry works as usual.'
          : 'Ask the person who runs this Ferry server to follow these steps; everything else in Ferry works in the meantime.'
      }
    </p>
    <ol class="steps">
      <li>
        <h3>Create a GitHub App</h3>
        <p>
          On GitHub, open
          ${githubLink(`${settings.webUrl}/settings/apps/new`, 'Settings → Developer settings → GitHub Apps → New GitHub App')}
          (or the same page under your organization's settings) and enter these URLs:
        </p>
        ${copyableUrl('gh-setup-url', 'Setup URL', githubSetupUrl(publicUrl), 'Also tick "Redirect on update", so adding repositories later comes back here.')}
        ${copyableUrl('gh-callback-url', 'Callback URL', githubCallbackUrl(publicUrl), 'Leave "Request user authorization (OAuth) during installation" unticked; Ferry asks for it itself.')}
        <p class="hint">No webhook is needed: untick "Active" under Webhook.</p>
      </li>
      <li>
        <h3>Grant these permissions</h3>
        ${scrollBox(
          'GitHub App permissions',
          html`
            <table class="permissions">
              <caption class="visually-hidden">
                GitHub App permissions
              </caption>
              <thead>
                <tr>
                  <th scope="col">Permission</th>
                  <th scope="col">Installation</th>
                  <th scope="col">Member's authorization</th>
                </tr>
              </thead>
              <tbody>
                ${PERMISSIONS.map(
                  (p) =>
                    html`<tr>
                      <th scope="row">${p.name}</th>
                      <td>${p.installation === '—' ? muted('—') : p.installation}</td>
                      <td>${p.member === '—' ? muted('—') : p.member}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          `,
        )}
        <p class="hint">
          The installation opens issues and reads repositories. A member's authorization starts the
          coding agent's tasks, or assigns an issue to it, which GitHub allows only with Actions,
          Contents, Issues and Pull requests write access. A GitHub App has one set of permissions:
          set each to the higher of the two columns.
        </p>
      </li>
      <li>
        <h3>Set these variables and restart Ferry</h3>
        <ul class="env-list">
          ${GITHUB_APP_VARIABLES.map(
            (name) =>
              html`<li>
                <div class="env-name">
                  ${code(name)}
                  ${
                    missing.has(name)
                      ? html`<span class="badge warn">missing</span>`
                      : html`<span class="badge ok">set</span>`
                  }
                </div>
                <p class="hint">${VARIABLE_HELP[name]}</p>
              </li>`,
          )}
        </ul>
        <p class="hint">
          On GitHub Enterprise Server also set ${code('GITHUB_API_URL')}
          (<code>https://HOST/api/v3</code>) and ${code('GITHUB_WEB_URL')}
          (<code>https://HOST</code>). Now: ${code(settings.apiUrl)} and ${code(settings.webUrl)}.
        </p>
      </li>
      <li>
        <h3>Connect</h3>
        <p>Come back to this page and press <strong>Connect GitHub</strong>.</p>
      </li>
    </ol>
  </section>`;
}

function appCard(ctx: PageContext, data: GithubPageData, path: string): SafeHtml {
  const { installation, canManage } = data;
  const csrf = csrfField(ctx);
  const connect = (label: string, secondary: boolean) =>
    html`<form method="post" action="${path}/connect" class="inline">
      ${csrf}
      <button type="submit" class="${secondary ? 'secondary' : ''}">${label}</button>
    </form>`;
  if (!installation) {
    return html`<section class="card" aria-labelledby="gh-app">
      <div class="card-head">
        <h2 id="gh-app">GitHub App</h2>
        <span class="badge">Not connected</span>
      </div>
      ${
        canManage
          ? html`<p>
                Install the App on the GitHub account or organization that holds your repositories.
                GitHub then asks you to authorize Ferry, which proves the installation is yours.
              </p>
              <div class="button-row">${connect('Connect GitHub', false)}</div>`
          : html`<p class="muted">
              Not connected yet: an admin of this workspace connects it here.
            </p>`
      }
    </section>`;
  }
  return html`<section class="card" aria-labelledby="gh-app">
    <div class="card-head">
      <h2 id="gh-app">GitHub App</h2>
      <span class="badge ok">Connected</span>
    </div>
    <p class="connected-to">Connected to <strong>${installation.account_login}</strong></p>
    <p class="muted small-text">
      Installation ${installation.installation_id} · repositories read
      ${timeAgo(installation.repos_synced_at)}
    </p>
    ${
      canManage
        ? html`<div class="button-row">
              <form method="post" action="${path}/refresh" class="inline">
                ${csrf}
                <button type="submit">Refresh repositories</button>
              </form>
              ${connect('Reconnect', true)}
            </div>
            <p class="hint after-buttons">
              Reconnect to install the App on another account, or to choose its repositories again
              on GitHub.
            </p>`
        : ''
    }
  </section>`;
}

function repoSwitch(
  ctx: PageContext,
  path: string,
  repo: GithubRepo,
  which: 'linked' | 'enabled',
): SafeHtml {
  const on = repo[which];
  const verb = which === 'linked' ? 'Linked' : 'Enabled';
  return html`<form method="post" action="${path}/repos/${repo.id}" class="switch-form">
    ${csrfField(ctx)}
    <input type="hidden" name="${which}" value="${on ? 'false' : 'true'}" />
    <button
      type="submit"
      class="switch"
      role="switch"
      aria-checked="${on ? 'true' : 'false'}"
      aria-label="${verb}: ${repo.full_name}"
    >
      <span class="switch-track" aria-hidden="true"></span>
      <span class="switch-text">${on ? 'On' : 'Off'}</span>
    </button>
  </form>`;
}

/** `owner/<wbr>name`: a narrow screen breaks the line after the owner, not inside a word. */
export function repoName(fullName: string): SafeHtml {
  const slash = fullName.indexOf('/');
  if (slash < 0) return html`${fullName}`;
  return html`${fullName.slice(0, slash + 1)}<wbr />${fullName.slice(slash + 1)}`;
}

function readonlySwitch(on: boolean): SafeHtml {
  return on ? html`<span class="badge ok">Yes</span>` : html`<span class="badge">No</span>`;
}

function reposCard(ctx: PageContext, data: GithubPageData, path: string): SafeHtml {
  const { repos, canManage, installation } = data;
  let body: SafeHtml;
  if (!repos.length) {
    body = html`<div class="empty compact">
      <p>
        ${
          installation
            ? 'The installation reaches no repository yet. Choose repositories for the App on GitHub (Reconnect), then Refresh repositories.'
            : 'Connect GitHub to list the repositories the App can reach.'
        }
      </p>
    </div>`;
  } else {
    body = html`${scrollBox(
      'Repositories',
      html`
        <table class="repos">
          <thead>
            <tr>
              <th scope="col">Repository</th>
              <th scope="col" class="col-branch">Default branch</th>
              <th scope="col" class="col-switch">Linked</th>
              <th scope="col" class="col-switch">Enabled</th>
            </tr>
          </thead>
          <tbody>
            ${repos.map(
              (repo) =>
                html`<tr id="repo-${repo.id}" class="${repo.reachable ? '' : 'unreachable'}">
                  <td>
                    <span class="repo-name">${repoName(repo.full_name)}</span>
                    ${
                      dispatchReady(repo)
                        ? html`<span class="badge ok ready-badge">ready</span>`
                        : repo.reachable
                          ? ''
                          : html`<span
                              class="badge danger"
                              title="The App's installation no longer lists this repository"
                              >not reachable</span
                            >`
                    }
                    <span class="repo-branch-inline muted">${repo.default_branch}</span>
                  </td>
                  <td class="col-branch">${code(repo.default_branch)}</td>
                  <td class="col-switch">
                    ${canManage ? repoSwitch(ctx, path, repo, 'linked') : readonlySwitch(repo.linked)}
                  </td>
                  <td class="col-switch">
                    ${canManage ? repoSwitch(ctx, path, repo, 'enabled') : readonlySwitch(repo.enabled)}
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>
      `,
    )}`;
  }
  return html`<section class="card" id="repositories" aria-labelledby="gh-repos">
    <h2 id="gh-repos">Repositories</h2>
    <p class="muted">
      Tickets can be dispatched to a repository that is <strong>linked</strong> and
      <strong>enabled</strong> and that the installation still reaches: those are marked
      <span class="badge ok">ready</span>.
      ${canManage ? 'Enabling links too; unlinking disables.' : 'Admins switch them.'}
    </p>
    ${body}
  </section>`;
}

function authorizationCard(ctx: PageContext, data: GithubPageData, path: string): SafeHtml {
  const own = data.own;
  return html`<section class="card" id="authorization" aria-labelledby="gh-auth">
    <h2 id="gh-auth">Your GitHub authorization</h2>
    ${
      own
        ? html`<p class="connected-to">
              Authorized as <strong>@${own.login}</strong>
              <span class="muted small-text">since ${timeAgo(own.since)}</span>
            </p>
            <p class="muted">
              Dispatches you start run as you when the workspace has no dispatch identity, and an
              admin can choose you as the identity.
            </p>
            <form method="post" action="${path}/disconnect">
              ${csrfField(ctx)}
              <button type="submit" class="danger">Disconnect</button>
            </form>`
        : html`<p>
              Authorize GitHub so dispatches you start from a ticket can run as you, and so an admin
              can choose you as the workspace's dispatch identity. Your GitHub tokens are stored
              encrypted and never shown.
            </p>
            <form method="post" action="${path}/authorize">
              ${csrfField(ctx)}
              <button type="submit">Authorize GitHub</button>
            </form>`
    }
  </section>`;
}

const NONE_LABEL =
  'None — dispatches from the ticket page run as the person clicking; API dispatches are refused';

function identityCard(ctx: PageContext, data: GithubPageData, path: string): SafeHtml {
  const current = data.authorized.find((m) => m.memberId === data.identityId);
  const currentText = current
    ? html`<strong>${current.name}</strong> (@${current.githubLogin})`
    : html`<strong>None</strong>: dispatches from a ticket page run as the person clicking, and API
        dispatches are refused.`;
  const error = data.identityError;
  return html`<section class="card" id="identity" aria-labelledby="gh-identity">
    <h2 id="gh-identity">Dispatch identity</h2>
    <p class="muted">
      The member whose GitHub authorization starts every dispatch: their coding-agent seat pays, and
      their access decides which repositories are reachable.
    </p>
    <p data-testid="current-identity">Now: ${currentText}</p>
    ${
      data.canManage
        ? html`<form method="post" action="${path}/identity" novalidate>
            ${csrfField(ctx)}
            <div class="field ${error ? 'has-error' : ''}">
              <label for="f-member_id">Run dispatches as</label>
              <select
                id="f-member_id"
                name="member_id"
                ${error ? html`aria-invalid="true" aria-describedby="f-member_id-error"` : ''}
              >
                <option value="" ${current ? '' : html`selected`}>${NONE_LABEL}</option>
                ${data.authorized.map(
                  (m) =>
                    html`<option
                      value="${m.memberId}"
                      ${m.memberId === current?.memberId ? html`selected` : ''}
                    >
                      ${m.name} (@${m.githubLogin})
                    </option>`,
                )}
              </select>
              ${
                error
                  ? html`<p class="error" id="f-member_id-error">${error}</p>`
                  : html`<p class="hint">
                      Only members who authorized GitHub are
                      listed${data.authorized.length ? '' : ': nobody has yet'}.
                    </p>`
              }
            </div>
            <button type="submit">Save</button>
          </form>`
        : ''
    }
  </section>`;
}

export interface GithubPageData {
  workspace: Pick<Workspace, 'id' | 'slug' | 'name'>;
  publicUrl: string;
  settings: GithubSettings;
  /** May connect the App, switch repositories, choose the identity ('github.manage'). */
  canManage: boolean;
  installation: GithubInstallation | undefined;
  repos: GithubRepo[];
  /** The viewer's own authorization. */
  own: { login: string; since: Date } | null;
  /** Members who authorized GitHub: the identity's choices. */
  authorized: AuthorizedMember[];
  identityId: string | null;
  identityError?: string;
}

export function githubPage(ctx: PageContext, data: GithubPageData): SafeHtml {
  const path = githubSettingsPath(data.workspace);
  const configured = data.settings.configured;
  return layout(ctx, {
    title: 'GitHub',
    section: 'github',
    scripts: configured ? [] : ['/assets/copy.js'],
    body: html`<div class="page-head">
        <h1>GitHub</h1>
      </div>
      <p class="muted lead">
        Dispatch a ticket to GitHub's coding agent: Ferry opens an issue with the ticket's context
        in the repository you pick and starts an agent task on its default branch that proposes a
        pull request.
      </p>
      ${
        data.settings.configured
          ? html`<div class="cards two">
                ${appCard(ctx, data, path)} ${authorizationCard(ctx, data, path)}
              </div>
              ${reposCard(ctx, data, path)} ${identityCard(ctx, data, path)}`
          : setupPanel(data.settings, data.publicUrl, data.canManage)
      }`,
  });
}

/** A trip to GitHub that cannot go on (expired state, forged installation, GitHub said no). */
export function githubProblemPage(
  ctx: PageContext,
  data: { title: string; message: string; back: { href: string; label: string } },
): SafeHtml {
  return layout(ctx, {
    title: data.title,
    section: 'github',
    body: html`<div class="empty problem" role="alert">
      <h2>${data.title}</h2>
      <p>${data.message}</p>
      <p><a class="button" href="${data.back.href}">${data.back.label}</a></p>
    </div>`,
  });
}
