import { z } from 'zod';
import { isId } from '@ferry/core';
import type { Db, Member } from '@ferry/db';
import {
  findMembership,
  findRoomSeat,
  markRoomRead,
  unreadChanges,
  unreadState,
  type StoredMessages,
} from '@ferry/workspace';

/**
 * Live unread counts (issue #13): the sidebar of every workspace page holds a socket (public/nav.js)
 * and keeps its counts from these events; realtime.ts wires them.
 *
 * - server -> `unread:message` {workspaceId, roomId, messageId, seated, mention}: a message that
 *   concerns this user was stored; the sidebar adds one to the room (`seated`) and/or to Mentions.
 *   Sent to the user's own channel, from the process that holds their sockets, after the same
 *   announcement that delivers the message to open room pages (so a visible room page reads it at
 *   once and the count it was about to show is cleared by the `unread:state` that follows).
 * - client -> `room:read` {roomId, messageId}: the room page is in view up to that message. The
 *   seat's mark moves forward and every tab of the user gets the new `unread:state`.
 * - client -> `unread:sync` {workspaceId}: on every (re)connect, so counts missed while the
 *   connection was down are right again; answered with `unread:state` to that socket.
 * - server -> `unread:state` {workspaceId, rooms: [{id, unread}], mentions}: the counts as stored.
 */

export interface UnreadMessageEvent {
  workspaceId: string;
  roomId: string;
  messageId: string;
  seated: boolean;
  mention: boolean;
}

export interface UnreadStateEvent {
  workspaceId: string;
  rooms: { id: string; unread: number }[];
  mentions: number;
}

export const readSchema = z.object({
  roomId: z.string().refine((v) => isId(v, 'room')),
  messageId: z.string().refine((v) => isId(v, 'message')),
});

type Read = z.infer<typeof readSchema>;

export const syncSchema = z.object({
  workspaceId: z.string().refine((v) => isId(v, 'workspace')),
});

/** The counts of one seat, as sent to the browser (names are already on the page). */
async function stateOf(
  db: Db,
  seat: Pick<Member, 'id' | 'role' | 'workspace_id'>,
): Promise<UnreadStateEvent> {
  const state = await unreadState(db, seat);
  return {
    workspaceId: state.workspaceId,
    rooms: state.rooms.map((room) => ({ id: room.id, unread: room.unread })),
    mentions: state.mentions,
  };
}

/**
 * Marks the room read for this user and returns their new counts; undefined when they may not
 * open the room (nothing changes).
 */
export async function readRoom(
  db: Db,
  userId: string,
  read: Read,
): Promise<UnreadStateEvent | undefined> {
  const found = await findRoomSeat(db, { userId, roomId: read.roomId });
  if (!found || found.access !== 'open') return undefined;
  await markRoomRead(db, {
    memberId: found.member.id,
    roomId: read.roomId,
    messageId: read.messageId,
  });
  return stateOf(db, found.member);
}

/** This user's counts in the workspace; undefined without an active seat there. */
export async function syncState(
  db: Db,
  userId: string,
  sync: z.infer<typeof syncSchema>,
): Promise<UnreadStateEvent | undefined> {
  const membership = await findMembership(db, userId, sync.workspaceId);
  return membership ? stateOf(db, membership.member) : undefined;
}

/**
 * One socket's `room:read`s, applied one at a time, the latest per room: a burst of live messages
 * (or a client that floods) costs one write per room per round, not one per event.
 */
export function readQueue(
  apply: (read: Read) => Promise<void>,
  onError: (err: unknown) => void,
): { push(read: Read): void } {
  const pending = new Map<string, string>();
  let running = false;
  const run = async (): Promise<void> => {
    running = true;
    try {
      // A Map iterates what is added while it runs: reads that arrive meanwhile are applied too.
      for (const [roomId, messageId] of pending) {
        pending.delete(roomId);
        await apply({ roomId, messageId });
      }
    } finally {
      running = false;
    }
  };
  return {
    push({ roomId, messageId }) {
      const known = pending.get(roomId);
      if (!known || known < messageId) pending.set(roomId, messageId);
      if (!running) run().catch(onError);
    },
  };
}

/**
 * The `unread:message` events of an announced batch for the users this process holds sockets for:
 * one read for the whole batch, none when the process has no sockets.
 */
export async function unreadEvents(
  db: Db,
  announced: StoredMessages,
  localUserIds: readonly string[],
): Promise<{ userId: string; event: UnreadMessageEvent }[]> {
  if (!localUserIds.length) return [];
  const changes = await unreadChanges(
    db,
    announced.messages.map((m) => m.id),
    localUserIds,
  );
  return changes
    .sort((a, b) => (a.messageId < b.messageId ? -1 : 1))
    .map(({ userId, ...event }) => ({ userId, event }));
}
