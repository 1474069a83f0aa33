import type { Redis } from 'ioredis';
import { scriptCommand } from '@ferry/queues';

/**
 * Sentry SDKs send an event again when they did not hear our answer (a timeout, a dropped
 * connection); the event keeps its `event_id`. The first request to name an event id claims an
 * occurrence id for it, and every later one gets the same id back, so however many copies are
 * enqueued, the writer's insert (idempotent on the occurrence id) stores the event once. Claims
 * are made only for events the rate limit let through (so they are bounded by it) and never given
 * back: an attempt whose enqueue failed (503) leaves its id for the retry to use.
 * One script for the whole group: one round trip.
 * KEYS: one claim key per event. ARGV: the key TTL, then the candidate occurrence id per event.
 */
const CLAIM_MANY = `
local ttl = tonumber(ARGV[1])
local ids = {}
for i, key in ipairs(KEYS) do
  local existing = redis.call('GET', key)
  if existing then
    ids[i] = existing
  else
    redis.call('SET', key, ARGV[i + 1], 'EX', ttl)
    ids[i] = ARGV[i + 1]
  end
end
return ids
`;

/** As long as incoming webhooks keep idempotency records (DESIGN.md): a day. */
const CLAIM_TTL_SECONDS = 24 * 60 * 60;

export function eventClaimKey(prefix: string, workspaceId: string, eventId: string): string {
  return `${prefix}:ingest:event:${workspaceId}:${eventId}`;
}

export interface Claim {
  /** eventClaimKey() of the event. */
  key: string;
  /** The occurrence id to use when the event is new. */
  candidate: string;
}

/** The occurrence id of each event, in order: its candidate, or the one an earlier copy claimed. */
export async function claimEventIds(redis: Redis, claims: readonly Claim[]): Promise<string[]> {
  if (claims.length === 0) return [];
  return scriptCommand<string[]>(redis, 'ferryIngestClaimMany', CLAIM_MANY)(
    claims.length,
    ...claims.map((claim) => claim.key),
    CLAIM_TTL_SECONDS,
    ...claims.map((claim) => claim.candidate),
  );
}
