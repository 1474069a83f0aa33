import { Router, type Request, type Response } from 'express';
import { AppError, isId } from '@ferry/core';
import type { Workspace } from '@ferry/db';
import { fieldErrors } from '@ferry/http';
import { can } from '../capabilities.js';
import type { WebDeps } from '../deps.js';
import {
  listMessages,
  MESSAGE_BODY_MAX,
  postMessage,
  postMessageSchema,
  workspaceMentionHandles,
} from '../domain/messages.js';
import {
  countRoomMembers,
  createChannel,
  createRoomSchema,
  feedbackForRoom,
  findRoomSeat,
  joinRoom,
  leaveRoom,
  listRooms,
  ROOM_NAME_MAX,
  roomLabel,
  type RoomListItem,
  type RoomSeat,
} from '../domain/rooms.js';
import type { Realtime } from '../realtime.js';
import { flash, pageContext, requireCapability, seat, send } from '../request-context.js';
import { html, type SafeHtml } from '../views/html.js';
import { csrfField, emptyState, field, layout, timeAgo, workspaceBase } from '../views/layout.js';
import { messageItem } from '../views/messages.js';

/**
 * Rooms: the list (join, leave, create a channel) and the room page (messages, composer). Every
 * handler re-reads the viewer's room seat from the database (findRoomSeat), so a member who left
 * or was removed is refused on their very next request. Rooms the viewer may not even know about
 * (other workspaces, others' DMs, channels for guests) answer 404 like unknown ids.
 */

const roomsPath = (workspace: Pick<Workspace, 'id' | 'slug'>): string =>
  `${workspaceBase(workspace)}/rooms`;
const roomPath = (workspace: Pick<Workspace, 'id' | 'slug'>, roomId: string): string =>
  `${roomsPath(workspace)}/${roomId}`;

const NO_SUCH_ROOM = 'No such room, or it is not shared with you.';

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

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function roomRow(
  base: string,
  csrf: SafeHtml,
  room: RoomListItem,
  options: { canJoin: boolean },
): SafeHtml {
  const label = roomLabel(room);
  return html`<li class="room-row ${room.joined ? 'joined' : ''}">
    <div class="room-main">
      <a class="room-name" href="${base}/${room.id}">${label}</a>
      <span class="muted">
        ${plural(room.memberCount, 'member')} ·
        ${room.lastMessageAt ? html`active ${timeAgo(room.lastMessageAt)}` : 'no messages yet'}
      </span>
    </div>
    <div class="room-actions">
      ${
        room.joined
          ? html`<span class="badge ok">Joined</span>
              <form method="post" action="${base}/${room.id}/leave" class="inline">
                ${csrf}<button type="submit" class="secondary small">
                  Leave<span class="visually-hidden"> ${label}</span>
                </button>
              </form>`
          : options.canJoin
            ? html`<form method="post" action="${base}/${room.id}/join" class="inline">
                ${csrf}<button type="submit" class="small">
                  Join<span class="visually-hidden"> ${label}</span>
                </button>
              </form>`
            : ''
      }
    </div>
  </li>`;
}

export function roomRoutes(deps: WebDeps, realtime: Realtime): Router {
  const { db } = deps;
  const router = Router({ mergeParams: true });

  async function listPage(
    req: Request,
    res: Response,
    values: { name?: string } = {},
    errors: Record<string, string> = {},
    status = 200,
  ): Promise<void> {
    const { workspace, member } = seat(res);
    const base = roomsPath(workspace);
    const ctx = pageContext(req, res);
    const csrf = csrfField(ctx);
    const rooms = await listRooms(db, member);
    const browse = can(member.role, 'rooms.browse');
    const channels = rooms.filter((r) => r.kind === 'channel');
    const dms = rooms.filter((r) => r.kind === 'dm');
    const conversations = rooms.filter((r) => r.kind === 'conversation');
    const joinedCount = rooms.filter((r) => r.joined).length;
    const section = (title: string, items: RoomListItem[], id: string): SafeHtml =>
      items.length
        ? html`<section aria-labelledby="${id}">
            <h2 id="${id}">${title}</h2>
            <ul class="room-list">
              ${items.map((r) => roomRow(base, csrf, r, { canJoin: r.kind === 'channel' && browse }))}
            </ul>
          </section>`
        : html``;
    const createCard = can(member.role, 'rooms.create')
      ? html`<aside class="card create-room" aria-labelledby="create-room">
          <h2 id="create-room">Create a channel</h2>
          <form method="post" action="${base}" novalidate>
            ${csrf}
            ${field({
              label: 'Channel name',
              name: 'name',
              value: values.name,
              error: errors.name,
              required: true,
              maxlength: ROOM_NAME_MAX,
              hint: 'Lower case with dashes: “Support & Billing” becomes #support-billing.',
            })}
            <button type="submit">Create channel</button>
          </form>
        </aside>`
      : html``;
    const empty = browse
      ? emptyState(
          'No channels yet',
          can(member.role, 'rooms.create')
            ? 'Create the first one: a channel is a place for a topic or a team.'
            : 'Nobody has created a channel yet.',
        )
      : emptyState(
          'You are not in any rooms yet',
          `Rooms you are added to in ${workspace.name} will show up here.`,
        );
    send(
      res,
      layout(ctx, {
        title: 'Rooms',
        section: 'rooms',
        body: html`<div class="page-head">
            <h1>Rooms</h1>
            <span class="muted">You are in ${plural(joinedCount, 'room')}.</span>
          </div>
          <div class="rooms-layout ${can(member.role, 'rooms.create') ? '' : 'single'}">
            <div class="rooms-lists">
              ${
                rooms.length
                  ? html`${section(browse ? 'Channels' : 'Your channels', channels, 'channels')}
                    ${section('Direct messages', dms, 'dms')}
                    ${section('Conversations', conversations, 'conversations')}`
                  : empty
              }
            </div>
            ${createCard}
          </div>`,
      }),
      status,
    );
  }

  /**
   * The room page. The message list is named by the room title (aria-labelledby), not by a label
   * of its own: "Message" must name exactly one control, the composer's textbox.
   */
  async function roomPage(
    req: Request,
    res: Response,
    room: RoomSeat,
    composer: { draft?: string; error?: string | undefined } = {},
    status = 200,
  ): Promise<void> {
    const { workspace, member } = seat(res);
    const query = req.query as Record<string, unknown>;
    const before = query.before;
    if (before !== undefined && !isId(before, 'message')) {
      throw new AppError('bad_request', 'That link to earlier messages is not valid.');
    }
    const [{ messages, more }, handles, memberCount, feedbackId] = await Promise.all([
      listMessages(db, room.room.id, { before }),
      workspaceMentionHandles(db, workspace.id),
      countRoomMembers(db, room.room.id),
      room.room.kind === 'conversation' && can(member.role, 'feedback.read')
        ? feedbackForRoom(db, room.room.id)
        : Promise.resolve(undefined),
    ]);
    const ctx = pageContext(req, res);
    const csrf = csrfField(ctx);
    const here = roomPath(workspace, room.room.id);
    const label = roomLabel(room.room);
    const latest = before === undefined;
    const oldest = messages[0];
    // Admins get the webhook badge as a link to the key's page (views/messages.ts).
    const keyBase = can(member.role, 'webhooks.manage') ? `${here}/settings/webhooks` : undefined;
    const kindBadge =
      room.room.kind === 'channel' ? '' : html`<span class="badge">${room.room.kind}</span>`;
    send(
      res,
      layout(ctx, {
        title: label,
        section: 'rooms',
        scripts: ['/socket.io/socket.io.min.js', '/assets/room.js'],
        body: html`<div class="room" data-room-id="${room.room.id}" data-live="${String(latest)}">
          <header class="room-head">
            <div>
              <h1 id="room-title">${label} ${kindBadge}</h1>
              <p class="muted">
                ${plural(memberCount, 'member')}${
                  feedbackId
                    ? html` ·
                        <a href="${workspaceBase(workspace)}/feedback/${feedbackId}"
                          >Open the feedback ticket</a
                        >`
                    : ''
                }
              </p>
            </div>
            <div class="room-actions">
              ${can(member.role, 'webhooks.manage') && room.room.kind !== 'dm' ? html`<a class="button secondary small" href="${here}/settings/webhooks">Webhooks</a>` : ''}
              ${
                room.joined
                  ? html`<form method="post" action="${here}/leave" class="inline">
                      ${csrf}<button type="submit" class="secondary small">Leave</button>
                    </form>`
                  : html`<form method="post" action="${here}/join" class="inline">
                      ${csrf}<button type="submit" class="small">Join</button>
                    </form>`
              }
            </div>
          </header>
          <div class="flash error room-notice" role="status" hidden></div>
          <ol class="messages" id="messages" aria-labelledby="room-title" aria-live="polite">
            ${
              more && oldest
                ? html`<li class="load-earlier">
                    <a href="${here}?before=${oldest.id}">Load earlier messages</a>
                  </li>`
                : ''
            }
            ${messages.map((m) => messageItem(m, handles, { webhookKeyBase: keyBase }))}
            ${
              messages.length === 0 && latest
                ? html`<li class="empty-room">
                    <strong>No messages yet.</strong> Say hello to ${label}.
                  </li>`
                : ''
            }
          </ol>
          ${
            latest
              ? ''
              : html`<p class="not-latest">
                  You are looking at earlier messages. <a href="${here}">Jump to the latest</a>
                </p>`
          }
          <form
            class="composer ${composer.error ? 'has-error' : ''}"
            id="composer"
            method="post"
            action="${here}/messages"
            novalidate
          >
            ${csrf}
            <label for="message-body" class="visually-hidden">Message</label>
            <div class="composer-row">
              <textarea
                id="message-body"
                name="body"
                rows="2"
                maxlength="${MESSAGE_BODY_MAX}"
                placeholder="Message ${label}"
                aria-describedby="message-body-error"
                ${composer.error ? html`aria-invalid="true"` : ''}
              >
${composer.draft ?? ''}</textarea>
              <button type="submit">Send</button>
            </div>
            <p class="error" id="message-body-error" ${composer.error ? '' : html`hidden`}>
              ${composer.error ?? ''}
            </p>
          </form>
        </div>`,
      }),
      status,
    );
  }

  /** A channel the viewer may join but has not: nothing of it is shown, only the offer. */
  function joinOffer(req: Request, res: Response, room: RoomSeat): void {
    const { workspace } = seat(res);
    const ctx = pageContext(req, res);
    const label = roomLabel(room.room);
    send(
      res,
      layout(ctx, {
        title: label,
        section: 'rooms',
        body: html`<div class="empty">
          <h2>You are not in ${label}</h2>
          <p>Join the channel to read and post messages.</p>
          <form method="post" action="${roomPath(workspace, room.room.id)}/join">
            ${csrfField(ctx)}<button type="submit">Join ${label}</button>
          </form>
          <p><a href="${roomsPath(workspace)}">Back to rooms</a></p>
        </div>`,
      }),
      403,
    );
  }

  router.get('/', async (req, res) => listPage(req, res));

  router.post('/', requireCapability('rooms.create'), async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const name = typeof body.name === 'string' ? body.name : '';
    const parsed = createRoomSchema.safeParse(body);
    if (!parsed.success) return listPage(req, res, { name }, fieldErrors(parsed.error), 422);
    const { workspace, member } = seat(res);
    let room;
    try {
      room = await createChannel(db, member, parsed.data.name);
    } catch (error) {
      if (error instanceof AppError && error.options.fields)
        return listPage(req, res, { name }, error.options.fields, error.status);
      throw error;
    }
    res.redirect(roomPath(workspace, room.id));
  });

  router.get('/:roomId', async (req, res) => {
    const room = await visibleRoom(deps, req, res);
    if (room.access === 'join') return joinOffer(req, res, room);
    return roomPage(req, res, room);
  });

  router.post('/:roomId/join', async (req, res) => {
    const { workspace } = seat(res);
    const room = await visibleRoom(deps, req, res);
    if (!room.joined) {
      await joinRoom(db, room.room.id, room.member.id);
      flash(req, 'ok', `You joined ${roomLabel(room.room)}.`);
    }
    res.redirect(roomPath(workspace, room.room.id));
  });

  router.post('/:roomId/leave', async (req, res) => {
    const { workspace, user } = seat(res);
    const room = await visibleRoom(deps, req, res);
    if (await leaveRoom(db, room.room.id, room.member.id)) {
      // The database already refuses this seat; this stops live messages to open tabs now.
      realtime.leaveRoom(user.id, room.room.id);
      flash(req, 'ok', `You left ${roomLabel(room.room)}.`);
    }
    res.redirect(roomsPath(workspace));
  });

  router.post('/:roomId/messages', async (req, res) => {
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
      const draft = typeof body.body === 'string' ? body.body.slice(0, MESSAGE_BODY_MAX * 2) : '';
      return roomPage(req, res, room, { draft, error: problem }, 422);
    }
    const message = await postMessage(db, {
      roomId: room.room.id,
      workspaceId: workspace.id,
      authorKind: 'member',
      authorMemberId: room.member.id,
      displayName: user.name,
      body: parsed.data.body,
    });
    const item = messageItem(message, await workspaceMentionHandles(db, workspace.id)).value;
    await realtime.broadcastMessage(message, item);
    if (json) {
      res.status(201).json({ message: { id: message.id, html: item } });
      return;
    }
    res.redirect(roomPath(workspace, room.room.id));
  });

  return router;
}
