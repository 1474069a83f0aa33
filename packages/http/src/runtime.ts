import type http from 'node:http';
import { Redis } from 'ioredis';
import { createLogger, type Config, type Logger } from '@ferry/core';
import { createDb, type Db } from '@ferry/db';

export interface Runtime {
  config: Config;
  db: Db;
  redis: Redis;
  logger: Logger;
  close(): Promise<void>;
}

/** The connections a service process holds: one pool, one Redis client, one logger. */
export function openRuntime(config: Config, service: string): Runtime {
  const logger = createLogger({ level: config.LOG_LEVEL, name: service });
  if (config.usingDevSecret) {
    logger.warn('APP_SECRET is not set: using the development default. Set it before real use.');
  }
  const db = createDb(config.DATABASE_URL);
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 3 });
  redis.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis connection error'));
  return {
    config,
    db,
    redis,
    logger,
    close: async () => {
      await db.destroy();
      redis.disconnect();
    },
  };
}

/** Listen on PORT; resolves once listening. */
export function listen(server: http.Server, port: number, logger: Logger): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => {
      server.off('error', reject);
      logger.info({ port }, 'listening');
      resolve();
    });
  });
}

/**
 * Run `stop` once on SIGTERM/SIGINT, then exit. A second signal exits at once; a stop that hangs
 * is cut off after `timeoutMs` so an orchestrator never waits forever.
 */
export function onShutdown(logger: Logger, stop: () => Promise<void>, timeoutMs = 25_000): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals): void => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown timed out');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
}

/** Parse config once at start; a bad value prints every problem and exits 1 (no stack trace). */
export function configOrExit<C>(load: () => C): C {
  try {
    return load();
  } catch (error) {
    exitOnConfigError(error);
  }
}

/** Print a config error readably and exit, instead of a stack trace. */
export function exitOnConfigError(error: unknown): never {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
