import fs from 'node:fs';
import readline from 'node:readline';
import { Redis } from 'ioredis';
import { parseKeyLine, type DumpedKey } from './key-file.js';

/** A connection to REDIS_URL (its `/N` database) that fails fast instead of queueing. */
export async function connectRedis(redisUrl: string): Promise<Redis> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  // Without a listener ioredis prints each reconnect error; the command's own error is what counts.
  redis.on('error', () => undefined);
  await redis.connect();
  return redis;
}

/** Keys per SCAN step and per pipelined round trip. */
const BATCH = 500;

/** Calls `each` with every batch of keys starting with `prefix:` in the connection's database. */
async function scanPrefix(
  redis: Redis,
  prefix: string,
  each: (keys: Buffer[]) => Promise<boolean | void>,
): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scanBuffer(cursor, 'MATCH', `${prefix}:*`, 'COUNT', BATCH);
    cursor = next.toString();
    if (keys.length && (await each(keys)) === false) return;
  } while (cursor !== '0');
}

/** Whether any key of Ferry's (`prefix:`) is in the database: a target to refuse without --force. */
export async function hasKeys(redis: Redis, prefix: string): Promise<boolean> {
  let found = false;
  await scanPrefix(redis, prefix, () => {
    found = true;
    return Promise.resolve(false);
  });
  return found;
}

/** `--force`: every key of Ferry's removed first, so none outlives the restore beside its data. */
export async function deleteKeys(redis: Redis, prefix: string): Promise<number> {
  let deleted = 0;
  await scanPrefix(redis, prefix, async (keys) => {
    deleted += await redis.del(...keys);
  });
  return deleted;
}

/**
 * RESTOREs every key of a backup's key file with its remaining TTL, pipelined. REPLACE, so a key
 * written between the emptiness check and here (nothing should be running) cannot fail the
 * restore half way. Returns how many keys.
 */
export async function importKeys(redis: Redis, file: string): Promise<number> {
  const lines = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  let batch: DumpedKey[] = [];
  let count = 0;
  let lineNumber = 0;
  const flush = async (): Promise<void> => {
    if (!batch.length) return;
    const pipeline = redis.pipeline();
    for (const { key, ttlMs, value } of batch) pipeline.restore(key, ttlMs, value, 'REPLACE');
    const replies = (await pipeline.exec()) ?? [];
    for (const [error] of replies) {
      if (!error) continue;
      throw /payload version/i.test(error.message)
        ? new Error(
            `The target Redis cannot read this backup's keys (${error.message}): restore into the same or a newer Redis version than the one in the manifest.`,
          )
        : error;
    }
    count += batch.length;
    batch = [];
  };
  for await (const line of lines) {
    lineNumber++;
    if (!line.trim()) continue;
    batch.push(parseKeyLine(line, lineNumber));
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  return count;
}
