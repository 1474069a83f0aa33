import { randomUUID } from 'node:crypto';
import { hashSecret, type Logger } from '@ferry/core';
import { listen, type Db } from '@ferry/db';
import { sql } from 'kysely';
import { findLiveKey, type LiveKey } from './accept.js';

/**
 * Live incoming-webhook keys, cached in this process: the lookup joins five tables and every post
 * needs it. Postgres tells every process at commit when anything that decides a key's answer
 * changes (migration 0008: the key, its creator's seats, the room, the creator's name), and the
 * whole cache is dropped, so a disabled, deleted or orphaned key answers 404 on the very next
 * post in every process once the notification arrives (at commit; milliseconds on one network).
 * In the moment before it arrives the cache may still hand out a dead key: the group commit checks
 * every batch's keys again in its own transaction (accept.ts liveKeyHashes), so such a post gets
 * the same 404 and nothing is stored.
 * While that notification channel is down the cache is bypassed (a missed
 * notification must never keep a dead key alive); entries also expire after a minute.
 */
export interface LiveKeyCache {
  find(rawKey: string): Promise<LiveKey | undefined>;
  /**
   * Resolves once every change committed before the call has reached this process and dropped its
   * cache: it sends a token of its own on the channel and waits to hear it back (Postgres delivers
   * notifications in commit order). Tests wait on it; waiting for "any drop" could be satisfied by
   * a late notification of an earlier change. Rejects if the notification connection drops first,
   * or the token is not heard within `timeoutMs`.
   */
  settle(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export const KEY_CHANNEL = 'ferry_incoming_keys';
/** settle()'s tokens on KEY_CHANNEL; every other notification is a change (its payload is ''). */
const SETTLE_PREFIX = 'settle:';
const TTL_MS = 60_000;
/** Bounds memory against a flood of random keys: past it the cache starts over. */
const MAX_ENTRIES = 10_000;

export function createLiveKeyCache(
  db: Db,
  options: { databaseUrl: string; logger: Logger; now?: () => number },
): LiveKeyCache {
  const now = options.now ?? Date.now;
  const entries = new Map<string, { key: LiveKey | undefined; expiresAt: number }>();
  let trusted = false;
  /** Bumped on every invalidation: a lookup that started before one does not fill the cache. */
  let generation = 0;
  const invalidate = () => {
    generation++;
    entries.clear();
  };
  /** settle() calls waiting for their token, and for the connection to be (re)established. */
  const tokens = new Map<string, { heard: () => void; lost: (err: Error) => void }>();
  const connected: (() => void)[] = [];
  const listener = listen(
    options.databaseUrl,
    KEY_CHANNEL,
    (payload) => {
      // A settle() token (ours or another process's) says nothing changed: dropping the cache
      // for it would drop keys cached after the change it follows (a test saw exactly that).
      if (!payload?.startsWith(SETTLE_PREFIX)) invalidate();
      trusted = true;
      if (payload) tokens.get(payload)?.heard();
      for (const resume of connected.splice(0)) resume();
    },
    (err) => options.logger.warn({ err }, 'incoming key notifications unavailable; cache bypassed'),
    () => {
      trusted = false;
      invalidate();
      const lost = new Error('the key notification connection dropped before the token was heard');
      for (const waiter of tokens.values()) waiter.lost(lost);
    },
  );

  return {
    async find(rawKey) {
      if (!trusted) return findLiveKey(db, rawKey);
      const digest = hashSecret(rawKey);
      const hit = entries.get(digest);
      if (hit && hit.expiresAt > now()) return hit.key;
      const started = generation;
      const key = await findLiveKey(db, rawKey);
      if (trusted && started === generation) {
        if (entries.size >= MAX_ENTRIES) entries.clear();
        entries.set(digest, { key, expiresAt: now() + TTL_MS });
      }
      return key;
    },
    async settle(timeoutMs = 10_000) {
      const token = `${SETTLE_PREFIX}${randomUUID()}`;
      let timer: NodeJS.Timeout | undefined;
      const heard = new Promise<void>((resolve, reject) => {
        tokens.set(token, { heard: resolve, lost: reject });
        timer = setTimeout(
          () => reject(new Error(`${KEY_CHANNEL}: own token not heard within ${timeoutMs} ms`)),
          timeoutMs,
        );
      });
      // It may reject (timeout, lost connection) while the notify below is still in flight.
      heard.catch(() => undefined);
      try {
        if (!trusted) await Promise.race([new Promise<void>((up) => connected.push(up)), heard]);
        await sql`select pg_notify(${KEY_CHANNEL}, ${token})`.execute(db);
        await heard;
      } finally {
        clearTimeout(timer);
        tokens.delete(token);
      }
    },
    close: () => listener.close(),
  };
}
