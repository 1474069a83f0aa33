import session from 'express-session';
import type { Redis } from 'ioredis';

/**
 * express-session store over ioredis (connect-redis speaks node-redis only). Sessions are JSON
 * under `<prefix>:sess:<id>` with the cookie's lifetime as TTL.
 */
export class RedisSessionStore extends session.Store {
  private readonly ttlSeconds: number;
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    ttlSeconds = 14 * 24 * 3600,
  ) {
    super();
    this.ttlSeconds = ttlSeconds;
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
    this.redis.get(this.key(sid)).then(
      (value) => cb(null, value ? (JSON.parse(value) as session.SessionData) : null),
      (err: unknown) => cb(err),
    );
  }

  override set(sid: string, sess: session.SessionData, cb?: (err?: unknown) => void): void {
    this.redis.set(this.key(sid), JSON.stringify(sess), 'EX', this.ttl(sess)).then(
      () => cb?.(),
      (err: unknown) => cb?.(err),
    );
  }

  override touch(sid: string, sess: session.SessionData, cb?: (err?: unknown) => void): void {
    this.redis.expire(this.key(sid), this.ttl(sess)).then(
      () => cb?.(),
      (err: unknown) => cb?.(err),
    );
  }

  override destroy(sid: string, cb?: (err?: unknown) => void): void {
    this.redis.del(this.key(sid)).then(
      () => cb?.(),
      (err: unknown) => cb?.(err),
    );
  }
}
