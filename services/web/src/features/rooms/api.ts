import { AppError, isId } from '@ferry/core';
import { parseInput, routeTable, type RouteTable } from '@ferry/http';
import {
  apiAuth,
  apiMessageJson,
  findReadableRoom,
  HISTORY_PAGE_DEFAULT,
  HISTORY_PAGE_MAX,
  readableRooms,
  roomHistory,
} from '@ferry/workspace';
import { z } from 'zod';
import { tokenScope } from '../../shared/access.js';
import type { WebDeps } from '../../deps.js';

const historyQuerySchema = z.object({
  limit: z.preprocess(
    (value) => (value === '' ? undefined : value),
    z.coerce
      .number('Must be a number from 1 to 200.')
      .int('Must be a whole number from 1 to 200.')
      .min(1, 'Must be a number from 1 to 200.')
      .max(HISTORY_PAGE_MAX, 'Must be a number from 1 to 200.')
      .default(HISTORY_PAGE_DEFAULT),
  ),
  before: z.preprocess(
    (value) => (value === '' ? undefined : value),
    z
      .string('Must be one message id.')
      .refine((value) => isId(value, 'message'), 'Must be a message id (msg_…).')
      .optional(),
  ),
});

/**
 * /api/v1/rooms (`tenant:read`): the workspace's rooms and each room's messages, newest first,
 * paged by `before` like Slack's conversations.history. Direct messages are never listed or read;
 * a room of another workspace answers 404 like one that never existed.
 */
export function roomsApi(deps: WebDeps): RouteTable {
  const { db } = deps;
  const routes = routeTable();
  const read = tokenScope(deps, 'tenant:read');

  routes.get('/', read, async (_req, res) => {
    const { workspace } = apiAuth(res);
    res.json({ rooms: await readableRooms(db, workspace.id) });
  });

  routes.get('/:roomId/messages', read, async (req, res) => {
    const { workspace } = apiAuth(res);
    const query = parseInput(historyQuerySchema, req.query, 'query');
    const room = await findReadableRoom(db, workspace.id, String(req.params.roomId));
    if (!room) throw new AppError('not_found', 'No such room in this workspace.');
    const page = await roomHistory(db, room.id, query);
    res.json({ messages: page.messages.map(apiMessageJson), next_before: page.nextBefore });
  });

  return routes;
}
