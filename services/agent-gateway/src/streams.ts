import type { Response } from 'express';
import type { Redis } from 'ioredis';
import { sql } from 'kysely';
import type { Logger } from '@ferry/core';
import { listen, type AgentWork, type Db } from '@ferry/db';
import { markDelivered, unackedWork } from './work-log.js';

/**
 * The open SSE streams of this gateway process, and the nudges that tell it to push.
 *
 * Work is logged by whichever process handled the event (any gateway, any worker); it publishes
 * the agent's id on one Redis channel. Every gateway process listens; the ones holding a stream of
 * that agent read its unacked items from Postgres (the truth) and write them out. Each stream has
 * a cursor (the last seq it was sent) so a nudge sends only what is new; a heartbeat or a
 * reconnect sends every unacked item again (at-least-once; the agent dedupes by work id).
 *
 * A stream lives only as long as the token it was opened with: Postgres notifies every process
 * when a token is revoked or deleted (migration 2026_11_25_0020, whatever path changed it), and
 * each process ends that token's streams at once; the agent's reconnect is then refused (401).
 */

/** Postgres channel: the id of each API token revoked or deleted, at commit. */
export const TOKEN_REVOKED_CHANNEL = 'ferry_token_revoked';

export function nudgeChannel(prefix: string): string {
  return `${prefix}:agents:nudge`;
}

/**
 * Tells every gateway process that an agent has new work (`push`), or that every unacked item
 * must be sent again (`resend`, after a heartbeat that may have reached another process). Never
 * throws.
 */
export async function nudge(
  redis: Redis,
  prefix: string,
  agentId: string,
  logger: Logger,
  what: 'push' | 'resend' = 'push',
): Promise<void> {
  try {
    await redis.publish(nudgeChannel(prefix), what === 'push' ? agentId : `resend:${agentId}`);
  } catch (err) {
    // The stream still gets it on the agent's next heartbeat or reconnect.
    logger.warn({ err, agentId }, 'agent nudge failed');
  }
}

export interface WorkEvent {
  work_id: string;
  kind: AgentWork['kind'];
  conversation_id: string;
  feedback: unknown;
  message: unknown;
}

export function workEvent(work: AgentWork): WorkEvent {
  const payload = (work.payload ?? {}) as { feedback?: unknown; message?: unknown };
  return {
    work_id: work.id,
    kind: work.kind,
    conversation_id: work.conversation_id,
    feedback: payload.feedback ?? null,
    message: payload.message ?? null,
  };
}

/** One SSE frame; `data` is one JSON line (JSON never contains a raw newline). */
export function sseFrame(event: string, data: unknown, id?: string): string {
  return `${id ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

interface OpenStream {
  agentId: string;
  /** The API token the stream was opened with: revoking it ends the stream. */
  tokenId: string;
  res: Response;
  /** The last seq written to this stream. */
  cursor: string;
  pumping: boolean;
  again: boolean;
}

export interface StreamHub {
  /** Registers an open stream; resolves when it closes. */
  open(opened: { agentId: string; tokenId: string }, res: Response): { closed: Promise<void> };
  /** Agents with a stream open in this process. */
  agents(): string[];
  close(): Promise<void>;
}

export interface StreamHubOptions {
  db: Db;
  /** Where revoked tokens are announced (TOKEN_REVOKED_CHANNEL). */
  databaseUrl: string;
  /** A connection for this hub's subscription (subscribe mode: it serves nothing else). */
  subscriber: Redis;
  prefix: string;
  logger: Logger;
  keepaliveMs: number;
}

export function createStreamHub(options: StreamHubOptions): StreamHub {
  const { db, logger } = options;
  const streams = new Set<OpenStream>();
  /** Open streams by agent: a nudge looks up its agent, never scans every stream. */
  const byAgent = new Map<string, Set<OpenStream>>();

  const of = (agentId: string): OpenStream[] => [...(byAgent.get(agentId) ?? [])];

  async function pump(stream: OpenStream): Promise<void> {
    if (stream.pumping) {
      stream.again = true;
      return;
    }
    stream.pumping = true;
    try {
      do {
        stream.again = false;
        for (;;) {
          const items = await unackedWork(db, stream.agentId, stream.cursor);
          if (!items.length || !streams.has(stream)) break;
          const frames = items.map((item) => sseFrame('work', workEvent(item), item.id)).join('');
          stream.res.write(frames);
          stream.cursor = items[items.length - 1]!.seq;
          await markDelivered(
            db,
            items.filter((item) => !item.delivered_at).map((item) => item.id),
          );
          if (items.length < 100) break;
        }
      } while (stream.again && streams.has(stream));
    } catch (err) {
      logger.warn({ err, agentId: stream.agentId }, 'pushing agent work failed');
    } finally {
      stream.pumping = false;
    }
  }

  const resend = (agentId: string): void => {
    for (const stream of of(agentId)) {
      stream.cursor = '0';
      void pump(stream);
    }
  };
  const onNudge = (_channel: string, text: string): void => {
    if (text.startsWith('resend:')) resend(text.slice('resend:'.length));
    else for (const stream of of(text)) void pump(stream);
  };
  options.subscriber.on('message', onNudge);
  const subscribed = options.subscriber
    .subscribe(nudgeChannel(options.prefix))
    .catch((err: unknown) => logger.error({ err }, 'agent nudge subscription failed'));

  /** Ends every stream opened with one of these tokens. */
  const cut = (tokenIds: ReadonlySet<string>): void => {
    // Revocations are rare and streams per process few: a scan beats keeping another index.
    for (const stream of streams) {
      if (!tokenIds.has(stream.tokenId)) continue;
      logger.info(
        { agentId: stream.agentId, tokenId: stream.tokenId },
        'token revoked: stream cut',
      );
      stream.res.end();
    }
  };

  /** Ends the streams of whichever of these tokens are no longer live (a missed notification). */
  async function cutRevoked(tokenIds: string[]): Promise<void> {
    if (!tokenIds.length) return;
    try {
      const live = await db
        .selectFrom('api_tokens')
        .select('id')
        .where('id', 'in', tokenIds)
        .where('revoked_at', 'is', null)
        .execute();
      const liveIds = new Set(live.map((row) => row.id));
      cut(new Set(tokenIds.filter((id) => !liveIds.has(id))));
    } catch (err) {
      logger.warn({ err }, 'checking open streams’ tokens failed');
    }
  }

  const openTokenIds = (): string[] => [...new Set([...streams].map((s) => s.tokenId))];
  const revocations = listen(
    options.databaseUrl,
    TOKEN_REVOKED_CHANNEL,
    // A notification names its token; the call after a (re)connect names none and re-checks all.
    (tokenId) => (tokenId ? cut(new Set([tokenId])) : void cutRevoked(openTokenIds())),
    (err) => logger.warn({ err }, 'token revocation notifications unavailable'),
  );

  // Keepalive comments, and one UPDATE for every agent this process holds a stream of, so the
  // Dispatch card knows the stream is open whichever process holds it.
  const keepalive = setInterval(() => {
    for (const stream of streams) stream.res.write(': keepalive\n\n');
    const ids = [...byAgent.keys()];
    if (!ids.length) return;
    db.updateTable('agents')
      .set({ stream_seen_at: sql<Date>`now()` })
      .where('id', 'in', ids)
      .execute()
      .catch((err: unknown) => logger.warn({ err }, 'refreshing open streams failed'));
  }, options.keepaliveMs);
  keepalive.unref();

  return {
    open({ agentId, tokenId }, res) {
      // The agent hung up while the route was still marking the stream open: its 'close' has
      // fired already, so registering it would keep a dead stream (and the agent connected here).
      if (res.destroyed || res.closed) return { closed: Promise.resolve() };
      const stream: OpenStream = {
        agentId,
        tokenId,
        res,
        cursor: '0',
        pumping: false,
        again: false,
      };
      streams.add(stream);
      const mine = byAgent.get(agentId) ?? new Set<OpenStream>();
      mine.add(stream);
      byAgent.set(agentId, mine);
      const closed = new Promise<void>((resolve) => {
        res.on('close', () => {
          streams.delete(stream);
          mine.delete(stream);
          if (mine.size === 0 && byAgent.get(agentId) === mine) byAgent.delete(agentId);
          resolve();
        });
      });
      // A revocation that committed after the route checked the token but before this stream was
      // registered sent its notification to nobody: check once now that the stream is listed.
      void cutRevoked([tokenId]);
      void subscribed.then(() => pump(stream));
      return { closed };
    },
    agents() {
      return [...byAgent.keys()];
    },
    async close() {
      clearInterval(keepalive);
      options.subscriber.off('message', onNudge);
      await revocations.close();
      for (const stream of streams) stream.res.end();
      streams.clear();
      byAgent.clear();
      await options.subscriber.quit().catch(() => undefined);
    },
  };
}
