import type { Request, Response } from 'express';
import { AppError, isId, fieldErrors } from '@ferry/core';
import {
  can,
  listMessages,
  messagePayloads,
  MESSAGE_BODY_MAX,
  postMessage,
  postMessageSchema,
  workspaceMentionHandles,
  conversationParticipants,
  roomMentionSuggestions,
  countRoomMembers,
  createChannel,
  createRoomSchema,
  feedbackForRoom,
  findRoomSeat,
  joinRoom,
  leaveRoom,
  markRoomRead,
  messageBefore,
  listRooms,
  roomLabel,
  type RoomSeat,
} from '@ferry/workspace';
import type { WebDeps } from '../../deps.js';
import type { Realtime } from '../../shared/realtime.js';
import { flash, locals, renderPage, seat } from '../../shared/request-context.js';
import { pageParam } from '../../shared/pager.js';
import { keptText, postedText, redirectWithForm, takeForm } from '../../shared/kept-form.js';
import { messageItem } from './message-views.js';
import { NO_SUCH_ROOM } from './settings-routes.js';
import {
  joinOfferPage,
  leaveRoomConfirmPage,
  roomPage,
  roomPath,
  roomsListPage,
  roomsPath,
} from './views.js';
import { routeTable, type RouteTable } from '@ferry/http';
import { anySeat, capability, self } from '../../shared/access.js';
import { webhookKeyLinks } from '../webhooks/badges.js';

/**
 * Rooms: the list (join, leave, create a channel) and the room page (messages, composer). Every
 * handler re-reads the viewer's room seat from the database (findRoomSeat), so a member who left
 * or was removed is refused on their very next request. Rooms the viewer may not even know about
 * (other workspaces, others' DMs, channels for guests) answer 404 like unknown ids.
 */

function wantsJson(req: Request): boolean {
  return req.accepts(['html', 'json']) === 'json';
}

/** The viewer's seat for a room of this workspace; 404 for anything they may not know about. */
async function visibleRoom(deps: WebDeps, req: Request, res: Response): Promise<RoomSeat> {
  const { workspace, user } = seat(res);
  const { roomId } = req.params as { roomId: string };
  const found = isId(roomId, 'room')
    ? await findRoomSeat(deps.db, { userId: user.id, roomId, workspaceId: workspace.id })
    : undefined;
  if (!found || found.access === 'hidden') throw new AppError('not_found', NO_SUCH_ROOM);
  return found;
}

export function roomRoutes(deps: WebDeps, realtime: Realtime): RouteTable {
  const { db } = deps;
  const routes = routeTable();

  const CREATE_FORM = 'rooms.create';
  const COMPOSER = 'rooms.message';

  async function listPage(req: Request, res: Response): Promise<void> {
    const { workspace, member } = seat(res);
    const kept = takeForm(req, CREATE_FORM);
    const values = { name: keptText(kept, 'name') };
    const errors = kept?.errors ?? {};
    const rooms = await listRooms(db, member, { page: pageParam(req.query.page) });
    await renderPage(req, res, (ctx) =>
      roomsListPage(ctx, {
        workspace,
        rooms,
        canBrowse: can(member.role, 'rooms.browse'),
        canCreate: can(member.role, 'rooms.create'),
        values,
        errors,
      }),
    );
  }

  /**
   * The latest page of a room was shown: the room is read up to its newest message, and the
   * sidebar (read before this handler) shows it so.
   */
  async function readRoom(res: Response, roomId: string, newestId: string): Promise<void> {
    const { member } = seat(res);
    const mentionsRead = await markRoomRead(db, {
      memberId: member.id,
      roomId,
      messageId: newestId,
    });
    const unread = locals(res).unread;
    if (!unread) return;
    locals(res).unread = {
      ...unread,
      rooms: unread.rooms.map((r) => (r.id === roomId ? { ...r, unread: 0 } : r)),
      mentions: Math.max(0, unread.mentions - mentionsRead),
    };
  }

  /** The room page: the latest messages, or those before `?before=<message id>`. */
  async function showRoom(req: Request, res: Response, room: RoomSeat): Promise<void> {
    const { workspace, member } = seat(res);
    // A refused post without JavaScript comes back here (303) with its draft and error.
    const kept = takeForm(req, `${COMPOSER}:${room.room.id}`);
    const composer = kept ? { draft: keptText(kept, 'body'), error: kept.errors.body } : {};
    const query = req.query as Record<string, unknown>;
    const before = query.before;
    if (before !== undefined && !isId(before, 'message')) {
      throw new AppError('bad_request', 'That link to earlier messages is not valid.');
    }
    const conversation = room.room.kind === 'conversation';
    const [{ messages, more }, handles, memberCount, feedbackId, participants, mentions] =
      await Promise.all([
        listMessages(db, room.room.id, { before }),
        workspaceMentionHandles(db, workspace.id),
        countRoomMembers(db, room.room.id),
        conversation && can(member.role, 'feedback.read')
          ? feedbackForRoom(db, room.room.id)
          : Promise.resolve(undefined),
        // Nobody joins a ticket's conversation, so its header names who takes part instead.
        conversation ? conversationParticipants(db, room.room.id) : Promise.resolve(undefined),
        roomMentionSuggestions(db, room.room, member),
      ]);
    const newest = messages.at(-1);
    if (before === undefined && newest) await readRoom(res, room.room.id, newest.id);
    const canManageWebhooks = can(member.role, 'webhooks.manage');
    // Admins' "View payload": one read for the page's webhook messages, nobody else's.
    const payloads = canManageWebhooks
      ? await messagePayloads(
          db,
          messages.filter((m) => m.author_kind === 'webhook').map((m) => m.id),
        )
      : undefined;
    // Admins get the webhook badge as a link to the key's page, under the key's own room.
    const keyLinks = await webhookKeyLinks(db, {
      workspace,
      userId: seat(res).user.id,
      canManageWebhooks,
      messages,
    });
    await renderPage(req, res, (ctx) =>
      roomPage(ctx, {
        workspace,
        room: room.room,
        joined: room.joined,
        messages,
        more,
        latest: before === undefined,
        handles,
        memberCount,
        participants,
        feedbackId,
        canManageWebhooks,
        webhookKeyLinks: keyLinks,
        payloads,
        composer,
        mentions,
      }),
    );
  }

  routes.get('/', anySeat, async (req, res) => listPage(req, res));

  routes.post('/', capability('rooms.create'), async (req, res) => {
    const body: unknown = req.body ?? {};
    const { workspace, member } = seat(res);
    const back = (errors: Record<string, string>) =>
      redirectWithForm(req, res, roomsPath(workspace), CREATE_FORM, {
        values: { name: postedText(body, 'name') },
        errors,
      });
    const parsed = createRoomSchema.safeParse(body);
    if (!parsed.success) return back(fieldErrors(parsed.error));
    let room;
    try {
      room = await createChannel(db, member, parsed.data.name);
    } catch (error) {
      if (error instanceof AppError && error.options.fields) return back(error.options.fields);
      throw error;
    }
    res.redirect(roomPath(workspace, room.id));
  });

  routes.get('/:roomId', anySeat, async (req, res) => {
    const room = await visibleRoom(deps, req, res);
    if (room.access === 'join') {
      const { workspace } = seat(res);
      return renderPage(req, res, (ctx) => joinOfferPage(ctx, { workspace, room: room.room }), 403);
    }
    return showRoom(req, res, room);
  });

  routes.post(
    '/:roomId/join',
    self('joinRoom: a channel this seat may browse'),
    async (req, res) => {
      const { workspace } = seat(res);
      const room = await visibleRoom(deps, req, res);
      if (!room.joined) {
        await joinRoom(db, room.room.id, room.member.id);
        flash(req, 'ok', `You joined ${roomLabel(room.room)}.`);
      }
      res.redirect(roomPath(workspace, room.room.id));
    },
  );

  // Leaving asks first: the GET is the question, the POST (its button) leaves.
  routes.get('/:roomId/leave', anySeat, async (req, res) => {
    const { workspace } = seat(res);
    const room = await visibleRoom(deps, req, res);
    if (!room.joined) {
      res.redirect(roomPath(workspace, room.room.id));
      return;
    }
    const fromList = (req.query as Record<string, unknown>).from === 'rooms';
    const cancelHref = fromList ? roomsPath(workspace) : roomPath(workspace, room.room.id);
    await renderPage(req, res, (ctx) =>
      leaveRoomConfirmPage(ctx, { workspace, room: room.room, cancelHref }),
    );
  });

  routes.post('/:roomId/leave', self('leaveRoom: only this seat leaves'), async (req, res) => {
    const { workspace, user } = seat(res);
    const room = await visibleRoom(deps, req, res);
    if (await leaveRoom(db, room.room.id, room.member.id)) {
      // The database already refuses this seat; this stops live messages to open tabs now.
      realtime.leaveRoom(user.id, room.room.id);
      flash(req, 'ok', `You left ${roomLabel(room.room)}.`);
    }
    res.redirect(roomsPath(workspace));
  });

  routes.post('/:roomId/messages', self('postMessage: rooms this seat is in'), async (req, res) => {
    const { workspace, user } = seat(res);
    const room = await visibleRoom(deps, req, res);
    if (room.access !== 'open') {
      throw new AppError('forbidden', `Join ${roomLabel(room.room)} to post in it.`);
    }
    const json = wantsJson(req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const parsed = postMessageSchema.safeParse(body);
    if (!parsed.success) {
      const problem = fieldErrors(parsed.error).body ?? 'Write a message.';
      if (json) {
        throw new AppError('validation_failed', `The message is not valid: ${problem}`, {
          fields: { body: problem },
        });
      }
      const draft = postedText(body, 'body').slice(0, MESSAGE_BODY_MAX * 2);
      return redirectWithForm(
        req,
        res,
        roomPath(workspace, room.room.id),
        `${COMPOSER}:${room.room.id}`,
        {
          values: { body: draft },
          errors: { body: problem },
        },
      );
    }
    const message = await postMessage(db, {
      roomId: room.room.id,
      workspaceId: workspace.id,
      authorKind: 'member',
      authorMemberId: room.member.id,
      displayName: user.name,
      body: parsed.data.body,
    });
    // Others see it live once the outbox relay announces it (packages/workspace messages/live.ts); the
    // author's page inserts it from this answer.
    if (json) {
      const item = messageItem(message, await workspaceMentionHandles(db, workspace.id), {
        previous: await messageBefore(db, room.room.id, message.id),
      }).value;
      res.status(201).json({ message: { id: message.id, html: item } });
      return;
    }
    res.redirect(roomPath(workspace, room.room.id));
  });

  return routes;
}
