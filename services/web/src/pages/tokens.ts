import { Router, type Request, type Response } from 'express';
import { AppError } from '@ferry/core';
import type { ApiToken, TokenScope } from '@ferry/db';
import { fieldErrors } from '@ferry/http';
import type { WebDeps } from '../deps.js';
import {
  createToken,
  createTokenSchema,
  findToken,
  listTokens,
  revokeToken,
  TOKEN_SCOPES,
  type TokenListItem,
} from '../domain/tokens.js';
import { flash, pageContext, requireCapability, seat, send } from '../request-context.js';
import { html, type SafeHtml } from '../views/html.js';
import {
  csrfField,
  emptyState,
  field,
  layout,
  timeAgo,
  workspaceBase,
  type PageContext,
} from '../views/layout.js';
import type { DashboardCard } from './dashboard.js';

declare module 'express-session' {
  interface SessionData {
    /**
     * The raw value of the token just created, kept only between the POST and the page it
     * redirects to, which removes it as it shows it. This is the one place the raw value exists
     * after the response that created it.
     */
    newApiToken?: { id: string; raw: string; createdAt: number };
  }
}

/** A raw value not picked up within this window (a lost redirect) is never shown. */
const SHOW_ONCE_WINDOW_MS = 10 * 60_000;

/**
 * Cards later features add above the token list (the local agent's Dispatch card: SPEC.md shows
 * agent status on this page too). Same contract as the dashboard's cards.
 */
export const tokenPageCards: DashboardCard[] = [];

/** `fry_AbCdEfGh…`: enough to recognise a token, never enough to use it. */
export function maskedPrefix(prefix: string): string {
  return `${prefix}…`;
}

function scopeBadges(scopes: readonly TokenScope[]): SafeHtml {
  return html`<span class="scopes"
    >${scopes.map((s) => html`<span class="badge scope">${s}</span>`)}</span
  >`;
}

function tokenRow(ctx: PageContext, base: string, t: TokenListItem): SafeHtml {
  const revoked = t.revoked_at !== null;
  return html`<tr class="${revoked ? 'revoked' : ''}">
    <td>
      <strong>${t.name}</strong>
      ${revoked ? html` <span class="badge danger">revoked ${timeAgo(t.revoked_at)}</span>` : ''}
    </td>
    <td>${scopeBadges(t.scopes)}</td>
    <td><code class="token-prefix">${maskedPrefix(t.prefix)}</code></td>
    <td>${t.created_by_name ?? html`<span class="muted">a former member</span>`}</td>
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
                <form method="post" action="${base}/settings/tokens/${t.id}/revoke">
                  ${csrfField(ctx)}
                  <button class="danger small" type="submit">Revoke token</button>
                </form>
              </div>
            </details>`
      }
    </td>
  </tr>`;
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

/** The raw value is never cached: a Back button must not bring it back from the browser cache. */
function noStore(res: Response): void {
  res.set('Cache-Control', 'no-store');
}

export function tokenRoutes({ db }: WebDeps): Router {
  const router = Router({ mergeParams: true });
  router.use(requireCapability('tokens.manage'));

  router.get('/', async (req, res) => {
    const { workspace } = seat(res);
    const base = workspaceBase(workspace);
    const [tokens, cards] = await Promise.all([
      listTokens(db, workspace.id),
      Promise.all(tokenPageCards.map((card) => card({ db }, res))),
    ]);
    const ctx = pageContext(req, res);
    noStore(res);
    send(
      res,
      layout(ctx, {
        title: 'API tokens',
        section: 'tokens',
        body: html`<div class="page-head">
            <h1>API tokens</h1>
            <a class="button" href="${base}/settings/tokens/new">New token</a>
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
              ? html`<table class="tokens">
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
                    ${tokens.map((t) => tokenRow(ctx, base, t))}
                  </tbody>
                </table>`
              : emptyState(
                  'No API tokens yet',
                  html`Create one to file feedback from your app, call the dispatch API or connect a
                    local agent. <a href="${base}/settings/tokens/new">New token</a>`,
                )
          }`,
      }),
    );
  });

  function newTokenPage(
    req: Request,
    res: Response,
    values: { name?: string; scopes?: string[] } = {},
    errors: Record<string, string> = {},
    status = 200,
  ): void {
    const { workspace } = seat(res);
    const base = workspaceBase(workspace);
    const ctx = pageContext(req, res);
    send(
      res,
      layout(ctx, {
        title: 'New API token',
        section: 'tokens',
        body: html`<p class="crumbs"><a href="${base}/settings/tokens">← API tokens</a></p>
          <div class="card narrow">
            <h1>New API token</h1>
            <form method="post" action="${base}/settings/tokens" novalidate>
              ${csrfField(ctx)}
              ${field({ label: 'Name', name: 'name', value: values.name, error: errors.name, required: true, maxlength: 80, hint: 'Where it will be used, e.g. "Production widget" or "Ada\'s laptop agent".' })}
              ${scopeChoices(values.scopes ?? [], errors.scopes)}
              <button type="submit">Create token</button>
              <a class="button secondary" href="${base}/settings/tokens">Cancel</a>
            </form>
          </div>`,
      }),
      status,
    );
  }

  router.get('/new', (req, res) => newTokenPage(req, res));

  router.post('/', async (req, res) => {
    const { workspace, member } = seat(res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const rawScopes = body.scopes;
    const values = {
      name: typeof body.name === 'string' ? body.name : '',
      scopes: (Array.isArray(rawScopes) ? rawScopes : [rawScopes]).filter(
        (s): s is string => typeof s === 'string',
      ),
    };
    const parsed = createTokenSchema.safeParse(body);
    if (!parsed.success) {
      // A field error inside the scopes list (`scopes.1`) belongs to the scopes fieldset.
      const errors: Record<string, string> = {};
      for (const [key, message] of Object.entries(fieldErrors(parsed.error)))
        errors[key.split('.')[0] ?? key] ??= message;
      newTokenPage(req, res, values, errors, 422);
      return;
    }
    const { token, raw } = await createToken(db, workspace.id, member.id, parsed.data);
    req.session.newApiToken = { id: token.id, raw, createdAt: Date.now() };
    res.redirect(303, `${workspaceBase(workspace)}/settings/tokens/${token.id}/created`);
  });

  router.get('/:tokenId/created', async (req, res) => {
    const { workspace } = seat(res);
    const base = workspaceBase(workspace);
    const token = await findToken(db, workspace.id, req.params.tokenId);
    if (!token) throw new AppError('not_found', 'No such API token.');
    // Pop first, whatever happens next: the slot is good for one page view only.
    const pending = req.session.newApiToken;
    delete req.session.newApiToken;
    const raw =
      pending &&
      pending.id === token.id &&
      !token.revoked_at &&
      Date.now() - pending.createdAt < SHOW_ONCE_WINDOW_MS
        ? pending.raw
        : undefined;
    noStore(res);
    send(
      res,
      layout(pageContext(req, res), {
        title: 'Token created',
        section: 'tokens',
        scripts: raw ? ['/assets/copy.js'] : [],
        body: html`<p class="crumbs"><a href="${base}/settings/tokens">← API tokens</a></p>
          <div class="card narrow">
            ${raw ? createdOnce(token, raw) : alreadyShown(token, base)}
            <p><a class="button secondary" href="${base}/settings/tokens">Back to API tokens</a></p>
          </div>`,
      }),
    );
  });

  router.post('/:tokenId/revoke', async (req, res) => {
    const { workspace } = seat(res);
    const { token, alreadyRevoked } = await revokeToken(db, workspace.id, req.params.tokenId);
    flash(
      req,
      'ok',
      alreadyRevoked
        ? `The token "${token.name}" was already revoked.`
        : `The token "${token.name}" is revoked. Calls made with it are refused from now on.`,
    );
    res.redirect(303, `${workspaceBase(workspace)}/settings/tokens`);
  });

  return router;
}

function tokenFacts(token: ApiToken): SafeHtml {
  return html`<dl class="kv">
    <dt>Name</dt>
    <dd>${token.name}</dd>
    <dt>Scopes</dt>
    <dd>${scopeBadges(token.scopes)}</dd>
    <dt>Token</dt>
    <dd><code>${maskedPrefix(token.prefix)}</code></dd>
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
      <button type="button" class="secondary" data-copy="#new-token-value">Copy</button>
    </div>
    ${tokenFacts(token)}`;
}

function alreadyShown(token: ApiToken, base: string): SafeHtml {
  return html`<h1>Token "${token.name}"</h1>
    <div class="flash warn" role="status">
      This token's value was shown once, when it was created, and cannot be shown again. If you did
      not copy it, revoke it on the <a href="${base}/settings/tokens">API tokens</a> page and create
      a new one.
    </div>
    ${tokenFacts(token)}`;
}
