import { Router, type Request, type Response } from 'express';
import { AppError } from '@ferry/core';
import { fieldErrors } from '@ferry/http';
import { can, ROLES } from '../capabilities.js';
import type { WebDeps } from '../deps.js';
import { addMember, addMemberSchema, listMembers, removeMember } from '../domain/workspaces.js';
import { flash, pageContext, requireCapability, seat, send } from '../request-context.js';
import { html } from '../views/html.js';
import { csrfField, field, layout, timeAgo, workspaceBase } from '../views/layout.js';

export function memberRoutes({ db }: WebDeps): Router {
  const router = Router({ mergeParams: true });

  async function page(
    req: Request,
    res: Response,
    values: { email?: string; role?: string } = {},
    errors: Record<string, string> = {},
    status = 200,
  ): Promise<void> {
    const { workspace, member } = seat(res);
    const base = workspaceBase(workspace);
    const members = await listMembers(db, workspace.id);
    const ctx = pageContext(req, res);
    const manage = can(member.role, 'members.manage');
    send(
      res,
      layout(ctx, {
        title: 'Members',
        section: 'members',
        body: html`<h1>Members</h1>
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Email</th>
                <th>Role</th>
                <th>Joined</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              ${members.map(
                (m) =>
                  html`<tr>
                    <td>
                      ${m.name}${m.id === member.id ? html` <span class="badge">you</span>` : ''}
                    </td>
                    <td>${m.email}</td>
                    <td><span class="badge">${m.role}</span></td>
                    <td>${timeAgo(m.joined_at)}</td>
                    <td>
                      ${
                        manage || m.id === member.id
                          ? html`<form
                              method="post"
                              action="${base}/members/${m.id}/remove"
                              class="inline"
                            >
                              ${csrfField(ctx)}<button class="danger small" type="submit">
                                ${m.id === member.id ? 'Leave' : 'Remove'}
                              </button>
                            </form>`
                          : ''
                      }
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>
          ${
            manage
              ? html`<section class="card" style="margin-top:1.5rem">
                  <h2>Add a member</h2>
                  <form method="post" action="${base}/members" novalidate>
                    ${csrfField(ctx)}
                    ${field({ label: 'Email', name: 'email', type: 'email', value: values.email, error: errors.email, required: true })}
                    <div class="field ${errors.role ? 'has-error' : ''}">
                      <label for="f-role">Role</label>
                      <select id="f-role" name="role">
                        ${ROLES.filter((r) => r !== 'owner').map((r) => html`<option value="${r}" ${r === (values.role ?? 'member') ? html`selected` : ''}>${r}</option>`)}
                      </select>
                      ${errors.role ? html`<p class="error">${errors.role}</p>` : ''}
                    </div>
                    <button type="submit">Add member</button>
                  </form>
                </section>`
              : ''
          }`,
      }),
      status,
    );
  }

  router.get('/', async (req, res) => page(req, res));

  router.post('/', requireCapability('members.manage'), async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const values = {
      email: typeof body.email === 'string' ? body.email : '',
      role: typeof body.role === 'string' ? body.role : '',
    };
    const parsed = addMemberSchema.safeParse(body);
    if (!parsed.success) return page(req, res, values, fieldErrors(parsed.error), 422);
    const { workspace } = seat(res);
    try {
      await addMember(db, workspace.id, parsed.data.email, parsed.data.role);
    } catch (error) {
      if (error instanceof AppError && error.options.fields)
        return page(req, res, values, error.options.fields, error.status);
      throw error;
    }
    flash(req, 'ok', `${parsed.data.email} was added as ${parsed.data.role}.`);
    res.redirect(`${workspaceBase(workspace)}/members`);
  });

  router.post('/:memberId/remove', async (req, res) => {
    const { workspace, member } = seat(res);
    const { memberId } = req.params;
    const self = memberId === member.id;
    if (!self && !can(member.role, 'members.manage')) {
      throw new AppError('forbidden', 'Only admins can remove other members.');
    }
    await removeMember(db, workspace.id, memberId, member);
    if (self) {
      flash(req, 'ok', `You left ${workspace.name}.`);
      res.redirect('/workspaces');
      return;
    }
    flash(req, 'ok', 'Member removed.');
    res.redirect(`${workspaceBase(workspace)}/members`);
  });

  return router;
}
