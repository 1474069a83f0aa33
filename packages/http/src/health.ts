import { Router, type RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import ipaddr from 'ipaddr.js';
import { AppError, safeEqual } from '@ferry/core';
import { pingDb, type Db } from '@ferry/db';
import { notFoundHandler } from './errors.js';
import type { Metrics } from './metrics.js';

async function check(
  name: string,
  fn: () => Promise<unknown>,
  timeoutMs = 2000,
): Promise<[string, string]> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      fn(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out')), timeoutMs);
      }),
    ]);
    return [name, 'ok'];
  } catch {
    return [name, 'unavailable'];
  } finally {
    clearTimeout(timer);
  }
}

/**
 * /healthz: the process is up. /readyz: Postgres and Redis answer. /metrics: Prometheus, guarded
 * (metricsRouter). `metricsToken` is the service's METRICS_TOKEN setting, passed explicitly so no
 * service can forget it.
 */
export function healthRouter({
  db,
  redis,
  metrics,
  metricsToken,
}: {
  db: Db;
  redis: Redis;
  metrics: Metrics;
  metricsToken: string | undefined;
}): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const checks = Object.fromEntries(
      await Promise.all([check('postgres', () => pingDb(db)), check('redis', () => redis.ping())]),
    );
    const ready = Object.values(checks).every((v) => v === 'ok');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ok' : 'unavailable', checks });
  });
  router.use(metricsRouter({ metrics, token: metricsToken }));
  return router;
}

/**
 * GET /metrics, the way Prometheus scrapes it. With a token (METRICS_TOKEN) every scrape needs
 * `Authorization: Bearer <token>`, loopback included (Prometheus's `authorization` setting sends
 * it). Without one only loopback callers are answered, by the socket's own address (never
 * X-Forwarded-For, which any caller can write), so a fresh deployment shows nothing: everyone
 * else gets the 404 of an unknown path, as if there were no such route.
 */
export function metricsRouter({
  metrics,
  token,
}: {
  metrics: Metrics;
  token: string | undefined;
}): Router {
  const router = Router();
  router.get('/metrics', metricsAccess(token), async (_req, res) => {
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.send(await metrics.registry.metrics());
  });
  return router;
}

function metricsAccess(token: string | undefined): RequestHandler {
  if (token === undefined) {
    return (req, res, next) => {
      if (isLoopbackAddress(req.socket.remoteAddress)) next();
      else notFoundHandler(req, res, next);
    };
  }
  return (req, _res, next) => {
    const given = bearerToken(req.get('authorization'));
    if (given !== undefined && safeEqual(given, token)) {
      next();
      return;
    }
    next(
      new AppError(
        'invalid_token',
        'Scraping /metrics needs Authorization: Bearer <METRICS_TOKEN>.',
        {
          headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' },
        },
      ),
    );
  };
}

/** The token of an `Authorization: Bearer <token>` header; undefined for any other header. */
function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header ?? '');
  return match?.[1];
}

/** 127.0.0.0/8 and ::1, IPv4-mapped forms (`::ffff:127.0.0.1`) included. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address || !ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'loopback';
}
