import type { Redis } from 'ioredis';

/**
 * SPEC.md: N reports per minute per workspace, shared by all sources. A fixed one-minute window
 * per workspace in Redis; the check-and-take is one Lua script, so concurrent requests (on any
 * number of ingest replicas) can never take more than the limit between them. A request asks for
 * its batch size and gets what still fits, possibly less (the batch is cut) or nothing (429).
 */
const TAKE = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local fits = tonumber(ARGV[2]) - used
local take = math.min(tonumber(ARGV[1]), fits)
if take <= 0 then return 0 end
redis.call('INCRBY', KEYS[1], take)
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return take
`;

const WINDOW_MS = 60_000;
/** The key outlives its minute a little, so a refund after a slow enqueue still finds it. */
const KEY_TTL_SECONDS = 120;

export interface RateLimitTake {
  taken: number;
  /** Gives the taken reports back, when they were not accepted after all (enqueue failed). */
  refund(): Promise<void>;
}

export function rateLimitKey(prefix: string, workspaceId: string, now: Date): string {
  return `${prefix}:ingest:rl:${workspaceId}:${Math.floor(now.getTime() / WINDOW_MS)}`;
}

export async function takeReports(
  redis: Redis,
  key: string,
  wanted: number,
  limit: number,
): Promise<RateLimitTake> {
  const result = await redis.eval(TAKE, 1, key, wanted, limit, KEY_TTL_SECONDS);
  const taken = Number(result);
  return {
    taken,
    refund: async () => {
      if (taken > 0) await redis.decrby(key, taken);
    },
  };
}
