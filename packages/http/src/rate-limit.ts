import type { Redis } from 'ioredis';
import { scriptCommand } from '@ferry/queues';

/**
 * A fixed-window limit in Redis (incoming webhook posts per key, sign-in attempts per account and
 * per address): one Lua script does the check-and-count, so concurrent requests on any number of
 * replicas can never get more than the limit between them. The window starts with the first hit
 * in it (a counter with the window as expiry), so Retry-After is exactly the time left in it.
 */
const HIT = `
local used = redis.call('INCR', KEYS[1])
if used == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
if used <= tonumber(ARGV[2]) then return 0 end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
return left
`;

export const RATE_WINDOW_MS = 60_000;

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
  const left = Number(
    await scriptCommand<number>(redis, 'ferryRateLimitHit', HIT)(1, key, windowMs, limit),
  );
  return left > 0 ? Math.max(1, Math.ceil(left / 1000)) : undefined;
}
