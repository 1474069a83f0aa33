import type http from 'node:http';
import type { RequestHandler } from 'express';
import { createAdapter } from '@socket.io/redis-adapter';
import { Server, type Socket } from 'socket.io';
import { z } from 'zod';
import { isId } from '@ferry/core';
import type { Db, Message } from '@ferry/db';
import type { WebDeps } from './deps.js';
import { findMessage, workspaceMentionHandles } from './domain/messages.js';
import { findRoomSeat, usersWhoCanOpen } from './domain/rooms.js';
import { messageItem } from './views/messages.js';

/**
 * Live updates for pages (new messages in a room). Sockets authenticate with the same session
 * cookie as pages.
 *
 * Protocol (socket.io, default namespace):
 * - client -> `room:join` {roomId}, ack {ok: true} | {ok: false, error: {code, message}}. The server
 *   checks the database and only then puts the socket in the socket.io room `room:<roomId>`.
 * - server -> `message:new` {id, roomId, html}: a stored message, rendered as its `<li>`.
 * - server -> `room:left` {roomId}: this user no longer has the room; the page stops listening.
 *
 * Several web processes (`docker compose up --scale web=3`) share one Redis adapter, so a message
 * posted on one process reaches sockets held by the others.
 *
 * Access cut-off. A socket.io room is only a routing hint; the database decides. Two mechanisms:
 * 1. Evict on leave: leaving a room removes every socket of that user, on every process, from
 *    `room:<roomId>` at once (`socketsLeave` through the adapter) - see `leaveRoom`.
 * 2. Re-check before delivering: each process, before emitting a message to a room, asks the
 *    database which of the users it holds sockets for may still open the room (one query per
 *    message per process that has sockets there; none otherwise) and evicts the rest. This covers
 *    what (1) cannot see: a member removed from the workspace (members.left_at), a role change,
 *    a row changed by another service.
 * That is why a message is announced to every process with a server-side event and each process
 * emits to its own sockets (`io.local`), rather than one `io.to(room).emit` fanned out blindly.
 *
 * From a non-web process (webhooks-in, dispatch and agent workers), later: store the message with
 * postMessage, then announce it on the same Redis with @socket.io/redis-emitter and the same key
 * prefix, as the same server-side event, so every web process runs the same re-check:
 *
 *   import { Emitter } from '@socket.io/redis-emitter';
 *   const emitter = new Emitter(redis, { key: `${config.REDIS_PREFIX}:socket.io` });
 *   emitter.serverSideEmit('message:created', { roomId, messageId });
 *
 * Without `html` each web process that holds sockets in the room renders the message itself. Do
 * not `emitter.to('room:<id>').emit('message:new', ...)`: that would skip the re-check.
 */

export type JoinReply = { ok: true } | { ok: false; error: { code: string; message: string } };

export interface MessageEvent {
  id: string;
  roomId: string;
  html: string;
}

interface ClientToServerEvents {
  // Both arguments come from the browser: validated, never trusted.
  'room:join': (payload: unknown, ack: unknown) => void;
}

interface ServerToClientEvents {
  'message:new': (event: MessageEvent) => void;
  'room:left': (event: { roomId: string }) => void;
}

export interface MessageAnnouncement {
  roomId: string;
  messageId: string;
  /** The rendered `<li>`, when the announcer could render it; otherwise each process renders. */
  html?: string | undefined;
}

interface InterServerEvents {
  'message:created': (event: MessageAnnouncement) => void;
}

interface SocketData {
  userId: string;
}

export type RealtimeServer = Server<
  ClientToServerEvents,
  ServerToClientEvents,
  InterServerEvents,
  SocketData
>;
type RealtimeSocket = Socket<
  ClientToServerEvents,
  ServerToClientEvents,
  InterServerEvents,
  SocketData
>;

export interface Realtime {
  io: RealtimeServer;
  attach(server: http.Server): void;
  /**
   * Delivers a stored message live to every process's sockets in its room. `html` is its
   * rendered `<li>` when the caller has it already. Never throws.
   */
  broadcastMessage(message: Message, html?: string): Promise<void>;
  /** Every socket of this user, on every process, stops receiving the room now. */
  leaveRoom(userId: string, roomId: string): void;
  close(): Promise<void>;
}

const roomChannel = (roomId: string): string => `room:${roomId}`;
const userChannel = (userId: string): string => `user:${userId}`;

const joinSchema = z.object({ roomId: z.string().refine((v) => isId(v, 'room')) });

const announcementSchema = z.object({
  roomId: z.string().refine((v) => isId(v, 'room')),
  messageId: z.string().refine((v) => isId(v, 'message')),
  html: z.string().max(1_000_000).optional(),
});

/**
 * Emits an announced message to this process's sockets in the room, after re-checking in the
 * database that each socket's user may still open it; the others are evicted first.
 */
async function deliverLocally(
  io: RealtimeServer,
  db: Db,
  announcement: MessageAnnouncement,
): Promise<void> {
  const channel = roomChannel(announcement.roomId);
  const socketIds = io.sockets.adapter.rooms.get(channel);
  if (!socketIds?.size) return;
  const sockets = [...socketIds]
    .map((id) => io.sockets.sockets.get(id))
    .filter((s): s is RealtimeSocket => s !== undefined);
  const allowed = await usersWhoCanOpen(
    db,
    announcement.roomId,
    sockets.map((s) => s.data.userId),
  );
  for (const socket of sockets) {
    if (allowed.has(socket.data.userId)) continue;
    await socket.leave(channel);
    socket.emit('room:left', { roomId: announcement.roomId });
  }
  if (allowed.size === 0) return;
  let html = announcement.html;
  if (html === undefined) {
    const message = await findMessage(db, announcement.roomId, announcement.messageId);
    if (!message) return;
    html = messageItem(message, await workspaceMentionHandles(db, message.workspace_id)).value;
  }
  io.local
    .to(channel)
    .emit('message:new', { id: announcement.messageId, roomId: announcement.roomId, html });
}

/**
 * Announces a stored message to every web process (each delivers to its own sockets, see above).
 * Other code in a web process calls this through `realtime.broadcastMessage(message)`.
 */
export async function broadcastMessage(
  io: RealtimeServer,
  db: Db,
  message: Message,
  html?: string,
): Promise<void> {
  const announcement: MessageAnnouncement = {
    roomId: message.room_id,
    messageId: message.id,
    html:
      html ?? messageItem(message, await workspaceMentionHandles(db, message.workspace_id)).value,
  };
  // Server-side events are not delivered to their sender: this process delivers itself.
  io.serverSideEmit('message:created', announcement);
  await deliverLocally(io, db, announcement);
}

async function onRoomJoin(
  db: Db,
  socket: RealtimeSocket,
  payload: unknown,
  ack: unknown,
): Promise<void> {
  const reply = (value: JoinReply): void => {
    if (typeof ack === 'function') (ack as (value: JoinReply) => void)(value);
  };
  const parsed = joinSchema.safeParse(payload);
  if (!parsed.success) {
    reply({
      ok: false,
      error: { code: 'validation_failed', message: 'Send {"roomId": "room_..."}.' },
    });
    return;
  }
  const { roomId } = parsed.data;
  const seat = await findRoomSeat(db, { userId: socket.data.userId, roomId });
  if (!seat || seat.access === 'hidden') {
    reply({ ok: false, error: { code: 'not_found', message: 'No such room.' } });
    return;
  }
  if (seat.access !== 'open') {
    reply({ ok: false, error: { code: 'forbidden', message: 'Join the room first.' } });
    return;
  }
  await socket.join(roomChannel(roomId));
  reply({ ok: true });
}

export function createRealtime(deps: WebDeps, session: RequestHandler): Realtime {
  const { db, logger, config } = deps;
  // Two connections of their own: the subscriber one is in subscribe mode and serves nothing else.
  const pub = deps.redis.duplicate();
  const sub = pub.duplicate();
  for (const client of [pub, sub]) {
    client.on('error', (err: Error) => logger.warn({ err: err.message }, 'socket.io redis error'));
  }
  const io: RealtimeServer = new Server({
    serveClient: true,
    transports: ['websocket', 'polling'],
    adapter: createAdapter(pub, sub, { key: `${config.REDIS_PREFIX}:socket.io` }),
  });
  io.use((socket, next) => {
    const req = socket.request as http.IncomingMessage & { session?: { userId?: string } };
    if (!req.session?.userId) {
      next(new Error('unauthorized'));
      return;
    }
    socket.data.userId = req.session.userId;
    next();
  });

  io.on('connection', (socket) => {
    // A room per user, so "this user left room X" can reach all their tabs on every process.
    void socket.join(userChannel(socket.data.userId));
    socket.on('room:join', (payload, ack) => {
      onRoomJoin(db, socket, payload, ack).catch((err: unknown) => {
        logger.error({ err }, 'room:join failed');
        if (typeof ack === 'function') {
          (ack as (value: JoinReply) => void)({
            ok: false,
            error: { code: 'internal', message: 'Something went wrong. Reload the page.' },
          });
        }
      });
    });
  });

  io.on('message:created', (event) => {
    const parsed = announcementSchema.safeParse(event);
    if (!parsed.success) {
      logger.warn('ignored a malformed message:created announcement');
      return;
    }
    deliverLocally(io, db, parsed.data).catch((err: unknown) =>
      logger.warn({ err }, 'live delivery failed'),
    );
  });

  const realtime: Realtime = {
    io,
    attach(server) {
      io.attach(server);
      // The engine exists only once attached; sockets then share the pages' session cookie.
      io.engine.use(session);
    },
    async broadcastMessage(message, html) {
      try {
        await broadcastMessage(io, db, message, html);
      } catch (err) {
        // The message is stored and shows on the next load; live delivery is best effort.
        logger.warn({ err, messageId: message.id }, 'broadcast failed');
      }
    },
    leaveRoom(userId, roomId) {
      io.in(userChannel(userId)).socketsLeave(roomChannel(roomId));
      io.to(userChannel(userId)).emit('room:left', { roomId });
    },
    async close() {
      await io.close();
      pub.disconnect();
      sub.disconnect();
    },
  };
  return realtime;
}
