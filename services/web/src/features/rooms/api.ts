import { AppError, isId } from '@ferry/core';
import { inputOf, routeTable, type RouteTable } from '@ferry/http';
import {
  apiAuth,
  apiMessageJson,
  apiMessageJsonSchema,
  apiRoomJsonSchema,
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
      .default(HISTORY_PAGE_DEFAULT)
      .meta({ description: 'Messages per page.' }),
  ),
  before: z.preprocess(
    (value) => (value === '' ? undefined : value),
    z
      .string('Must be one message id.')
      .refine((value) => isId(value, 'message'), 'Must be a message id (msg_…).')
      .optional()
      .meta({ description: 'The previous page’s `next_before`: the messages older than it.' }),
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

  routes.get(
    '/',
    {
      access: read,
      doc: {
        summary: 'List rooms',
        description:
          'The workspace’s channels, agent rooms and ticket conversations, by kind then name. Direct messages are never listed.',
        tag: 'Rooms',
        security: 'bearer',
        responses: {
          200: {
            description: 'Every readable room.',
            schema: z.object({ rooms: z.array(apiRoomJsonSchema) }),
          },
        },
      },
    },
    async (_req, res) => {
      const { workspace } = apiAuth(res);
      res.json({ rooms: await readableRooms(db, workspace.id) });
    },
  );

  routes.get(
    '/:roomId/messages',
    {
      access: read,
      doc: {
        summary: 'Read a room’s messages',
        description:
          'One page of the room’s messages, newest first; pass `next_before` back as `before` for the next page (like Slack’s conversations.history). A direct message, or a room of another workspace, answers 404.',
        tag: 'Rooms',
        security: 'bearer',
        params: z.object({
          roomId: z.string().meta({ example: 'room_01m95vcs448p8d8nkpkmbpan9e' }),
        }),
        query: historyQuerySchema,
        responses: {
          200: {
            description: 'A page of messages.',
            schema: z.object({
              messages: z.array(apiMessageJsonSchema),
              next_before: z.string().nullable().meta({
                description: 'The cursor for older messages; null on the last page.',
              }),
            }),
          },
        },
      },
    },
    async (req, res) => {
      const { workspace } = apiAuth(res);
      const query = inputOf(res.locals, 'query', historyQuerySchema);
      const room = await findReadableRoom(db, workspace.id, String(req.params.roomId));
      if (!room) throw new AppError('not_found', 'No such room in this workspace.');
      const page = await roomHistory(db, room.id, query);
      res.json({ messages: page.messages.map(apiMessageJson), next_before: page.nextBefore });
    },
  );

  return routes;
}
