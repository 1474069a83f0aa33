import {
  can,
  canDismissOnboarding,
  countFeedbackByStatus,
  dismissOnboarding,
  errorsAtAGlance,
  onboardingProgress,
  showOnboarding,
  stepsShown,
} from '@ferry/workspace';
import type { WebDeps } from '../../deps.js';
import { flash, renderPage, seat } from '../../shared/request-context.js';
import { workspaceBase } from '../../shared/layout.js';
import { dashboardPage } from './views.js';
import { routeTable, type RouteTable } from '@ferry/http';
import { anySeat, capability } from '../../shared/access.js';

export function dashboardRoutes({ db, config, settings, cards: plugins }: WebDeps): RouteTable {
  const routes = routeTable();
  routes.get('/', anySeat, async (req, res) => {
    const { workspace, member } = seat(res);
    const [rooms, feedback, errors, cards, progress] = await Promise.all([
      // Channels this seat has joined, and the oldest of them (ids sort by time): where the
      // checklist sends a newcomer to say hello. (No domain function counts them yet: listRooms
      // would build the whole rooms list for one number.)
      db
        .selectFrom('room_members')
        .innerJoin('rooms', 'rooms.id', 'room_members.room_id')
        .select((eb) => [eb.fn.countAll<string>().as('n'), eb.fn.min('rooms.id').as('first')])
        .where('room_members.member_id', '=', member.id)
        .where('room_members.left_at', 'is', null)
        .where('rooms.kind', '=', 'channel')
        .executeTakeFirstOrThrow(),
      can(member.role, 'feedback.read')
        ? countFeedbackByStatus(db, workspace.id)
        : Promise.resolve(undefined),
      can(member.role, 'errors.read')
        ? errorsAtAGlance(db, workspace.id)
        : Promise.resolve(undefined),
      Promise.all(plugins.dashboard.map((card) => card({ db }, res))),
      onboardingProgress(db, workspace.id),
    ]);
    const firstRoom = rooms.first
      ? await db
          .selectFrom('rooms')
          .select(['id', 'name'])
          .where('id', '=', rooms.first)
          .executeTakeFirst()
      : undefined;
    const onboarding = showOnboarding(progress, member.role)
      ? {
          workspace,
          steps: stepsShown(progress.done, member.role),
          room: firstRoom,
          canDismiss: canDismissOnboarding(member.role),
          publicUrl: config.PUBLIC_URL,
          ingestionEnabled: settings.errorIngestionEnabled,
        }
      : undefined;
    const data = {
      workspace,
      rooms: Number(rooms.n),
      newFeedback: feedback?.new,
      errors,
      cards,
      onboarding,
    };
    await renderPage(req, res, (ctx) => dashboardPage(ctx, data));
  });

  // Hides the checklist for everyone in the workspace (onboarding_dismissals says why per
  // workspace); canDismissOnboarding is this capability.
  routes.post('/onboarding/dismiss', capability('settings.manage'), async (req, res) => {
    const { workspace, member } = seat(res);
    await dismissOnboarding(db, workspace.id, member.id);
    flash(req, 'ok', 'The checklist is hidden for everyone in the workspace.');
    res.redirect(303, workspaceBase(workspace));
  });
  return routes;
}
