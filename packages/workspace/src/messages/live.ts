import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { Config, Logger } from '@ferry/core';
import type { Db } from '@ferry/db';
import { idSchema, runOutboxRelay, type RelayedEvent } from '@ferry/queues';

/**
 * Live announce: how every web process hears that messages were stored, whoever stored them
 * (a member, an incoming webhook, a filed ticket's system message, later agents and dispatch).
 *
 * The announcer is the outbox relay: every message has a `message_created` event committed with
 * it, and after each relayed batch the relay publishes one `messages:stored` announcement on the
 * socket.io Redis adapter's channel. No code path that stores a message can forget to announce it,
 * and a message is announced only once it is committed. Each web process then re-checks in the
 * database who may open each room and renders what it delivers itself: the announcement carries
 * ids only, never HTML, so whoever can publish on Redis cannot inject markup into a page.
 *
 * Best effort: a page that missed an announcement (relay restart, Redis blip) shows the message on
 * its next load.
 */

/** The socket.io server-side event name (services/web/src/shared/realtime.ts listens for it). */
export const MESSAGES_STORED_EVENT = 'messages:stored';

/** Most messages one announcement names (a relay batch is at most this many events). */
export const ANNOUNCE_BATCH_MAX = 1_000;

export const storedMessageSchema = z.object({
  id: idSchema('message'),
  roomId: idSchema('room'),
  workspaceId: idSchema('workspace'),
});

export const storedMessagesSchema = z.object({
  messages: z.array(storedMessageSchema).min(1).max(ANNOUNCE_BATCH_MAX),
});

export type StoredMessage = z.infer<typeof storedMessageSchema>;
export type StoredMessages = z.infer<typeof storedMessagesSchema>;

/**
 * The server-side event for messages edited or deleted after they were stored (the outbox's
 * `message_changed`): pages showing the room re-render or remove them. Ids only, as above.
 */
export const MESSAGES_CHANGED_EVENT = 'messages:changed';

export const changedMessageSchema = storedMessageSchema.extend({
  change: z.enum(['updated', 'deleted']),
});

export const changedMessagesSchema = z.object({
  messages: z.array(changedMessageSchema).min(1).max(ANNOUNCE_BATCH_MAX),
});

export type ChangedMessage = z.infer<typeof changedMessageSchema>;
export type ChangedMessages = z.infer<typeof changedMessagesSchema>;

/** The socket.io Redis adapter's key: web's adapter and every announcer must agree on it. */
export function liveChannelKey(prefix: string): string {
  return `${prefix}:socket.io`;
}

export interface Announcer {
  /** Publishes the messages to every web process. Never throws, never rejects. */
  announce(messages: readonly StoredMessage[]): Promise<void>;
  /** Publishes edits and deletions to every web process. Never throws, never rejects. */
  announceChanges(messages: readonly ChangedMessage[]): Promise<void>;
}

/**
 * The socket.io Redis adapter's request channel of the default namespace, and its server-side
 * event request type: what `@socket.io/redis-emitter`'s serverSideEmit publishes. We publish it
 * ourselves so that a failed publish is a rejected promise we handle (the emitter drops the
 * promise, which crashes the process on a Redis outage as an unhandled rejection).
 */
const requestChannel = (prefix: string): string => `${liveChannelKey(prefix)}-request#/#`;
const SERVER_SIDE_EMIT = 6;
const ANNOUNCER_UID = 'ferry-announcer';

/**
 * Publishes one server-side event to every web process (realtime.ts listens with `io.on`). Never
 * throws, never rejects: a failed publish is logged, and the pages catch up on their next load.
 */
export async function publishServerSideEvent(
  redis: Redis,
  prefix: string,
  logger: Logger,
  event: string,
  payload: unknown,
): Promise<void> {
  const request = JSON.stringify({
    uid: ANNOUNCER_UID,
    type: SERVER_SIDE_EMIT,
    data: [event, payload],
  });
  try {
    await redis.publish(requestChannel(prefix), request);
  } catch (err) {
    logger.warn({ err, event }, 'live announcement failed');
  }
}

export function createAnnouncer(redis: Redis, prefix: string, logger: Logger): Announcer {
  return {
    async announce(messages) {
      for (let start = 0; start < messages.length; start += ANNOUNCE_BATCH_MAX) {
        const payload: StoredMessages = {
          messages: messages.slice(start, start + ANNOUNCE_BATCH_MAX),
        };
        await publishServerSideEvent(redis, prefix, logger, MESSAGES_STORED_EVENT, payload);
      }
    },
    async announceChanges(messages) {
      for (let start = 0; start < messages.length; start += ANNOUNCE_BATCH_MAX) {
        const payload: ChangedMessages = {
          messages: messages.slice(start, start + ANNOUNCE_BATCH_MAX),
        };
        await publishServerSideEvent(redis, prefix, logger, MESSAGES_CHANGED_EVENT, payload);
      }
    },
  };
}

/**
 * The outbox relay hook: the stored messages of a relayed batch, announced in one publish, then
 * its edits and deletions in another (after: a message created and edited in one batch is
 * delivered before its edit).
 */
export function announceRelayedMessages(
  announcer: Announcer,
): (events: readonly RelayedEvent[]) => void {
  return (events) => {
    const messages: StoredMessage[] = [];
    const changes: ChangedMessage[] = [];
    for (const event of events) {
      if (event.type === 'message_created') {
        const { messageId, roomId, workspaceId } = event.payload;
        messages.push({ id: messageId, roomId, workspaceId });
      } else if (event.type === 'message_changed') {
        const { messageId, roomId, workspaceId, change } = event.payload;
        changes.push({ id: messageId, roomId, workspaceId, change });
      }
    }
    void (async () => {
      if (messages.length) await announcer.announce(messages);
      if (changes.length) await announcer.announceChanges(changes);
    })();
  };
}

/**
 * The outbox relay as every process that runs one must run it: relaying events to their queues
 * and announcing stored messages. `redis` carries the announcements; the relay opens its own
 * connection for BullMQ.
 */
export function startRelay(deps: {
  db: Db;
  redis: Redis;
  config: Pick<Config, 'redis' | 'REDIS_PREFIX' | 'DATABASE_DIRECT_URL'>;
  logger: Logger;
}): { stop(): Promise<void> } {
  const announcer = createAnnouncer(deps.redis, deps.config.REDIS_PREFIX, deps.logger);
  return runOutboxRelay({ ...deps, onRelayed: announceRelayedMessages(announcer) });
}
