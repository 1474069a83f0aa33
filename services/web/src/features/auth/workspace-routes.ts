import type { WebDeps } from '../../deps.js';
import { fieldErrors } from '@ferry/core';
import { createWorkspace, createWorkspaceSchema, listWorkspacesForUser } from '@ferry/workspace';
import { locals, renderPage } from '../../shared/request-context.js';
import { keptText, postedText, redirectWithForm, takeForm } from '../../shared/kept-form.js';
import { pageParam } from '../../shared/pager.js';
import { workspaceBase } from '../../shared/layout.js';
import { newWorkspacePage, workspacesPage } from './workspace-views.js';
import { routeTable, type RouteTable } from '@ferry/http';
import { signedIn } from '../../shared/access.js';

export function workspaceRoutes({ db }: WebDeps): RouteTable {
  const routes = routeTable();
  routes.get('/workspaces', signedIn, async (req, res) => {
    const user = locals(res).user!;
    const workspaces = await listWorkspacesForUser(db, user.id, {
      page: pageParam(req.query.page),
    });
    await renderPage(req, res, (ctx) => workspacesPage(ctx, { workspaces }));
  });

  const NEW_FORM = 'workspaces.new';

  routes.get('/workspaces/new', signedIn, async (req, res) => {
    const kept = takeForm(req, NEW_FORM);
    const data = { values: { name: keptText(kept, 'name') }, errors: kept?.errors ?? {} };
    await renderPage(req, res, (ctx) => newWorkspacePage(ctx, data));
  });

  routes.post('/workspaces', signedIn, async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const parsed = createWorkspaceSchema.safeParse(body);
    if (!parsed.success) {
      const values = { name: postedText(body, 'name') };
      redirectWithForm(req, res, '/workspaces/new', NEW_FORM, {
        values,
        errors: fieldErrors(parsed.error),
      });
      return;
    }
    const { workspace } = await createWorkspace(db, locals(res).user!, parsed.data.name);
    res.redirect(workspaceBase(workspace));
  });

  return routes;
}
