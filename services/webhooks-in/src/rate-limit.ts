import type { Redis } from 'ioredis';

/**
 * SPEC.md: N posts per minute per key. The same approach as ingest-errors' limiter: one Lua
 * script does the check-and-count, so concurrent posts on any number of replicas can never get
 * more than the limit between them. The window is a fixed minute that starts with the key's first
 * post in it (a counter with a one-minute expiry), so Retry-After is exactly the time left in it.
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

export function rateLimitKey(prefix: string, webhookId: string): string {
  return `${prefix}:whin:rl:${webhookId}`;
}

/**
 * Counts one post. Undefined when it fits; otherwise the whole seconds until the window ends
 * (at least 1), for Retry-After.
 */
export async function hitRateLimit(
  redis: Redis,
  key: string,
  limit: number,
): Promise<number | undefined> {
  const left = Number(await redis.eval(HIT, 1, key, RATE_WINDOW_MS, limit));
  return left > 0 ? Math.max(1, Math.ceil(left / 1000)) : undefined;
}
