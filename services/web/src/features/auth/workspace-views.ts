import type { Role, Workspace } from '@ferry/db';
import { WORKSPACE_NAME_MAX, type ListPage } from '@ferry/workspace';
import { html, type SafeHtml } from '../../shared/html.js';
import { listFooter } from '../../shared/pager.js';
import {
  csrfField,
  emptyState,
  field,
  layout,
  workspaceBase,
  type PageContext,
} from '../../shared/layout.js';

/** The signed-in user's workspaces and the form that creates one. */

export function workspacesPage(
  ctx: PageContext,
  data: { workspaces: ListPage<Pick<Workspace, 'id' | 'slug' | 'name'> & { role: Role }> },
): SafeHtml {
  const workspaces = data.workspaces.items;
  return layout(ctx, {
    title: 'Your workspaces',
    body: html`<div class="page-head">
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
                      <td class="ws-cell">
                        <a class="one-line" href="${workspaceBase(w)}" title="${w.name}"
                          >${w.name}</a
                        >
                      </td>
                      <td><span class="badge">${w.role}</span></td>
                    </tr>`,
                )}
              </tbody>
            </table>`
          : data.workspaces.total
            ? ''
            : emptyState(
                'No workspaces yet',
                html`<a href="/workspaces/new">Create your first workspace</a> or ask a colleague to
                  add you.`,
              )
      }
      ${listFooter(data.workspaces, { path: '/workspaces' })}`,
  });
}

export function newWorkspacePage(
  ctx: PageContext,
  data: { values: { name?: string | undefined }; errors?: Record<string, string> },
): SafeHtml {
  const { values, errors = {} } = data;
  return layout(ctx, {
    title: 'New workspace',
    body: html`<div class="card">
      <h1>Create a workspace</h1>
      <p class="muted">A workspace holds your team's rooms, feedback and errors.</p>
      <form method="post" action="/workspaces" novalidate>
        ${csrfField(ctx)}
        ${field({
          label: 'Workspace name',
          name: 'name',
          value: values.name,
          error: errors.name,
          required: true,
          // No maxlength: the browser would cut a pasted name without a word; the server refuses
          // it instead, saying so, with the name kept in the field to shorten.
          hint: `Up to ${WORKSPACE_NAME_MAX} characters.`,
        })}
        <button type="submit">Create workspace</button>
      </form>
    </div>`,
  });
}
