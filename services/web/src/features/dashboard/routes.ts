import { can, countFeedbackByStatus, errorsAtAGlance } from '@ferry/workspace';
import type { WebDeps } from '../../deps.js';
import { renderPage, seat } from '../../shared/request-context.js';
import { dashboardPage } from './views.js';
import { routeTable, type RouteTable } from '@ferry/http';
import { anySeat } from '../../shared/access.js';

export function dashboardRoutes({ db, cards: plugins }: WebDeps): RouteTable {
  const routes = routeTable();
  routes.get('/', anySeat, async (req, res) => {
    const { workspace, member } = seat(res);
    const [rooms, feedback, errors, cards] = await Promise.all([
      // Channels this seat has joined. (No domain function counts them yet: listRooms would
      // build the whole rooms list for one number.)
      db
        .selectFrom('room_members')
        .innerJoin('rooms', 'rooms.id', 'room_members.room_id')
        .select((eb) => eb.fn.countAll<string>().as('n'))
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
    ]);
    const data = { workspace, rooms: Number(rooms.n), newFeedback: feedback?.new, errors, cards };
    renderPage(req, res, (ctx) => dashboardPage(ctx, data));
  });
  return routes;
}
