import type { Request, Response } from 'express';
import { AppError, isId, fieldErrors } from '@ferry/core';
import {
  addRoomPerson,
  addRoomPersonSchema,
  canAddPeople,
  findRoomSeat,
  listAddablePeople,
  listRoomPeople,
  roomLabel,
  type RoomSeat,
} from '@ferry/workspace';
import type { WebDeps } from '../../deps.js';
import { flash, renderPage, seat } from '../../shared/request-context.js';
import { redirectWithForm, takeForm } from '../../shared/kept-form.js';
import { roomPeoplePage } from './people-views.js';
import { roomPath } from './views.js';
import { NO_SUCH_ROOM } from './settings-routes.js';
import { routeTable, type RouteTable } from '@ferry/http';
import { anySeat, capability } from '../../shared/access.js';

/**
 * `/rooms/<id>/people`: who is in a room, and adding someone from the workspace to it (how a guest
 * gets a room, or a colleague is pulled into a conversation). Rooms the viewer cannot open are 404.
 */
export function roomPeopleRoutes({ db }: WebDeps): RouteTable {
  const routes = routeTable();

  async function openRoom(req: Request, res: Response): Promise<RoomSeat> {
    const { workspace, user } = seat(res);
    const { roomId } = req.params as { roomId: string };
    const found = isId(roomId, 'room')
      ? await findRoomSeat(db, { userId: user.id, roomId, workspaceId: workspace.id })
      : undefined;
    if (!found || found.access !== 'open') throw new AppError('not_found', NO_SUCH_ROOM);
    return found;
  }

  const ADD_FORM = 'rooms.people.add';

  async function page(req: Request, res: Response) {
    const { workspace } = seat(res);
    const room = await openRoom(req, res);
    const error = takeForm(req, `${ADD_FORM}:${room.room.id}`)?.errors.member_id;
    const [people, addable] = await Promise.all([
      listRoomPeople(db, room.room.id),
      canAddPeople(room) ? listAddablePeople(db, room.room) : Promise.resolve(undefined),
    ]);
    await renderPage(req, res, (ctx) =>
      roomPeoplePage(ctx, { workspace, room: room.room, people, addable, error }),
    );
  }

  routes.get('/', anySeat, async (req, res) => page(req, res));

  routes.post('/', capability('rooms.manage_people'), async (req, res) => {
    const { workspace } = seat(res);
    const room = await openRoom(req, res);
    const here = `${roomPath(workspace, room.room.id)}/people`;
    const back = (problem = 'Pick someone to add.') =>
      redirectWithForm(req, res, here, `${ADD_FORM}:${room.room.id}`, {
        values: {},
        errors: { member_id: problem },
      });
    const parsed = addRoomPersonSchema.safeParse(req.body ?? {});
    if (!parsed.success) return back(fieldErrors(parsed.error).member_id);
    let name: string;
    try {
      name = await addRoomPerson(db, room, parsed.data.member_id);
    } catch (error) {
      if (error instanceof AppError && error.options.fields)
        return back(error.options.fields.member_id);
      throw error;
    }
    flash(req, 'ok', `${name} was added to ${roomLabel(room.room)}.`);
    res.redirect(`${roomPath(workspace, room.room.id)}/people`);
  });

  return routes;
}
