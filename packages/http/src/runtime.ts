import type http from 'node:http';
import type { Redis } from 'ioredis';
import {
  configWarnings,
  createLogger,
  createRedisConnection,
  type Config,
  type Logger,
} from '@ferry/core';
import { createDb, type Db } from '@ferry/db';

export interface Runtime {
  config: Config;
  db: Db;
  redis: Redis;
  logger: Logger;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /**
   * Log the config's warnings (APP_SECRET unset, ...) at open; the default. A cluster worker does
   * not: its primary warned once for every process.
   */
  warn?: boolean;
}

/** The connections a service process holds: one pool, one Redis client, one logger. */
export function openRuntime(
  config: Config,
  service: string,
  options: RuntimeOptions = {},
): Runtime {
  const logger = createLogger({
    level: config.LOG_LEVEL,
    name: service,
    format: config.LOG_FORMAT,
  });
  if (options.warn ?? true) for (const warning of configWarnings(config)) logger.warn(warning);
  const db = createDb(config.DATABASE_URL);
  const redis = createRedisConnection(config.redis, { role: 'shared', logger });
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

/** Per server: the responses not yet finished, and whether a drain has begun. */
interface Draining {
  open: Set<http.ServerResponse>;
  draining: boolean;
}
const tracked = new WeakMap<http.Server, Draining>();

/**
 * Remembers the server's unfinished responses, so `closeServer` can tell each one to close its
 * connection after answering instead of keeping it alive.
 */
function trackResponses(server: http.Server): Draining {
  const known = tracked.get(server);
  if (known) return known;
  const state: Draining = { open: new Set(), draining: false };
  tracked.set(server, state);
  server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    if (res.writableFinished) return;
    if (state.draining) {
      if (!res.headersSent) res.setHeader('connection', 'close');
      return;
    }
    state.open.add(res);
    res.once('close', () => state.open.delete(res));
  });
  return state;
}

/**
 * Graceful close for SIGTERM: stop accepting connections, let every request in flight get its
 * real answer with `Connection: close`, and close keep-alive connections as soon as they are idle
 * (a plain `server.close()` leaves them open for the keep-alive timeout, and a request racing on
 * one would be reset). Long-lived responses (SSE streams) must be ended by their owner; the
 * promise resolves once every connection is gone.
 */
export function closeServer(server: http.Server, sweepMs = 50): Promise<void> {
  const state = trackResponses(server);
  state.draining = true;
  for (const res of state.open) if (!res.headersSent) res.setHeader('connection', 'close');
  return new Promise((resolve) => {
    const sweep = setInterval(() => server.closeIdleConnections(), sweepMs);
    // Called with ERR_SERVER_NOT_RUNNING when someone else closed it first: still drained.
    server.close(() => {
      clearInterval(sweep);
      resolve();
    });
  });
}

/**
 * How long an idle keep-alive connection stays open. Node's 5 s default is shorter than what
 * clients and proxies keep idle connections for (Caddy's upstream pool: 2 min), so either may send
 * a request on a socket the server is closing at that very moment and get a reset (seen as
 * ECONNRESET from fetch on a loaded host). Longer than the proxy's, the server is never the first
 * to close; clients that read the Keep-Alive hint (undici, fetch) close a second before it.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 125_000;

/** Listen on PORT; resolves once listening. Close it with `closeServer`. */
export function listen(server: http.Server, port: number, logger: Logger): Promise<void> {
  trackResponses(server);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
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
 * Run `stop` once on SIGTERM/SIGINT, then exit (logging `stopped`). A second signal exits at once; a stop that hangs
 * is cut off after `timeoutMs` so an orchestrator never waits forever.
 */
export function onShutdown(logger: Logger, stop: () => Promise<void>, timeoutMs = 25_000): void {
  const begin = shutdownOnce(logger, stop, timeoutMs);
  let stopping = false;
  const handle = (signal: NodeJS.Signals): void => {
    if (stopping) process.exit(1);
    stopping = true;
    begin(signal);
  };
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
}

/**
 * The drain onShutdown runs, for a caller that decides itself what starts it (a cluster worker:
 * its primary's message): the first call runs `stop` and exits 0 (1 if it failed or took longer
 * than `timeoutMs`); later calls do nothing.
 */
export function shutdownOnce(
  logger: Logger,
  stop: () => Promise<void>,
  timeoutMs = 25_000,
): (reason: string) => void {
  let started = false;
  return (reason) => {
    if (started) return;
    started = true;
    logger.info({ signal: reason }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown timed out');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    stop().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
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
