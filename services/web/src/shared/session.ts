import type { RequestHandler } from 'express';
import session from 'express-session';
import { csrfSync } from 'csrf-sync';
import type { WebDeps } from '../deps.js';
import { RedisSessionStore } from './session-store.js';

declare module 'express-session' {
  interface SessionData {
    userId?: string;
    flash?: { kind: 'ok' | 'error'; text: string }[];
  }
}

export const SESSION_COOKIE = 'ferry.sid';
const SESSION_LIFETIME_SECONDS = 14 * 24 * 3600;

/** Server-side sessions in Redis; the cookie holds only a signed id (HttpOnly, SameSite=Lax). */
export function sessionMiddleware({
  config,
  redis,
}: Pick<WebDeps, 'config' | 'redis'>): RequestHandler {
  return session({
    name: SESSION_COOKIE,
    secret: config.APP_SECRET,
    store: new RedisSessionStore(redis, config.REDIS_PREFIX, SESSION_LIFETIME_SECONDS),
    resave: false,
    saveUninitialized: false,
    rolling: true,
    cookie: {
      httpOnly: true,
      sameSite: 'lax',
      secure: config.PUBLIC_URL.startsWith('https://'),
      maxAge: SESSION_LIFETIME_SECONDS * 1000,
    },
  });
}

/**
 * Synchronizer-token CSRF protection for every form post (token in the session, `_csrf` field in
 * the form or `x-csrf-token` header for fetch). Sign-in and sign-up forms carry one too.
 */
export const csrf = csrfSync({
  getTokenFromRequest: (req) => {
    const body = req.body as Record<string, unknown> | undefined;
    const fromBody = typeof body?._csrf === 'string' ? body._csrf : undefined;
    return fromBody ?? req.get('x-csrf-token');
  },
  errorConfig: { statusCode: 403, message: 'csrf_failed', code: 'csrf_failed' },
});
