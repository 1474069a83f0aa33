import type { ApiToken, TokenScope } from '@ferry/db';
import { TOKEN_SCOPES, type ListPage, type TokenListItem } from '@ferry/workspace';
import { masked, optional, timeAgo } from '../../shared/format.js';
import { COPY_SCRIPT, copyButton } from '../../shared/copy.js';
import { html, type SafeHtml } from '../../shared/html.js';
import { listFooter } from '../../shared/pager.js';
import {
  csrfField,
  emptyState,
  field,
  layout,
  scrollBox,
  type PageContext,
} from '../../shared/layout.js';

/** API tokens: the list (with plug-in cards), the create form and the show-once page. */

function scopeBadges(scopes: readonly TokenScope[]): SafeHtml {
  return html`<span class="scopes"
    >${scopes.map((s) => html`<span class="badge scope">${s}</span>`)}</span
  >`;
}

function tokenRow(csrf: SafeHtml, base: string, t: TokenListItem): SafeHtml {
  const revoked = t.revoked_at !== null;
  return html`<tr class="${revoked ? 'revoked' : ''}">
    <td>
      <strong>${t.name}</strong>
      ${revoked ? html` <span class="badge danger">revoked ${timeAgo(t.revoked_at)}</span>` : ''}
      ${t.revoked_reason ? html`<span class="muted revoked-reason">${t.revoked_reason}</span>` : ''}
    </td>
    <td>${scopeBadges(t.scopes)}</td>
    <td><code class="token-prefix">${masked(t.prefix)}</code></td>
    <td>${optional(t.created_by_name, undefined, 'a former member')}</td>
    <td>${timeAgo(t.created_at)}</td>
    <td>${timeAgo(t.last_used_at)}</td>
    <td class="actions">
      ${
        revoked
          ? ''
          : html`<details class="confirm">
              <summary class="button danger small">Revoke…</summary>
              <div class="confirm-box">
                <p>
                  Revoke <strong>${t.name}</strong>? Every call made with it is refused at once, and
                  a local agent using it is cut off at its next reconnect. This cannot be undone.
                </p>
                <form method="post" action="${base}/${t.id}/revoke">
                  ${csrf}
                  <button class="danger small" type="submit">Revoke token</button>
                </form>
              </div>
            </details>`
      }
    </td>
  </tr>`;
}

export interface TokensData {
  /** The tokens page's own path (`.../settings/tokens`). */
  base: string;
  /** A page of them. */
  tokens: ListPage<TokenListItem>;
  /** Cards other features put on this page (deps.cards.tokens), already rendered. */
  cards: SafeHtml[];
}

export function tokensPage(ctx: PageContext, data: TokensData): SafeHtml {
  const { base, cards } = data;
  const tokens = data.tokens.items;
  const csrf = csrfField(ctx);
  return layout(ctx, {
    title: 'API tokens',
    section: 'tokens',
    body: html`<div class="page-head">
        <h1>API tokens</h1>
        <a class="button" href="${base}/new">New token</a>
      </div>
      <p class="muted lead">
        A token authenticates this workspace (not a person) to the REST API under
        <code>/api/v1/</code> and lets a local agent connect. Send it as
        <code>Authorization: Bearer &lt;token&gt;</code>. Its value is shown once, when it is
        created; lost tokens cannot be recovered, only revoked and replaced.
      </p>
      ${cards.length ? html`<div class="cards">${cards}</div>` : ''}
      ${
        tokens.length
          ? scrollBox(
              'API tokens',
              html`<table class="tokens">
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Scopes</th>
                    <th>Token</th>
                    <th>Created by</th>
                    <th>Created</th>
                    <th>Last used</th>
                    <th><span class="visually-hidden">Actions</span></th>
                  </tr>
                </thead>
                <tbody>
                  ${tokens.map((t) => tokenRow(csrf, base, t))}
                </tbody>
              </table>`,
            )
          : data.tokens.total
            ? ''
            : emptyState(
                'No API tokens yet',
                html`Create one to file feedback from your app, call the dispatch API or connect a
                  local agent. <a href="${base}/new">New token</a>`,
              )
      }
      ${listFooter(data.tokens, { path: base })}`,
  });
}

function scopeChoices(selected: readonly string[], error: string | undefined): SafeHtml {
  return html`<fieldset class="field scope-choices ${error ? 'has-error' : ''}">
    <legend>Scopes</legend>
    ${TOKEN_SCOPES.map(
      ({ scope, description }) =>
        html`<label class="check">
          <input
            type="checkbox"
            name="scopes"
            value="${scope}"
            ${selected.includes(scope) ? html`checked` : ''}
          />
          <span><code>${scope}</code> <span class="hint">${description}</span></span>
        </label>`,
    )}
    ${error ? html`<p class="error" id="f-scopes-error">${error}</p>` : ''}
  </fieldset>`;
}

export interface NewTokenData {
  base: string;
  values?: { name?: string | undefined; scopes?: string[] };
  errors?: Record<string, string>;
}

export function newTokenPage(ctx: PageContext, data: NewTokenData): SafeHtml {
  const { base, values = {}, errors = {} } = data;
  return layout(ctx, {
    title: 'New API token',
    section: 'tokens',
    body: html`<p class="crumbs"><a href="${base}">← API tokens</a></p>
      <div class="card narrow">
        <h1>New API token</h1>
        <form method="post" action="${base}" novalidate>
          ${csrfField(ctx)}
          ${field({ label: 'Name', name: 'name', value: values.name, error: errors.name, required: true, maxlength: 80, hint: 'Where it will be used, e.g. "Production widget" or "Ada\'s laptop agent".' })}
          ${scopeChoices(values.scopes ?? [], errors.scopes)}
          <button type="submit">Create token</button>
          <a class="button secondary" href="${base}">Cancel</a>
        </form>
      </div>`,
  });
}

function tokenFacts(token: ApiToken): SafeHtml {
  return html`<dl class="kv">
    <dt>Name</dt>
    <dd>${token.name}</dd>
    <dt>Scopes</dt>
    <dd>${scopeBadges(token.scopes)}</dd>
    <dt>Token</dt>
    <dd><code>${masked(token.prefix)}</code></dd>
  </dl>`;
}

function createdOnce(token: ApiToken, raw: string): SafeHtml {
  return html`<h1>Token created</h1>
    <div class="flash warn" role="alert">
      <strong>Copy this token now. It will not be shown again.</strong> Ferry keeps only a hash of
      it, so it cannot be recovered; if you lose it, revoke it and create a new one.
    </div>
    <div class="token-reveal">
      <code class="secret" id="new-token-value" data-testid="new-token">${raw}</code>
      ${copyButton('new-token-value', 'the token')}
    </div>
    ${tokenFacts(token)}`;
}

function alreadyShown(token: ApiToken, base: string): SafeHtml {
  return html`<h1>Token "${token.name}"</h1>
    <div class="flash warn" role="status">
      This token's value was shown once, when it was created, and cannot be shown again. If you did
      not copy it, revoke it on the <a href="${base}">API tokens</a> page and create a new one.
    </div>
    ${tokenFacts(token)}`;
}

/** After creating: the raw value once (`raw`), or the note that it was already shown. */
export function tokenCreatedPage(
  ctx: PageContext,
  data: { base: string; token: ApiToken; raw: string | undefined },
): SafeHtml {
  const { base, token, raw } = data;
  return layout(ctx, {
    title: 'Token created',
    section: 'tokens',
    scripts: raw ? [COPY_SCRIPT] : [],
    body: html`<p class="crumbs"><a href="${base}">← API tokens</a></p>
      <div class="card narrow">
        ${raw ? createdOnce(token, raw) : alreadyShown(token, base)}
        <p><a class="button secondary" href="${base}">Back to API tokens</a></p>
      </div>`,
  });
}
