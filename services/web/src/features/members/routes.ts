import type { Request, Response } from 'express';
import { AppError, fieldErrors } from '@ferry/core';
import {
  addMember,
  addMemberSchema,
  can,
  changeRole,
  changeRoleSchema,
  createInvite,
  createInviteSchema,
  listLiveInvites,
  findListedMember,
  listMembers,
  removalRefusal,
  removeMember,
  revokeInvite,
} from '@ferry/workspace';
import type { WebDeps } from '../../deps.js';
import { flash, renderPage, seat } from '../../shared/request-context.js';
import { keptText, postedText, redirectWithForm, takeForm } from '../../shared/kept-form.js';
import { pageParam } from '../../shared/pager.js';
import { workspaceBase } from '../../shared/layout.js';
import { membersPage, removeMemberConfirmPage } from './views.js';
import { routeTable, type RouteTable } from '@ferry/http';
import { anySeat, capability, self } from '../../shared/access.js';

/**
 * A refusal the list page can explain next to its remedy (the last owner leaving, a role the actor
 * may not give, a bad choice): back to the list (303) with the message above it, so a reload never
 * re-posts. Unknown ids stay a plain 404.
 */
function explainable(error: unknown): error is AppError {
  return error instanceof AppError && [403, 409, 422, 429].includes(error.status);
}

export function memberRoutes({ db, box, config }: WebDeps): RouteTable {
  const routes = routeTable();

  const ADD_FORM = 'members.add';

  async function page(req: Request, res: Response): Promise<void> {
    const { workspace, member } = seat(res);
    const kept = takeForm(req, ADD_FORM);
    const values = { email: keptText(kept, 'email'), role: keptText(kept, 'role') };
    const errors = kept?.errors ?? {};
    const canManage = can(member.role, 'members.manage');
    const query = req.query as Record<string, unknown>;
    const [members, invites] = await Promise.all([
      listMembers(db, workspace.id, { page: pageParam(query.page) }),
      canManage
        ? listLiveInvites(db, box, workspace.id, { page: pageParam(query.invites_page) })
        : undefined,
    ]);
    const data = {
      workspace,
      members,
      selfId: member.id,
      selfRole: member.role,
      canManage,
      invites,
      publicUrl: config.PUBLIC_URL,
      values,
      errors,
    };
    await renderPage(req, res, (ctx) => membersPage(ctx, data));
  }

  const listPath = (res: Response): string => `${workspaceBase(seat(res).workspace)}/members`;

  /** Back to the list with what happened; a refusal the domain explains is shown, not a 4xx page. */
  async function act(
    req: Request,
    res: Response,
    action: () => Promise<string>,
    anchor = '',
  ): Promise<void> {
    try {
      flash(req, 'ok', await action());
    } catch (error) {
      if (!explainable(error)) throw error;
      return refused(req, res, error); // at the top, where the flash is
    }
    res.redirect(`${listPath(res)}${anchor}`);
  }

  /** Back to the list, which says why the action was refused. */
  function refused(req: Request, res: Response, error: AppError): void {
    flash(req, 'error', error.message);
    res.redirect(303, listPath(res));
  }

  routes.get('/', anySeat, async (req, res) => page(req, res));

  routes.post('/', capability('members.manage'), async (req, res) => {
    const body: unknown = req.body ?? {};
    const values = { email: postedText(body, 'email'), role: postedText(body, 'role') };
    const back = (errors: Record<string, string>) =>
      redirectWithForm(req, res, listPath(res), ADD_FORM, { values, errors });
    const parsed = addMemberSchema.safeParse(body);
    if (!parsed.success) return back(fieldErrors(parsed.error));
    const { workspace } = seat(res);
    try {
      await addMember(db, workspace.id, parsed.data.email, parsed.data.role);
    } catch (error) {
      if (error instanceof AppError && error.options.fields) return back(error.options.fields);
      throw error;
    }
    flash(req, 'ok', `${parsed.data.email} was added as ${parsed.data.role}.`);
    res.redirect(`${workspaceBase(workspace)}/members`);
  });

  routes.post('/invites', capability('members.manage'), async (req, res) => {
    const { workspace, member } = seat(res);
    await act(
      req,
      res,
      async () => {
        const parsed = createInviteSchema.safeParse(req.body ?? {});
        if (!parsed.success) {
          throw new AppError('validation_failed', 'Pick a role and when the link expires.');
        }
        await createInvite(db, box, {
          workspaceId: workspace.id,
          role: parsed.data.role,
          expiresInDays: parsed.data.expires_in_days,
          createdBy: member.id,
        });
        return `Invite link created: anyone with it joins as ${parsed.data.role}. Copy it below.`;
      },
      '#invites',
    );
  });

  routes.post('/invites/:inviteId/revoke', capability('members.manage'), async (req, res) => {
    const { workspace } = seat(res);
    await act(
      req,
      res,
      async () => {
        await revokeInvite(db, workspace.id, String(req.params.inviteId));
        return 'Invite link revoked.';
      },
      '#invites',
    );
  });

  routes.post(
    '/:memberId/role',
    self('changeRole: ranks, never above your own'),
    async (req, res) => {
      const { workspace, member } = seat(res);
      await act(req, res, async () => {
        const parsed = changeRoleSchema.safeParse(req.body ?? {});
        if (!parsed.success) throw new AppError('validation_failed', 'Pick a role.');
        const { before, after } = await changeRole(
          db,
          workspace.id,
          String(req.params.memberId),
          parsed.data.role,
          member,
        );
        return before === after
          ? `The role stays ${after}.`
          : `Role changed from ${before} to ${after}.`;
      });
    },
  );

  // Removing (or leaving) asks first: the GET is the question, the POST (its button) acts.
  routes.get('/:memberId/remove', anySeat, async (req, res) => {
    const { workspace, member } = seat(res);
    const { memberId } = req.params;
    const self = memberId === member.id;
    const target = await findListedMember(db, workspace.id, memberId);
    if (!target) throw new AppError('not_found', 'No such member.');
    const refusal = removalRefusal(member, target);
    if (refusal) throw new AppError('forbidden', refusal);
    await renderPage(req, res, (ctx) =>
      removeMemberConfirmPage(ctx, { workspace, member: target, self }),
    );
  });

  routes.post('/:memberId/remove', self('removeMember: yourself, or by rank'), async (req, res) => {
    const { workspace, member } = seat(res);
    const { memberId } = req.params;
    const self = memberId === member.id;
    try {
      await removeMember(db, workspace.id, memberId, member);
    } catch (error) {
      // The sole owner leaving, an admin removing an owner: say why on the list, where the
      // remedy (make someone else owner) is.
      if (!explainable(error)) throw error;
      return refused(req, res, error);
    }
    if (self) {
      flash(req, 'ok', `You left ${workspace.name}.`);
      res.redirect('/workspaces');
      return;
    }
    flash(req, 'ok', 'Member removed.');
    res.redirect(`${workspaceBase(workspace)}/members`);
  });

  return routes;
}
