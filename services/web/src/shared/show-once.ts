import type { Redis } from 'ioredis';
import type { SecretBox } from '@ferry/core';

/**
 * A secret shown once on the page after the POST that made it (a new API token's raw value).
 * Not in the session, which lives for days: a Redis key of its own, bound to the session and the
 * thing shown, sealed with APP_SECRET (Redis persists to disk), gone after minutes or on the first
 * read (GETDEL), whichever comes first.
 */
export const SHOW_ONCE_TTL_SECONDS = 10 * 60;

function slotKey(prefix: string, sessionId: string, subject: string): string {
  return `${prefix}:show-once:${sessionId}:${subject}`;
}

export async function stashOnce(
  deps: { redis: Redis; box: SecretBox; prefix: string },
  sessionId: string,
  subject: string,
  secret: string,
): Promise<void> {
  await deps.redis.set(
    slotKey(deps.prefix, sessionId, subject),
    deps.box.encrypt(secret),
    'EX',
    SHOW_ONCE_TTL_SECONDS,
  );
}

/** The secret, once; undefined when never stashed, already taken, or expired. */
export async function takeOnce(
  deps: { redis: Redis; box: SecretBox; prefix: string },
  sessionId: string,
  subject: string,
): Promise<string | undefined> {
  const sealed = await deps.redis.getdel(slotKey(deps.prefix, sessionId, subject));
  if (sealed === null) return undefined;
  try {
    return deps.box.decrypt(sealed);
  } catch {
    return undefined; // sealed under another APP_SECRET: nothing to show
  }
}
