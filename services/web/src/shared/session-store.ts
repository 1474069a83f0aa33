import session from 'express-session';
import type { Redis } from 'ioredis';
import { AppError } from '@ferry/core';

/**
 * Redis down or failing over (no master for a few seconds): the page answers 503, "try again",
 * rather than a 500 that reads as a bug. Nothing was read or written.
 */
function sessionsUnavailable(cause: unknown): AppError {
  const error = new AppError(
    'unavailable',
    'Ferry cannot reach its session store right now; try again in a moment.',
  );
  error.cause = cause;
  return error;
}

/**
 * express-session store over ioredis (connect-redis speaks node-redis only). Sessions are JSON
 * under `<prefix>:sess:<id>` with the cookie's lifetime as TTL.
 *
 * Sessions roll (every answer sends the cookie again with a full lifetime), so every read renews
 * the stored lifetime to `ttlSeconds` in the same command (GETEX): one round trip to Redis per
 * page instead of two, and no `touch` after the answer (express-session calls it only when a
 * store has it). `ttlSeconds` must be the cookie's maxAge (sessionMiddleware passes it).
 */
export class RedisSessionStore extends session.Store {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
  ) {
    super();
  }

  private key(sid: string): string {
    return `${this.prefix}:sess:${sid}`;
  }

  private ttl(sess: session.SessionData): number {
    const expires = sess.cookie?.expires ? new Date(sess.cookie.expires).getTime() : undefined;
    return expires ? Math.max(1, Math.ceil((expires - Date.now()) / 1000)) : this.ttlSeconds;
  }

  override get(
    sid: string,
    cb: (err: unknown, session?: session.SessionData | null) => void,
  ): void {
    this.redis.getex(this.key(sid), 'EX', this.ttlSeconds).then(
      (value) => cb(null, value ? (JSON.parse(value) as session.SessionData) : null),
      (err: unknown) => cb(sessionsUnavailable(err)),
    );
  }

  override set(sid: string, sess: session.SessionData, cb?: (err?: unknown) => void): void {
    this.redis.set(this.key(sid), JSON.stringify(sess), 'EX', this.ttl(sess)).then(
      () => cb?.(),
      (err: unknown) => cb?.(sessionsUnavailable(err)),
    );
  }

  override destroy(sid: string, cb?: (err?: unknown) => void): void {
    this.redis.del(this.key(sid)).then(
      () => cb?.(),
      (err: unknown) => cb?.(sessionsUnavailable(err)),
    );
  }
}
