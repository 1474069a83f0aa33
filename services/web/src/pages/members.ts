import { Router, type Request, type Response } from 'express';
import { AppError } from '@ferry/core';
import { fieldErrors } from '@ferry/http';
import { can, addMember, addMemberSchema, listMembers, removeMember } from '@ferry/workspace';
import type { WebDeps } from '../deps.js';
import { flash, renderPage, requireCapability, seat } from '../request-context.js';
import { workspaceBase } from '../views/layout.js';
import { membersPage, removeMemberConfirmPage } from '../views/members.js';

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
    const members = await listMembers(db, workspace.id);
    const data = {
      workspace,
      members,
      selfId: member.id,
      canManage: can(member.role, 'members.manage'),
      values,
      errors,
    };
    renderPage(req, res, (ctx) => membersPage(ctx, data), status);
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

  // Removing (or leaving) asks first: the GET is the question, the POST (its button) acts.
  router.get('/:memberId/remove', async (req, res) => {
    const { workspace, member } = seat(res);
    const { memberId } = req.params;
    const self = memberId === member.id;
    if (!self && !can(member.role, 'members.manage')) {
      throw new AppError('forbidden', 'Only admins can remove other members.');
    }
    const target = (await listMembers(db, workspace.id)).find((m) => m.id === memberId);
    if (!target) throw new AppError('not_found', 'No such member.');
    renderPage(req, res, (ctx) =>
      removeMemberConfirmPage(ctx, { workspace, member: target, self }),
    );
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
