import type { Request, Response } from 'express';
import { AppError } from '@ferry/core';
import type { Db } from '@ferry/db';
import { findRoomSeat, type RoomSeat } from '../domain/rooms.js';
import { seat } from '../request-context.js';

const NO_SUCH_ROOM = 'No such room, or it is not shared with you.';

/**
 * The room whose settings (webhooks) a page shows: one the viewer may see, never a DM. Hidden and
 * foreign rooms are 404 alike, so room ids reveal nothing.
 */
export async function settingsRoom(db: Db, req: Request, res: Response): Promise<RoomSeat> {
  const { workspace, user } = seat(res);
  const { roomId } = req.params as { roomId: string };
  const found = await findRoomSeat(db, { userId: user.id, roomId, workspaceId: workspace.id });
  if (!found || found.access === 'hidden' || found.room.kind === 'dm') {
    throw new AppError('not_found', NO_SUCH_ROOM);
  }
  return found;
}
