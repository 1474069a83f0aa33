import type { Db } from '@ferry/db';
import type { Capability } from '@ferry/workspace';
import { socketHasSeat, socketSeatHolds } from './access.js';
import type { SocketEvent, SocketEventName, SocketPayload } from './socket-events.js';

export type JoinReply = { ok: true } | { ok: false; error: { code: string; message: string } };

/** Answers a join through the client's acknowledgement callback, when it sent one. */
export function replier(ack: unknown): (value: JoinReply) => void {
  return (value) => {
    if (typeof ack === 'function') (ack as (value: JoinReply) => void)(value);
  };
}

export type SocketHandler = (payload: unknown, reply: (value: JoinReply) => void) => unknown;
export type SocketHandlers = {
  [E in SocketEventName]: (
    payload: SocketPayload<E>,
    reply: (value: JoinReply) => void,
  ) => void | Promise<void>;
};

/**
 * Every socket event's one path, as `mount()` is for routes: the payload is parsed with the
 * event's schema (a bad one is answered, or dropped for events nobody waits on), the declared
 * rule is enforced, and only then does the feature's handler run. A `capability` rule is checked
 * against the seat in the payload's workspace, as requireCapability checks a page's; a `seat` rule
 * (anySeat) only wants a seat there, as a workspace page does.
 */
export async function receive(
  db: Db,
  socket: { data: { userId: string } },
  declared: SocketEvent,
  handler: SocketHandler,
  payload: unknown,
  ack: unknown,
): Promise<void> {
  const reply = replier(ack);
  const parsed = declared.payload.safeParse(payload);
  if (!parsed.success) {
    if (declared.invalid !== undefined) {
      reply({ ok: false, error: { code: 'validation_failed', message: declared.invalid } });
    }
    return;
  }
  const { kind } = declared.access;
  if (kind === 'capability' || kind === 'seat') {
    const workspaceOf = declared.workspace as ((payload: unknown) => string) | undefined;
    if (!workspaceOf) throw new Error(`${declared.event}: a ${kind} rule needs its workspace`);
    const workspaceId = workspaceOf(parsed.data);
    const allowed =
      kind === 'seat'
        ? await socketHasSeat(db, socket.data.userId, workspaceId)
        : await socketSeatHolds(
            db,
            socket.data.userId,
            workspaceId,
            declared.access.rule as Capability,
          );
    if (!allowed) {
      // Not a member, or too low a role: the same answer, so the workspace's existence is not told.
      reply({ ok: false, error: { code: 'not_found', message: 'No such workspace.' } });
      return;
    }
  }
  await handler(parsed.data, reply);
}
