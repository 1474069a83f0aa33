import type http from 'node:http';
import type { RequestHandler } from 'express';
import { createAdapter } from '@socket.io/redis-adapter';
import type { Redis } from 'ioredis';
import { Server, type Socket } from 'socket.io';
import { inOrder } from '@ferry/core';
import { listen, type Db } from '@ferry/db';
import {
  ERRORS_WRITTEN_EVENT,
  errorsWrittenSchema,
  findMembership,
  messageBefore,
  findRoomSeat,
  liveChannelKey,
  findMessageWithPrevious,
  messagePayloads,
  messagesAfter,
  CATCH_UP_MAX,
  catchUpFrom,
  MESSAGES_CHANGED_EVENT,
  MESSAGES_STORED_EVENT,
  changedMessagesSchema,
  storedMessagesSchema,
  usersWhoCan,
  usersWhoCanOpen,
  workspaceMentionHandles,
  type ChangedMessage,
  type ChangedMessages,
  type MentionHandles,
  type StoredMessage,
  type StoredMessages,
} from '@ferry/workspace';
import type { WebDeps } from '../deps.js';
import { SOCKET_EVENTS, type SocketPayload } from './socket-events.js';
import {
  receive,
  replier,
  type JoinReply,
  type SocketHandler,
  type SocketHandlers,
} from './socket-receive.js';
import {
  readQueue,
  readRoom,
  syncState,
  unreadEvents,
  type UnreadMessageEvent,
  type UnreadStateEvent,
} from '../features/rooms/live-unread.js';
import { messageItem, messageItems } from '../features/rooms/message-views.js';
import {
  createLiveErrors,
  errorsChannel,
  watchOf,
  type ErrorsNewEvent,
  type ErrorsWatch,
  type WatchingSocket,
} from '../features/errors/live.js';
import {
  createLiveOnboarding,
  onboardingChannel,
  type OnboardingStateEvent,
  type WatchingDashboard,
} from '../features/dashboard/live.js';

/**
 * Live updates for pages (new messages in a room). Sockets authenticate with the same session
 * cookie as pages.
 *
 * Protocol (socket.io, default namespace):
 * - client -> `room:join` {roomId, after?}, ack {ok: true} | {ok: false, error: {code, message}}. The
 *   server checks the database and only then puts the socket in the socket.io room `room:<roomId>`.
 *   With `after` (the last message id the page rendered) it then sends, as `message:new`, the
 *   messages stored after it: what was posted between the page's render and the join (or while a
 *   connection was down) arrives too, instead of waiting for a reload. It starts a few seconds
 *   before `after` (CATCH_UP_LOOKBACK_MS), for messages that committed out of id order; the page
 *   drops the ones it has.
 * - server -> `message:new` {id, roomId, html}: a stored message, rendered as its `<li>`.
 * - server -> `message:updated` {id, roomId, html}: a message edited since (an incoming webhook's
 *   Discord-style edit), rendered again; the page replaces its `<li>`.
 * - server -> `message:deleted` {id, roomId}: a message deleted since; the page removes it.
 * - server -> `room:left` {roomId}: this user no longer has the room; the page stops listening.
 * - unread counts for the sidebar: `unread:message`, `unread:state`, `room:read`, `unread:sync`
 *   (features/rooms/live-unread.ts).
 * - the Errors page's "N new errors" line: `errors:join`, `errors:new`, `errors:left`
 *   (features/errors/live.ts), from the error writer's `errors:written` announcements.
 * - the Dashboard's checklist: `onboarding:join`, `onboarding:state`, `onboarding:left`
 *   (features/dashboard/live.ts), from those announcements and the database's `ferry_onboarding`.
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
 * Announcements come from the outbox relay (packages/workspace messages/live.ts): after each relayed batch
 * it publishes one `messages:stored` server-side event naming the committed messages by id, from
 * whichever process relayed them. Each web process renders what it delivers (see deliverLocally);
 * nothing in an announcement is ever put on a page as markup.
 */

export type { JoinReply } from './socket-receive.js';

export interface MessageEvent {
  id: string;
  roomId: string;
  html: string;
}

interface ClientToServerEvents {
  // Every argument comes from the browser: validated, never trusted.
  'room:join': (payload: unknown, ack: unknown) => void;
  'room:read': (payload: unknown) => void;
  'unread:sync': (payload: unknown) => void;
  'errors:join': (payload: unknown, ack: unknown) => void;
  'onboarding:join': (payload: unknown, ack: unknown) => void;
}

interface ServerToClientEvents {
  'message:new': (event: MessageEvent) => void;
  'message:updated': (event: MessageEvent) => void;
  'message:deleted': (event: { id: string; roomId: string }) => void;
  'room:left': (event: { roomId: string }) => void;
  'unread:message': (event: UnreadMessageEvent) => void;
  'unread:state': (event: UnreadStateEvent) => void;
  'errors:new': (event: ErrorsNewEvent) => void;
  'errors:left': (event: { workspaceId: string }) => void;
  'onboarding:state': (event: OnboardingStateEvent) => void;
  'onboarding:left': (event: { workspaceId: string }) => void;
}

interface InterServerEvents {
  // From another process's relay: validated with storedMessagesSchema, never trusted.
  [MESSAGES_STORED_EVENT]: (event: unknown) => void;
  // From the relay too (edits and deletions): validated with changedMessagesSchema.
  [MESSAGES_CHANGED_EVENT]: (event: unknown) => void;
  // From an error writer: validated with errorsWrittenSchema, never trusted.
  [ERRORS_WRITTEN_EVENT]: (event: unknown) => void;
}

interface SocketData {
  userId: string;
  /** The Errors page this socket shows, once `errors:join` was allowed. */
  errors?: ErrorsWatch;
  /** The workspace whose Dashboard this socket shows, once `onboarding:join` was allowed. */
  onboarding?: string;
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
  /** Every socket of this user, on every process, stops receiving the room now. */
  leaveRoom(userId: string, roomId: string): void;
  close(): Promise<void>;
}

const roomChannel = (roomId: string): string => `room:${roomId}`;
/** What the database notifies for a new invite, seat, webhook key or agent (migration 2026_11_28_0400). */
const ONBOARDING_CHANNEL = 'ferry_onboarding';
const userChannel = (userId: string): string => `user:${userId}`;

/** This process's sockets in a room, and which of their users may still open it. */
interface LocalReaders {
  channel: string;
  sockets: RealtimeSocket[];
  allowed: Set<string>;
}

/**
 * This process's sockets in the room, re-checked in the database: those whose user may no longer
 * open it are evicted first. Undefined when no socket here may receive anything.
 */
async function localReaders(
  io: RealtimeServer,
  db: Db,
  roomId: string,
): Promise<LocalReaders | undefined> {
  const channel = roomChannel(roomId);
  const socketIds = io.sockets.adapter.rooms.get(channel);
  if (!socketIds?.size) return undefined;
  const sockets = [...socketIds]
    .map((id) => io.sockets.sockets.get(id))
    .filter((s): s is RealtimeSocket => s !== undefined);
  const allowed = await usersWhoCanOpen(
    db,
    roomId,
    sockets.map((s) => s.data.userId),
  );
  for (const socket of sockets) {
    if (allowed.has(socket.data.userId)) continue;
    await socket.leave(channel);
    socket.emit('room:left', { roomId });
  }
  return allowed.size ? { channel, sockets, allowed } : undefined;
}

/**
 * Renders the stored message for the readers and emits it as `event`. The message is read and
 * rendered here, from the database: announcements only name it.
 */
async function emitRendered(
  io: RealtimeServer,
  db: Db,
  readers: LocalReaders,
  roomId: string,
  messageId: string,
  handles: (workspaceId: string) => Promise<MentionHandles>,
  event: 'message:new' | 'message:updated',
): Promise<boolean> {
  const { channel, sockets, allowed } = readers;
  // Grouped with the message before it exactly as the room page groups them (one read for both).
  const found = await findMessageWithPrevious(db, roomId, messageId);
  if (!found) return false;
  const { message, previous } = found;
  const mentionable = await handles(message.workspace_id);
  const html = messageItem(message, mentionable, { previous }).value;
  const rendered = { id: message.id, roomId: message.room_id, html };
  // A webhook message carries admins' "View payload" (as the room page renders it for them): those
  // sockets get their own rendering; the rest the shared one.
  const admins =
    message.author_kind === 'webhook'
      ? await usersWhoCan(db, message.workspace_id, [...allowed], 'webhooks.manage')
      : new Set<string>();
  const payloads = admins.size ? await messagePayloads(db, [message.id]) : undefined;
  if (!payloads?.size) {
    io.local.to(channel).emit(event, rendered);
    return true;
  }
  const adminHtml = messageItem(message, mentionable, { previous, payloads }).value;
  for (const socket of sockets) {
    if (!allowed.has(socket.data.userId)) continue;
    const admin = admins.has(socket.data.userId);
    socket.emit(event, admin ? { ...rendered, html: adminHtml } : rendered);
  }
  return true;
}

/** Emits an announced message to this process's sockets in the room that may still open it. */
async function deliverLocally(
  io: RealtimeServer,
  db: Db,
  announced: StoredMessage,
  handles: (workspaceId: string) => Promise<MentionHandles>,
): Promise<void> {
  const readers = await localReaders(io, db, announced.roomId);
  if (readers) {
    await emitRendered(io, db, readers, announced.roomId, announced.id, handles, 'message:new');
  }
}

/**
 * An edited message rendered again, or a deleted one's id, to this process's sockets in the room
 * that may still open it. An edit whose message is gone by now (deleted right after) is a deletion.
 */
async function deliverChange(
  io: RealtimeServer,
  db: Db,
  changed: ChangedMessage,
  handles: (workspaceId: string) => Promise<MentionHandles>,
): Promise<void> {
  const readers = await localReaders(io, db, changed.roomId);
  if (!readers) return;
  const shown =
    changed.change === 'updated' &&
    (await emitRendered(io, db, readers, changed.roomId, changed.id, handles, 'message:updated'));
  if (!shown) {
    io.local
      .to(readers.channel)
      .emit('message:deleted', { id: changed.id, roomId: changed.roomId });
  }
}

/** Mention handles read once per workspace per announcement. */
function handlesOnce(db: Db): (workspaceId: string) => Promise<MentionHandles> {
  const cache = new Map<string, Promise<MentionHandles>>();
  return (workspaceId) => {
    let found = cache.get(workspaceId);
    if (!found) {
      found = workspaceMentionHandles(db, workspaceId);
      cache.set(workspaceId, found);
    }
    return found;
  };
}

/** Delivers every announced edit and deletion this process holds sockets for, in order. */
async function deliverChanges(io: RealtimeServer, db: Db, changed: ChangedMessages): Promise<void> {
  const handles = handlesOnce(db);
  for (const message of changed.messages) await deliverChange(io, db, message, handles);
}

/**
 * Delivers every announced message this process holds sockets for, in id (time) order. Mention
 * handles are read once per workspace per announcement.
 */
async function deliverAnnounced(
  io: RealtimeServer,
  db: Db,
  announced: StoredMessages,
): Promise<void> {
  const handles = handlesOnce(db);
  const ordered = [...announced.messages].sort((a, b) => (a.id < b.id ? -1 : 1));
  for (const message of ordered) await deliverLocally(io, db, message, handles);
}

async function onRoomJoin(
  db: Db,
  socket: RealtimeSocket,
  { roomId, after }: SocketPayload<'room:join'>,
  reply: (value: JoinReply) => void,
): Promise<void> {
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
  // Joined first, so nothing stored from now on is missed; the page drops what it already has.
  if (!after) return;
  // Page by page to the end: a page away long enough to miss more than one page (a process
  // replaced under it, a laptop asleep) must not lose the rest.
  let context: { handles: MentionHandles; admin: boolean } | undefined;
  // From a little before the page's newest (catchUpFrom): a message committed out of id order
  // while the page was away is sent too.
  for (let cursor = catchUpFrom(after); ;) {
    const missed = await messagesAfter(db, roomId, cursor, CATCH_UP_MAX);
    if (!missed.length) return;
    const workspaceId = missed[0]!.workspace_id;
    context ??= {
      handles: await workspaceMentionHandles(db, workspaceId),
      admin: (await usersWhoCan(db, workspaceId, [socket.data.userId], 'webhooks.manage')).size > 0,
    };
    const hooked = missed.filter((m) => m.author_kind === 'webhook').map((m) => m.id);
    const items = messageItems(missed, context.handles, {
      before: await messageBefore(db, roomId, missed[0]!.id),
      // An admin's catch-up shows "View payload" as the room page does.
      payloads: context.admin && hooked.length ? await messagePayloads(db, hooked) : undefined,
    });
    missed.forEach((message, i) => {
      socket.emit('message:new', {
        id: message.id,
        roomId: message.room_id,
        html: items[i]!.value,
      });
    });
    if (missed.length < CATCH_UP_MAX) return;
    cursor = missed.at(-1)!.id;
  }
}

/** Joins an Errors page's live line; `receive` has checked the seat holds errors.read. */
async function onErrorsJoin(
  db: Db,
  socket: RealtimeSocket,
  join: SocketPayload<'errors:join'>,
  reply: (value: JoinReply) => void,
): Promise<void> {
  // The seat is what the page's `assigned:me` means, as on the page itself.
  const seat = await findMembership(db, socket.data.userId, join.workspaceId);
  const watch = watchOf(join, seat?.member.id);
  const previous = socket.data.errors;
  if (previous && previous.workspaceId !== watch.workspaceId) {
    await socket.leave(errorsChannel(previous.workspaceId));
  }
  socket.data.errors = watch;
  await socket.join(errorsChannel(watch.workspaceId));
  reply({ ok: true });
}

/** A socket as the live checklist sees it. */
function watchingDashboard(socket: RealtimeSocket, workspaceId: string): WatchingDashboard {
  return {
    userId: socket.data.userId,
    emit: (event) => socket.emit('onboarding:state', event),
    evict: async () => {
      socket.data.onboarding = undefined;
      await socket.leave(onboardingChannel(workspaceId));
      socket.emit('onboarding:left', { workspaceId });
    },
  };
}

/**
 * The handshake's Origin is PUBLIC_URL's, one of ALLOWED_ORIGINS, or the origin the request was
 * sent to (same-origin: its Host). No Origin at all is a non-browser client, which holds no
 * victim's cookies; it still needs a session like everyone.
 */
export function originAllowed(req: http.IncomingMessage, allowed: ReadonlySet<string>): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  if (allowed.has(origin)) return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

/** QUIT (after the replies still due), or drop the connection if Redis does not answer in time. */
async function quitWithin(client: Redis, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  const quit = client.quit().catch(() => 'failed' as const);
  const outcome = await Promise.race([quit, late]);
  clearTimeout(timer);
  if (outcome !== 'OK') client.disconnect();
}

export function createRealtime(deps: WebDeps, session: RequestHandler): Realtime {
  const { db, logger, config } = deps;
  // Two connections of their own: the subscriber one is in subscribe mode and serves nothing else.
  const pub = deps.redis.duplicate();
  const sub = pub.duplicate();
  for (const client of [pub, sub]) {
    client.on('error', (err: Error) => logger.warn({ err: err.message }, 'socket.io redis error'));
  }
  const allowedOrigins = new Set([
    new URL(config.PUBLIC_URL).origin,
    ...deps.settings.allowedOrigins,
  ]);
  const io: RealtimeServer = new Server({
    // Cross-site WebSocket hijacking: a page on another site could open a socket that carries our
    // session cookie. Browsers always send Origin on these requests; it must be ours.
    allowRequest: (req, callback) => callback(null, originAllowed(req, allowedOrigins)),
    serveClient: true,
    // WebSocket only. Long polling is a series of requests that must all reach the process
    // holding the session, and neither `pnpm start`'s node:cluster workers nor `--scale web=3`
    // behind a plain proxy route them stickily. Our pages (nav.js, room.js, errors-live.js)
    // connect with `transports: ['websocket']`, and every browser we support has WebSockets; the
    // Redis adapter carries everything between processes. (The cluster adapter would not help:
    // the handshake itself would still land on a random process.)
    transports: ['websocket'],
    adapter: createAdapter(pub, sub, { key: liveChannelKey(config.REDIS_PREFIX) }),
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

  const failed = (what: string) => (err: unknown) => logger.warn({ err }, `${what} failed`);
  // This process's sockets on a workspace's Errors page, re-checked and told by features/errors/live.ts.
  const liveErrors = createLiveErrors({
    db,
    onError: failed('live errors'),
    watchers: (workspaceId) => {
      const channel = errorsChannel(workspaceId);
      const ids = io.sockets.adapter.rooms.get(channel);
      if (!ids?.size) return [];
      return [...ids].flatMap((id): WatchingSocket[] => {
        const socket = io.sockets.sockets.get(id);
        if (!socket) return [];
        return [
          {
            userId: socket.data.userId,
            watch: socket.data.errors,
            emit: (event, payload) => socket.emit(event, payload),
            evict: async () => {
              socket.data.errors = undefined;
              await socket.leave(channel);
              socket.emit('errors:left', { workspaceId });
            },
          },
        ];
      });
    },
  });

  // This process's sockets on a workspace's Dashboard, told when a checklist step may be done.
  const dashboardsOf = (workspaceId: string): WatchingDashboard[] => {
    const ids = io.sockets.adapter.rooms.get(onboardingChannel(workspaceId));
    if (!ids?.size) return [];
    return [...ids].flatMap((id) => {
      const socket = io.sockets.sockets.get(id);
      return socket ? [watchingDashboard(socket, workspaceId)] : [];
    });
  };
  const liveOnboarding = createLiveOnboarding({
    db,
    watchers: dashboardsOf,
    onError: failed('live checklist'),
  });
  const onboardingSteps = listen(
    config.DATABASE_DIRECT_URL,
    ONBOARDING_CHANNEL,
    (workspaceId) => {
      if (workspaceId !== undefined) {
        liveOnboarding.changed(workspaceId);
        return;
      }
      // (Re)connected: what was notified meanwhile is lost, so every open Dashboard looks again.
      for (const channel of io.sockets.adapter.rooms.keys()) {
        if (channel.startsWith(onboardingChannel(''))) {
          liveOnboarding.changed(channel.slice(onboardingChannel('').length));
        }
      }
    },
    (err) => logger.warn({ err }, 'checklist notifications unavailable'),
  );

  /** Users with a socket on this process, and how many: who this process tells of new messages. */
  const localUsers = new Map<string, number>();
  /**
   * Socket work still running whose end publishes on `pub` (a read's `unread:state` to every tab):
   * close() waits for it before quitting `pub`, since a publish on a closed connection is an
   * unhandled rejection (seen once in a full run, rooms.browser).
   */
  const inFlight = new Set<Promise<void>>();
  const tracked = (work: () => Promise<void>): Promise<void> => {
    const running = work();
    inFlight.add(running);
    void running.then(
      () => inFlight.delete(running),
      () => inFlight.delete(running),
    );
    return running;
  };

  io.on('connection', (socket) => {
    const { userId } = socket.data;
    localUsers.set(userId, (localUsers.get(userId) ?? 0) + 1);
    socket.on('disconnect', () => {
      const left = (localUsers.get(userId) ?? 1) - 1;
      if (left > 0) localUsers.set(userId, left);
      else localUsers.delete(userId);
    });
    // A room per user, so "this user left room X" can reach all their tabs on every process.
    void socket.join(userChannel(userId));
    const reads = readQueue(
      (read) =>
        // Tracked: its emit publishes on `pub`, which close() quits only once this is done.
        tracked(async () => {
          const state = await readRoom(db, userId, read);
          // Every tab of the user, on every process, shows the room read.
          if (state) io.to(userChannel(userId)).emit('unread:state', state);
        }),
      failed('room:read'),
    );
    const handlers: SocketHandlers = {
      'room:read': (read) => reads.push(read),
      'unread:sync': async (sync) => {
        const state = await syncState(db, userId, sync);
        if (state) socket.emit('unread:state', state);
      },
      'room:join': (join, reply) => onRoomJoin(db, socket, join, reply),
      'errors:join': (join, reply) => onErrorsJoin(db, socket, join, reply),
      'onboarding:join': async ({ workspaceId }, reply) => {
        const previous = socket.data.onboarding;
        if (previous && previous !== workspaceId) {
          await socket.leave(onboardingChannel(previous));
        }
        socket.data.onboarding = workspaceId;
        await socket.join(onboardingChannel(workspaceId));
        reply({ ok: true });
        // Joined first, so nothing done from now on is missed; then what was done before.
        await liveOnboarding.joined(workspaceId, watchingDashboard(socket, workspaceId));
      },
    };
    // Exactly the declared events (socket-events.ts), each through `receive`.
    for (const declared of SOCKET_EVENTS) {
      socket.on(declared.event, (payload: unknown, ack: unknown) => {
        void receive(db, socket, declared, handlers[declared.event] as SocketHandler, payload, ack)
          // A failure is logged and still answered: the page waits on its acknowledgement.
          .catch((err: unknown) => {
            logger.error({ err }, `${declared.event} failed`);
            if (declared.invalid === undefined) return;
            replier(ack)({
              ok: false,
              error: { code: 'internal', message: 'Something went wrong. Reload the page.' },
            });
          });
      });
    }
  });

  // Announcements are handled one after another, in the order they arrived: each reads the
  // database before it emits, and two handled at once could emit the later messages (and their
  // unread events) first; a loaded host did.
  const announceInOrder = inOrder();
  io.on(MESSAGES_STORED_EVENT, (event) => {
    const parsed = storedMessagesSchema.safeParse(event);
    if (!parsed.success) {
      logger.warn('ignored a malformed messages:stored announcement');
      return;
    }
    const announced = parsed.data;
    for (const workspaceId of new Set(announced.messages.map((m) => m.workspaceId))) {
      liveOnboarding.changed(workspaceId);
    }
    announceInOrder(async () => {
      await deliverAnnounced(io, db, announced);
      // After the messages themselves, so an open room page has them before its count moves.
      const events = await unreadEvents(db, announced, [...localUsers.keys()]);
      for (const { userId, event } of events) {
        io.local.to(userChannel(userId)).emit('unread:message', event);
      }
    }).catch(failed('live delivery'));
  });

  // Edits and deletions go through the same queue: one announced in the batch after its
  // message's creation is applied after the message is on the page.
  io.on(MESSAGES_CHANGED_EVENT, (event) => {
    const parsed = changedMessagesSchema.safeParse(event);
    if (!parsed.success) {
      logger.warn('ignored a malformed messages:changed announcement');
      return;
    }
    announceInOrder(() => deliverChanges(io, db, parsed.data)).catch(failed('live changes'));
  });

  io.on(ERRORS_WRITTEN_EVENT, (event) => {
    const parsed = errorsWrittenSchema.safeParse(event);
    if (!parsed.success) {
      logger.warn('ignored a malformed errors:written announcement');
      return;
    }
    liveErrors.announced(parsed.data);
    for (const { workspaceId } of parsed.data.workspaces) liveOnboarding.changed(workspaceId);
  });

  const realtime: Realtime = {
    io,
    attach(server) {
      io.attach(server);
      // The engine exists only once attached; sockets then share the pages' session cookie.
      io.engine.use(session);
    },
    leaveRoom(userId, roomId) {
      io.in(userChannel(userId)).socketsLeave(roomChannel(roomId));
      io.to(userChannel(userId)).emit('room:left', { roomId });
    },
    async close() {
      liveErrors.close();
      await onboardingSteps.close();
      // The adapter's close unsubscribes without waiting, and its publishes are never awaited:
      // a command a closed connection rejects is an unhandled rejection nobody can catch. So
      // each connection QUITs after the replies still due, never dropping one mid-command. First
      // the subscriber (after its unsubscribes no announcement comes in), then the announcements
      // being handled finish, then the publisher (after their publishes).
      await io.close();
      await quitWithin(sub, 2_000);
      await announceInOrder(() => Promise.resolve());
      await Promise.allSettled([...inFlight]);
      await quitWithin(pub, 2_000);
    },
  };
  return realtime;
}
