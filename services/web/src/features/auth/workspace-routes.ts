import type { WebDeps } from '../../deps.js';
import { fieldErrors } from '@ferry/core';
import { createWorkspace, createWorkspaceSchema, listWorkspacesForUser } from '@ferry/workspace';
import { locals, renderPage } from '../../shared/request-context.js';
import { workspaceBase } from '../../shared/layout.js';
import { newWorkspacePage, workspacesPage } from './workspace-views.js';
import { routeTable, type RouteTable } from '@ferry/http';
import { signedIn } from '../../shared/access.js';

export function workspaceRoutes({ db }: WebDeps): RouteTable {
  const routes = routeTable();
  routes.get('/workspaces', signedIn, async (req, res) => {
    const user = locals(res).user!;
    const workspaces = await listWorkspacesForUser(db, user.id);
    renderPage(req, res, (ctx) => workspacesPage(ctx, { workspaces }));
  });

  routes.get('/workspaces/new', signedIn, (req, res) => {
    renderPage(req, res, (ctx) => newWorkspacePage(ctx, { values: {} }));
  });

  routes.post('/workspaces', signedIn, async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const parsed = createWorkspaceSchema.safeParse(body);
    if (!parsed.success) {
      const values = { name: typeof body.name === 'string' ? body.name : '' };
      const errors = fieldErrors(parsed.error);
      renderPage(req, res, (ctx) => newWorkspacePage(ctx, { values, errors }), 422);
      return;
    }
    const { workspace } = await createWorkspace(db, locals(res).user!, parsed.data.name);
    res.redirect(workspaceBase(workspace));
  });

  return routes;
}
