import { acceptInvite, findMembership, invitePath, openInvite } from '@ferry/workspace';
import type { WebDeps } from '../../deps.js';
import { flash, locals, renderPage } from '../../shared/request-context.js';
import { workspaceBase } from '../../shared/layout.js';
import { invitePage } from '../members/views.js';
import { access, routeTable, type RouteTable } from '@ferry/http';

/**
 * `/invite/<token>`: an invite link. Signed in, it offers to join (a POST, so a link preview or a
 * prefetch never joins anyone), or the way in to someone already seated there; signed out, it
 * sends the person to sign up or sign in and back.
 * A link that expired, was revoked or never existed is one 404 for all.
 */
/** The link is the credential; joining also needs a signed-in user (else: sign in and back). */
const INVITE_LINK = access.keyCheckedBy(
  'the invite token in the path',
  'openInvite and acceptInvite, which find the live invite it names (else one 404)',
);
const INVITE_SECRET = { params: ['token'] };

export function inviteRoutes({ db }: WebDeps): RouteTable {
  const routes = routeTable();

  routes.get('/:token', { access: INVITE_LINK, secrets: INVITE_SECRET }, async (req, res) => {
    const token = req.params.token;
    const { invite, workspace } = await openInvite(db, token);
    const user = locals(res).user;
    const seat = user ? await findMembership(db, user.id, workspace.id) : undefined;
    await renderPage(req, res, (ctx) =>
      invitePage(ctx, {
        workspace,
        role: invite.role,
        path: invitePath(token),
        signedIn: !!user,
        memberAs: seat?.member.role,
      }),
    );
  });

  routes.post('/:token', { access: INVITE_LINK, secrets: INVITE_SECRET }, async (req, res) => {
    const token = req.params.token;
    if (!locals(res).user) {
      res.redirect(`/login?next=${encodeURIComponent(invitePath(token))}`);
      return;
    }
    const joined = await acceptInvite(db, token, locals(res).user!.id);
    flash(
      req,
      'ok',
      joined.alreadyMember
        ? `You are already a member of ${joined.workspace.name}.`
        : `Welcome to ${joined.workspace.name}: you joined as ${joined.invite.role}.`,
    );
    res.redirect(workspaceBase(joined.workspace));
  });

  return routes;
}
