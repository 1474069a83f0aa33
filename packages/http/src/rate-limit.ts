import type { Redis } from 'ioredis';
import { createGroupCommit } from '@ferry/core';
import { scriptCommand } from '@ferry/queues';

/**
 * A fixed-window limit in Redis (incoming webhook posts per key, sign-in attempts per account and
 * per address): one Lua script does the check-and-count, so concurrent requests on any number of
 * replicas can never get more than the limit between them. The window starts with the first hit
 * in it (a counter with the window as expiry), so Retry-After is exactly the time left in it.
 *
 * The script counts many hits at once, in order (KEYS: one key per hit, repeats allowed; ARGV:
 * the window in ms, then each hit's limit): one hit is a call with one key, and a hot route groups
 * the hits of the moment into one call (groupedRateLimit). Each answer is 0 when the hit fits, or
 * the milliseconds left in its window.
 */
const HIT_MANY = `
local window = tonumber(ARGV[1])
local out = {}
for i, key in ipairs(KEYS) do
  local used = redis.call('INCR', key)
  if used == 1 then redis.call('PEXPIRE', key, window) end
  if used <= tonumber(ARGV[i + 1]) then
    out[i] = 0
  else
    local left = redis.call('PTTL', key)
    if left < 0 then
      redis.call('PEXPIRE', key, window)
      left = window
    end
    out[i] = left
  end
end
return out
`;

export const RATE_WINDOW_MS = 60_000;

interface Hit {
  key: string;
  limit: number;
}

function hitMany(redis: Redis, hits: readonly Hit[], windowMs: number): Promise<number[]> {
  return scriptCommand<number[]>(redis, 'ferryRateLimitHitMany', HIT_MANY)(
    hits.length,
    ...hits.map((hit) => hit.key),
    windowMs,
    ...hits.map((hit) => hit.limit),
  ).then((left) => left.map(Number));
}

/** Milliseconds left in the window -> undefined (fits) or whole seconds, at least 1. */
const retryAfterOf = (leftMs: number): number | undefined =>
  leftMs > 0 ? Math.max(1, Math.ceil(leftMs / 1000)) : undefined;

/**
 * Counts one hit. Undefined when it fits; otherwise the whole seconds until the window ends
 * (at least 1), for Retry-After.
 */
export async function hitRateLimit(
  redis: Redis,
  key: string,
  limit: number,
  windowMs = RATE_WINDOW_MS,
): Promise<number | undefined> {
  const [left] = await hitMany(redis, [{ key, limit }], windowMs);
  return retryAfterOf(left ?? 0);
}

export interface GroupedRateLimit {
  /** hitRateLimit's answer for this hit, counted with the others of the moment. */
  hit(key: string, limit: number): Promise<number | undefined>;
}

/** Hits counted in one script call at most. */
const GROUP_MAX = 500;
/** Calls in flight at once: Redis pipelines them on one connection, so a few overlap cheaply. */
const GROUP_CONCURRENCY = 4;

/**
 * hitRateLimit for a route that answers at high rates (incoming webhooks): the hits arriving
 * together are counted in one script call (group commit), one round trip whatever their number,
 * each in arrival order, with the same answers one call each would give. A failed call (Redis
 * unreachable) rejects every hit of its group.
 */
export function groupedRateLimit(redis: Redis, windowMs = RATE_WINDOW_MS): GroupedRateLimit {
  const hits = createGroupCommit<Hit, number>({
    maxItems: GROUP_MAX,
    concurrency: GROUP_CONCURRENCY,
    write: (group) => hitMany(redis, group, windowMs),
  });
  return {
    hit: async (key, limit) => retryAfterOf(await hits.submit({ key, limit })),
  };
}
