import type { Access } from '@ferry/http';
import type { z } from 'zod';
import { onboardingJoinSchema } from '../features/dashboard/live.js';
import { errorsJoinSchema } from '../features/errors/live.js';
import { joinSchema } from '../features/rooms/live-join.js';
import { readSchema, syncSchema } from '../features/rooms/live-unread.js';
import { anySeat, capability, self } from './access.js';

/**
 * What a page's socket may send, declared like the HTTP routes (route tables): each event with
 * who may send it, whether it writes, and the shape of its payload. realtime.ts registers exactly
 * these and receives every one through one path (`receive`): the payload is parsed, then the rule
 * is enforced, then the feature's handler runs. The route-table test checks every writing event
 * names its rule. Every socket is a signed-in user's (the handshake refuses others).
 */
export interface SocketEvent {
  event: string;
  access: Access;
  /** What it changes, for an event that writes. */
  writes?: string;
  /** The payload's shape: anything else never reaches the handler. */
  payload: z.ZodType;
  /**
   * For events the page waits on (it passes an acknowledgement): what a bad payload is told. An
   * event without it drops a bad payload silently.
   */
  invalid?: string;
  /** For a `capability` rule: the workspace whose seat must hold it, read from the payload. */
  workspace?: (payload: never) => string;
}

/** Declares one event, typing `workspace` by its payload. */
function socketEvent<S extends z.ZodType, const E extends string>(
  event: Omit<SocketEvent, 'payload' | 'workspace' | 'event'> & {
    event: E;
    payload: S;
    workspace?: (payload: z.infer<S>) => string;
  },
) {
  return event;
}

export const SOCKET_EVENTS = [
  socketEvent({
    event: 'room:read',
    access: self('readRoom: a room this user holds a seat in (markRoomRead never moves back)'),
    writes: 'marks the room read up to a message',
    payload: readSchema,
  }),
  socketEvent({
    event: 'unread:sync',
    access: self('syncState: counts of this user’s own seats'),
    payload: syncSchema,
  }),
  socketEvent({
    event: 'room:join',
    access: self('findRoomSeat: live messages of rooms this user may open'),
    payload: joinSchema,
    invalid: 'Send {"roomId": "room_..."}.',
  }),
  socketEvent({
    // Enforced by `receive` on join, and again before every delivery (usersWhoCan).
    event: 'errors:join',
    access: capability('errors.read'),
    payload: errorsJoinSchema,
    invalid: 'Send {"workspaceId": "wsp_...", "filter": {"status": "unresolved"}}.',
    workspace: (join) => join.workspaceId,
  }),
  socketEvent({
    // Enforced by `receive` on join; the seat is read again before every delivery (seatRoles).
    event: 'onboarding:join',
    access: anySeat,
    payload: onboardingJoinSchema,
    invalid: 'Send {"workspaceId": "wsp_..."}.',
    workspace: (join) => join.workspaceId,
  }),
] as const satisfies readonly SocketEvent[];

export type SocketEventName = (typeof SOCKET_EVENTS)[number]['event'];

/** The parsed payload of one declared event. */
export type SocketPayload<E extends SocketEventName> = z.infer<
  Extract<(typeof SOCKET_EVENTS)[number], { event: E }>['payload']
>;
