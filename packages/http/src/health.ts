import { Router } from 'express';
import type { Redis } from 'ioredis';
import { pingDb, type Db } from '@ferry/db';
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

/** /healthz: the process is up. /readyz: Postgres and Redis answer. /metrics: Prometheus. */
export function healthRouter({
  db,
  redis,
  metrics,
}: {
  db: Db;
  redis: Redis;
  metrics: Metrics;
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
  router.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.send(await metrics.registry.metrics());
  });
  return router;
}
