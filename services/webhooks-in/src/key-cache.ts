import { hashSecret, type Logger } from '@ferry/core';
import { listen, type Db } from '@ferry/db';
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
  /** How many times the cache was dropped (tests wait for a change's notification with it). */
  invalidations(): number;
  close(): Promise<void>;
}

export const KEY_CHANNEL = 'ferry_incoming_keys';
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
  const listener = listen(
    options.databaseUrl,
    KEY_CHANNEL,
    () => {
      invalidate();
      trusted = true;
    },
    (err) => options.logger.warn({ err }, 'incoming key notifications unavailable; cache bypassed'),
    () => {
      trusted = false;
      invalidate();
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
    invalidations: () => generation,
    close: () => listener.close(),
  };
}
