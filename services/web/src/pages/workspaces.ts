import { Router, type Request, type Response } from 'express';
import { fieldErrors } from '@ferry/http';
import type { WebDeps } from '../deps.js';
import {
  createWorkspace,
  createWorkspaceSchema,
  listWorkspacesForUser,
} from '../domain/workspaces.js';
import { locals, renderPage, requireUser } from '../request-context.js';
import { html } from '../views/html.js';
import { csrfField, emptyState, field, workspaceBase } from '../views/layout.js';

function newWorkspacePage(
  req: Request,
  res: Response,
  values: { name?: string },
  errors: Record<string, string> = {},
  status = 200,
): void {
  renderPage(
    req,
    res,
    {
      title: 'New workspace',
      body: (ctx) =>
        html`<div class="card">
          <h1>Create a workspace</h1>
          <p class="muted">A workspace holds your team's rooms, feedback and errors.</p>
          <form method="post" action="/workspaces" novalidate>
            ${csrfField(ctx)}
            ${field({ label: 'Workspace name', name: 'name', value: values.name, error: errors.name, required: true, maxlength: 80 })}
            <button type="submit">Create workspace</button>
          </form>
        </div>`,
    },
    status,
  );
}

export function workspaceRoutes({ db }: WebDeps): Router {
  const router = Router();
  router.use('/workspaces', requireUser);

  router.get('/workspaces', async (req, res) => {
    const user = locals(res).user!;
    const workspaces = await listWorkspacesForUser(db, user.id);
    renderPage(req, res, {
      title: 'Your workspaces',
      body: () =>
        html`<div class="page-head">
            <h1>Your workspaces</h1>
            <a class="button" href="/workspaces/new">New workspace</a>
          </div>
          ${
            workspaces.length
              ? html`<table>
                  <thead>
                    <tr>
                      <th>Workspace</th>
                      <th>Your role</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${workspaces.map(
                      (w) =>
                        html`<tr>
                          <td><a href="${workspaceBase(w)}">${w.name}</a></td>
                          <td><span class="badge">${w.role}</span></td>
                        </tr>`,
                    )}
                  </tbody>
                </table>`
              : emptyState(
                  'No workspaces yet',
                  html`<a href="/workspaces/new">Create your first workspace</a> or ask a colleague
                    to add you.`,
                )
          }`,
    });
  });

  router.get('/workspaces/new', (req, res) => {
    newWorkspacePage(req, res, {});
  });

  router.post('/workspaces', async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const parsed = createWorkspaceSchema.safeParse(body);
    if (!parsed.success) {
      newWorkspacePage(
        req,
        res,
        { name: typeof body.name === 'string' ? body.name : '' },
        fieldErrors(parsed.error),
        422,
      );
      return;
    }
    const { workspace } = await createWorkspace(db, locals(res).user!, parsed.data.name);
    res.redirect(workspaceBase(workspace));
  });

  return router;
}
