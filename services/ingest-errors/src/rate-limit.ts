import type { Redis } from 'ioredis';
import { scriptCommand } from '@ferry/queues';

/**
 * SPEC.md: N reports per minute per workspace, shared by all sources. A fixed one-minute window
 * per workspace in Redis; the check-and-take is one Lua script, so concurrent requests (on any
 * number of ingest replicas) can never take more than the limit between them. A request asks for
 * its batch size and gets what still fits, possibly less (the batch is cut) or nothing (429).
 *
 * The script takes for a whole group of requests at once (group commit, see accept.ts): one
 * round trip whatever the group's size, requests of the same workspace served in order.
 * KEYS: one window key per request. ARGV: limit, key TTL, then the wanted count per request.
 */
const TAKE_MANY = `
local limit = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
local taken = {}
for i, key in ipairs(KEYS) do
  local used = tonumber(redis.call('GET', key) or '0')
  local take = math.min(tonumber(ARGV[i + 2]), limit - used)
  if take > 0 then
    redis.call('INCRBY', key, take)
    redis.call('EXPIRE', key, ttl)
  else
    take = 0
  end
  taken[i] = take
end
return taken
`;

const WINDOW_MS = 60_000;
/** The key outlives its minute a little, so a refund after a slow enqueue still finds it. */
const KEY_TTL_SECONDS = 120;

export interface TakeRequest {
  /** rateLimitKey() of the request's workspace and minute. */
  key: string;
  wanted: number;
}

export interface RateLimitTakes {
  /** Reports each request may keep, in request order (0: rate limited). */
  taken: number[];
  /** Gives every taken report back, when they were not accepted after all (enqueue failed). */
  refund(): Promise<void>;
}

export function rateLimitKey(prefix: string, workspaceId: string, now: Date): string {
  return `${prefix}:ingest:rl:${workspaceId}:${Math.floor(now.getTime() / WINDOW_MS)}`;
}

export async function takeReportsMany(
  redis: Redis,
  requests: readonly TakeRequest[],
  limit: number,
): Promise<RateLimitTakes> {
  if (requests.length === 0) return { taken: [], refund: () => Promise.resolve() };
  const result = await scriptCommand<number[]>(redis, 'ferryIngestTakeMany', TAKE_MANY)(
    requests.length,
    ...requests.map((request) => request.key),
    limit,
    KEY_TTL_SECONDS,
    ...requests.map((request) => request.wanted),
  );
  const taken = result.map(Number);
  return {
    taken,
    refund: async () => {
      const back = new Map<string, number>();
      requests.forEach((request, index) => {
        const count = taken[index] ?? 0;
        if (count > 0) back.set(request.key, (back.get(request.key) ?? 0) + count);
      });
      if (back.size === 0) return;
      const pipeline = redis.pipeline();
      for (const [key, count] of back) pipeline.decrby(key, count);
      await pipeline.exec();
    },
  };
}
