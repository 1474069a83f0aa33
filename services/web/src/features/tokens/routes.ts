import type { Request, Response } from 'express';
import { AppError, fieldErrors } from '@ferry/core';
import type { WebDeps } from '../../deps.js';
import {
  createToken,
  createTokenSchema,
  findToken,
  listTokens,
  revokeToken,
} from '@ferry/workspace';
import { flash, noStore, renderPage, seat } from '../../shared/request-context.js';
import { stashOnce, takeOnce } from '../../shared/show-once.js';
import { redirectWithForm, takeForm } from '../../shared/kept-form.js';
import { pageParam } from '../../shared/pager.js';
import { workspaceBase } from '../../shared/layout.js';
import { newTokenPage, tokenCreatedPage, tokensPage } from './views.js';
import { routeTable, type RouteTable } from '@ferry/http';
import { capability } from '../../shared/access.js';

const tokensPath = (res: Response): string =>
  `${workspaceBase(seat(res).workspace)}/settings/tokens`;

export function tokenRoutes({ db, redis, box, config, cards: plugins }: WebDeps): RouteTable {
  const slots = { redis, box, prefix: config.REDIS_PREFIX };
  const routes = routeTable();

  routes.get('/', capability('tokens.manage'), async (req, res) => {
    const { workspace } = seat(res);
    const [tokens, cards] = await Promise.all([
      listTokens(db, workspace.id, { page: pageParam(req.query.page) }),
      Promise.all(plugins.tokens.map((card) => card({ db }, res))),
    ]);
    noStore(res);
    await renderPage(req, res, (ctx) => tokensPage(ctx, { base: tokensPath(res), tokens, cards }));
  });

  const NEW_FORM = 'tokens.new';

  async function newToken(req: Request, res: Response): Promise<void> {
    const kept = takeForm(req, NEW_FORM);
    const name = kept?.values.name;
    const scopes = kept?.values.scopes;
    const values = {
      name: Array.isArray(name) ? name[0] : name,
      scopes: Array.isArray(scopes) ? scopes : scopes === undefined ? [] : [scopes],
    };
    const errors = kept?.errors ?? {};
    await renderPage(req, res, (ctx) =>
      newTokenPage(ctx, { base: tokensPath(res), values, errors }),
    );
  }

  routes.get('/new', capability('tokens.manage'), (req, res) => newToken(req, res));

  routes.post('/', capability('tokens.manage'), async (req, res) => {
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
      redirectWithForm(req, res, `${tokensPath(res)}/new`, NEW_FORM, { values, errors });
      return;
    }
    const { token, raw } = await createToken(db, workspace.id, member.id, parsed.data);
    // Shown once, on the page this redirects to; kept minutes at most (show-once.ts).
    await stashOnce(slots, req.sessionID, token.id, raw);
    res.redirect(303, `${tokensPath(res)}/${token.id}/created`);
  });

  routes.get('/:tokenId/created', capability('tokens.manage'), async (req, res) => {
    const { workspace } = seat(res);
    const token = await findToken(db, workspace.id, req.params.tokenId);
    if (!token) throw new AppError('not_found', 'No such API token.');
    // Taken first, whatever happens next: the slot is good for one page view only.
    const pending = await takeOnce(slots, req.sessionID, token.id);
    const raw = token.revoked_at ? undefined : pending;
    noStore(res);
    await renderPage(req, res, (ctx) =>
      tokenCreatedPage(ctx, { base: tokensPath(res), token, raw }),
    );
  });

  routes.post('/:tokenId/revoke', capability('tokens.manage'), async (req, res) => {
    const { workspace } = seat(res);
    const { token, alreadyRevoked } = await revokeToken(db, workspace.id, req.params.tokenId);
    flash(
      req,
      'ok',
      alreadyRevoked
        ? `The token "${token.name}" was already revoked.`
        : `The token "${token.name}" is revoked. Calls made with it are refused from now on.`,
    );
    res.redirect(303, tokensPath(res));
  });

  return routes;
}
