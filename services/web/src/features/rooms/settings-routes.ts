import type { Request, Response } from 'express';
import { AppError } from '@ferry/core';
import type { Db, Workspace } from '@ferry/db';
import { findRoomSeat, type RoomSeat } from '@ferry/workspace';
import { seat } from '../../shared/request-context.js';

export const NO_SUCH_ROOM = 'No such room, or it is not shared with you.';

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

/** An item a room's settings pages manage (an incoming key, an outgoing hook). */
export interface SettingsItemKind<T extends { id: string }> {
  /** The path parameter naming it (`keyId`). */
  param: string;
  /** Looks it up within one room. */
  find: (db: Db, roomId: string, id: string) => Promise<T | undefined>;
  /** Its page. */
  path: (workspace: Pick<Workspace, 'id' | 'slug'>, roomId: string, id: string) => string;
  /** The 404 message. */
  missing: string;
}

/**
 * The settings room and the item its path names, looked up within that room (another room's item
 * is 404 like an unknown id), with the address of the item's page.
 */
export async function settingsRoomItem<T extends { id: string }>(
  db: Db,
  req: Request,
  res: Response,
  kind: SettingsItemKind<T>,
): Promise<{ room: RoomSeat; item: T; here: string }> {
  const room = await settingsRoom(db, req, res);
  const id = (req.params as Record<string, string | undefined>)[kind.param] ?? '';
  const item = await kind.find(db, room.room.id, id);
  if (!item) throw new AppError('not_found', kind.missing);
  return { room, item, here: kind.path(seat(res).workspace, room.room.id, item.id) };
}
