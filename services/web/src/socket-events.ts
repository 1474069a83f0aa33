import type { Access } from '@ferry/http';
import { capability, self } from './access.js';

/**
 * What a page's socket may send, declared like the HTTP routes (route tables): each event with
 * who may send it and whether it writes. realtime.ts registers a handler for exactly these, and
 * the route-table test checks every writing event names its rule. Every socket is a signed-in
 * user's (the handshake refuses others).
 */
export interface SocketEvent {
  event: string;
  access: Access;
  /** What it changes, for an event that writes. */
  writes?: string;
}

export const SOCKET_EVENTS = [
  {
    event: 'room:read',
    access: self('readRoom: a room this user holds a seat in (markRoomRead never moves back)'),
    writes: 'marks the room read up to a message',
  },
  {
    event: 'unread:sync',
    access: self('syncState: counts of this user’s own seats'),
  },
  {
    event: 'room:join',
    access: self('findRoomSeat: live messages of rooms this user may open'),
  },
  {
    // Checked in the handler (mayWatchErrors), and again before every delivery (usersWhoCan).
    event: 'errors:join',
    access: capability('errors.read'),
  },
] as const satisfies readonly SocketEvent[];

export type SocketEventName = (typeof SOCKET_EVENTS)[number]['event'];
